// What the bridge reads from a JSON-RPC message to route it. Only these few
// fields are looked at; everything else crosses as the sender wrote it.

export type RpcId = string | number;

export interface Routing {
  id?: RpcId;
  method?: string;
  /** A request: has both a method and an id. */
  isRequest: boolean;
  /** A response: has an id and a result or error, no method. */
  isResponse: boolean;
}

export function routingOf(value: unknown): Routing {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { isRequest: false, isResponse: false };
  const o = value as Record<string, unknown>;
  const id = typeof o.id === 'string' || typeof o.id === 'number' ? o.id : undefined;
  const method = typeof o.method === 'string' ? o.method : undefined;
  return { id, method, isRequest: method !== undefined && id !== undefined, isResponse: method === undefined && id !== undefined && ('result' in o || 'error' in o) };
}

/** The ids of the requests in a message or batch. */
export function requestIds(value: unknown): RpcId[] {
  const all = Array.isArray(value) ? value : [value];
  const ids: RpcId[] = [];
  for (const m of all) {
    const r = routingOf(m);
    if (r.isRequest) ids.push(r.id!);
  }
  return ids;
}

/** A JSON-RPC error line for the client. */
export function errorLine(id: RpcId | null, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}

/** An answer from a hub that is handing over: it did not act on the request (see main/transports/pipe-connection.ts). */
export function isRetryElsewhere(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { pincerRetry?: unknown }).pincerRetry === true;
}

/** The client's view of a refused connection: the hub's own message where it gave one. */
export function refusalMessage(status: number, body: string, settingsFile: string): string {
  if (status === 401) return `the hub rejected this bridge's token (HTTP 401). AUTH_TOKEN in ${settingsFile} or in the environment must be the hub's; see "pincer token".`;
  let message: unknown;
  try {
    message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
  } catch {
    // Not JSON: quoted below.
  }
  return typeof message === 'string' ? message : `the hub answered HTTP ${status}${body ? `: ${body.slice(0, 300)}` : ''}`;
}
