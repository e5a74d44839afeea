import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, type TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client';
import type { HubProcess } from './hub.js';

export const TASKS = 'io.modelcontextprotocol/tasks';
const VERSION = '2026-07-28';

export type JsonRpcAnswer = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

/** The client `tasksClient` and `rpc` are by default: tasks belong to the client that started them, so both are one client program. */
const CLIENT_INFO = { name: 'tasks-client', version: '1' };

/**
 * One 2026-07-28 request over HTTP, framed as the extension says (the envelope's capabilities, Mcp-Name =
 * the task id for tasks/*, else the tool's name); with `tasks: false` the client does not declare the extension.
 * `clientInfo` names another client (a stateless client without X-Pincer-Client is its name and version).
 */
export async function rpc(
  hub: HubProcess,
  method: string,
  params: Record<string, unknown>,
  opts: { tasks?: boolean; elicitation?: boolean; id?: number; signal?: AbortSignal; clientInfo?: { name: string; version: string }; headers?: Record<string, string> } = {},
): Promise<JsonRpcAnswer> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientInfo': opts.clientInfo ?? CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': { ...(opts.elicitation ? { elicitation: { form: {} } } : {}), ...(opts.tasks === false ? {} : { extensions: { [TASKS]: {} } }) },
  };
  // A connection per request: a pooled one may lead to a hub the test has restarted on the same port since.
  const headers: Record<string, string> = { ...hub.headers(), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': VERSION, 'Mcp-Method': method, Connection: 'close', ...opts.headers };
  const name = typeof params.taskId === 'string' ? params.taskId : typeof params.name === 'string' ? params.name : undefined;
  if (name) headers['Mcp-Name'] = name;
  const body = { jsonrpc: '2.0', id: opts.id ?? 1, method, params: { ...params, _meta: { ...meta, ...(params._meta as Record<string, unknown> | undefined) } } };
  const r = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body), ...(opts.signal ? { signal: opts.signal } : {}) });
  const text = await r.text();
  return JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as JsonRpcAnswer;
}

/**
 * A client of the tasks extension as an application would build one: the MCP SDK's Client on 2026-07-28
 * declaring the extension, driven by the extension's own client library (@modelcontextprotocol/ext-tasks),
 * whose task requests go out over HTTP as raw JSON-RPC (the library frames them; ids are ours).
 */
export async function tasksClient(hub: HubProcess): Promise<{ client: Client; session: TaskEnabledSession; close(): Promise<void> }> {
  const clientCapabilities = { extensions: { [TASKS]: {} } };
  const clientInfo = CLIENT_INFO;
  const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: VERSION } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: hub.headers() } }));
  let ids = 0;
  const session = createTaskSessionFromClient(client, {
    // One endpoint across restarts (the next hub may listen on another port): task references stay valid.
    endpointId: 'pincer',
    v2RequestFraming: { protocolVersion: VERSION, clientInfo, clientCapabilities },
    rawDispatch: async (request, options) => {
      const req = request as { method: string; params?: Record<string, unknown> };
      const headers: Record<string, string> = { ...hub.headers(), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': VERSION, 'Mcp-Method': req.method, Connection: 'close' };
      const name = req.params?.taskId ?? req.params?.name;
      if (typeof name === 'string') headers['Mcp-Name'] = name;
      const r = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, ...req }), ...(options?.signal ? { signal: options.signal } : {}) });
      const text = await r.text();
      return JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as Awaited<ReturnType<NonNullable<Parameters<typeof createTaskSessionFromClient>[1]['rawDispatch']>>>;
    },
  });
  return {
    client,
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}
