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

/** `result.protocolVersion` of an initialize answer. */
export function negotiatedVersion(value: unknown): string | undefined {
  const result = typeof value === 'object' && value !== null ? (value as { result?: unknown }).result : undefined;
  const v = typeof result === 'object' && result !== null ? (result as { protocolVersion?: unknown }).protocolVersion : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** A JSON-RPC error line for the client. */
export function errorLine(id: RpcId | null, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}

// 2026-07-28 requests carry their protocol envelope in params._meta; the
// Streamable HTTP binding mirrors it into headers that the server checks
// against the body (SEP-2243), so a relay must derive them from the message.
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
const NAME_SOURCE: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** MCP-Protocol-Version, Mcp-Method and Mcp-Name for a request that carries the envelope; nothing otherwise. */
export function envelopeHeaders(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as { id?: unknown; method?: unknown; params?: unknown };
  if (typeof o.method !== 'string' || o.id === undefined) return undefined;
  const params = typeof o.params === 'object' && o.params !== null ? (o.params as Record<string, unknown>) : undefined;
  const meta = params && typeof params._meta === 'object' && params._meta !== null ? (params._meta as Record<string, unknown>) : undefined;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== 'string') return undefined;
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': o.method };
  const field = Object.hasOwn(NAME_SOURCE, o.method) ? NAME_SOURCE[o.method] : undefined;
  const name = field && params ? params[field] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

const B64_PREFIX = '=?base64?';
const B64_SUFFIX = '?=';

/** A value as an HTTP field: printable ASCII as is, anything else (or anything that looks encoded) as =?base64?…?=. */
function encodeHeaderValue(s: string): string {
  const plain = s.length > 0 && s === s.trim() && !(s.startsWith(B64_PREFIX) && s.endsWith(B64_SUFFIX)) && /^[\t\x20-\x7e]*$/.test(s);
  return plain ? s : `${B64_PREFIX}${Buffer.from(s, 'utf8').toString('base64')}${B64_SUFFIX}`;
}
