import type http from 'node:http';
import type { WebSocketServer, WebSocket } from 'ws';
import type { McpServer } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { logger, ignoreFailure } from '../core/log.js';
import { DisposableStore } from '../core/disposables.js';

const log = logger('websocket');
import { WebSocketServerTransport } from './websocket-transport.js';
import type { SessionTable } from '../access/mcp-sessions.js';
import type { ToolCalls } from '../calls/calls.js';
import { Caller } from '../calls/caller.js';
import { clientHandleFrom, type ClientHandle } from '../mcp/client-identity.js';
import { refuseUpgrade, type Refusal } from '../access/security.js';
import { errorBody } from '../core/wire-errors.js';

export interface WsDeps {
  sessions: SessionTable;
  calls: ToolCalls;
  newServer: (client: ClientHandle) => McpServer;
  /** The same Host/Origin/token checks as HTTP and room for one more session and stream; a refusal, or undefined. */
  authorize: (req: http.IncomingMessage) => Refusal | undefined;
  maxPayload: () => number;
}

/**
 * `/mcp/ws`: JSON-RPC over WebSocket (one session per connection), plus the
 * simple `{type: "list_tools"}` / `{type: "call_tool"}` messages of older platforms.
 */
export interface WebSockets {
  /** Serves an upgrade request the hub routed here (`/mcp/ws`; anything else is a 404). */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every open WebSocket with this close code and reason. */
  closeAll(code: number, reason: string): void;
  /** No more WebSockets: for the hub's shutdown. */
  close(): void;
}

export function webSockets(deps: WsDeps): WebSockets {
  // `ws` (with the https/tls client half it loads) is ~3.5 MB of RSS, and most hubs never see a
  // WebSocket: it is loaded by the first upgrade that passes the checks, not at start (bench/RESULTS.md, idle hub).
  let wss: WebSocketServer | undefined;
  let loading: Promise<WebSocketServer> | undefined;
  let closed = false;
  const serverFor = (): Promise<WebSocketServer> =>
    (loading ??= import('ws').then(({ WebSocketServer: Wss }) => (wss = new Wss({ noServer: true, maxPayload: deps.maxPayload() }))));
  const upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp/ws') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    const refused = deps.authorize(req);
    if (refused) {
      refuseUpgrade(socket, refused.refusal, refused.message);
      return;
    }
    const client = clientHandleFrom(req.headers);
    serverFor().then(
      (w) => {
        if (closed || socket.destroyed) {
          socket.destroy();
          return;
        }
        w.handleUpgrade(req, socket, head, (ws) => onConnection(ws, deps, client));
      },
      (err: unknown) => {
        log.warn(`WebSocket support failed to load: ${(err as Error).message}`, { err });
        if (!socket.destroyed) socket.end('HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\n\r\n');
      },
    );
  };
  return {
    upgrade,
    closeAll: (code, reason) => {
      for (const c of wss?.clients ?? []) c.close(code, reason);
    },
    close: () => {
      closed = true;
      wss?.close();
    },
  };
}

function onConnection(ws: WebSocket, deps: WsDeps, client: ClientHandle): void {
  const id = randomUUID();
  const server = deps.newServer(client);
  const transport = new WebSocketServerTransport(ws);
  // The simple messages of this connection are one client too.
  const simpleCaller = new Caller('websocket', client.id ? `client:${client.id}` : id);
  if (client.id) simpleCaller.hasCallbacks = true;
  const workdir = client.cwd ? () => client.cwd : undefined;
  // Everything this connection holds, released at once when it closes.
  const lifetime = new DisposableStore(`WebSocket session ${id}`, log);
  lifetime.add(deps.sessions.openStream());
  deps.sessions.open({
    id,
    transport: 'websocket',
    server,
    streams: 1,
    close: async () => {
      await transport.close();
      // The socket's transport is closed already; the server's close only releases handlers.
      await server.close().catch(ignoreFailure(log, "closing a WebSocket session's server"));
    },
  });
  lifetime.add(() => deps.sessions.remove(id));
  lifetime.add(() => void server.close().catch(ignoreFailure(log, "closing a WebSocket session's server"))); // released with the socket; its transport is gone
  lifetime.interval(() => ws.ping(), 30_000);
  ws.once('close', () => lifetime.dispose());
  void server.connect(transport);
  ws.on('message', (data, isBinary) => {
    deps.sessions.touch(id);
    const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Not JSON: the transport answers the parse error itself.
      transport.receive(text);
      return;
    }
    if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { type?: unknown }).type === 'string' && !('jsonrpc' in value)) {
      void simpleMessage(ws, value as SimpleMessage, deps, simpleCaller, workdir);
      return;
    }
    transport.receive({ parsed: value });
  });
}

type SimpleMessage = { type: string; requestId?: unknown; name?: unknown; arguments?: unknown };

async function simpleMessage(ws: WebSocket, msg: SimpleMessage, deps: WsDeps, caller: Caller, workdir?: () => string | undefined | Promise<string | undefined>): Promise<void> {
  const send = (v: object) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(v));
  };
  const refuse = (message: string) => send({ type: 'error', requestId: msg.requestId ?? null, error: errorBody('INVALID_INPUT', message).error });
  if (msg.type === 'list_tools') {
    send({ type: 'tools_list', tools: await deps.calls.listFor(undefined, workdir) });
  } else if (msg.type === 'call_tool') {
    if (typeof msg.name !== 'string') {
      refuse('call_tool needs "name" (the tool) and optional "arguments".');
      return;
    }
    const ac = new AbortController();
    const abort = () => ac.abort();
    ws.once('close', abort);
    try {
      const { result } = await deps.calls.call({ name: msg.name, arguments: msg.arguments ?? {}, caller, channel: { signal: ac.signal, workdir } });
      send({ type: 'tool_result', requestId: msg.requestId ?? null, result });
    } finally {
      ws.off('close', abort);
    }
  } else if (msg.type === 'ping') {
    send({ type: 'pong', timestamp: Date.now() });
  } else {
    refuse(`Unknown message type "${msg.type}". Use list_tools, call_tool or JSON-RPC 2.0.`);
  }
}
