import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type JSONRPCMessage, type McpServer, type McpHttpHandler } from '@modelcontextprotocol/server';
import { classifyValue, replyCode } from './stdio-transport.js';
import { RPC, RPC_REFUSALS } from '../core/wire-errors.js';
import { StreamableSessionTransport, isInitialize } from './streamable-session.js';
import { ModernHttp } from './modern-http.js';
import { TaskListens, requestIdentity, type TaskListenSource } from './task-listen.js';
import { paramHeaderProblem } from './param-headers.js';
import type { SessionTable } from '../access/mcp-sessions.js';
import type { ParsedBody } from '../access/body.js';
import { sendJson, sendRpcError } from '../access/respond.js';
import { clientHandleFrom, type ClientHandle } from '../mcp/client-identity.js';
import { isModernEnvelope } from '../mcp/protocol-era.js';
import { ignoreFailure, logger } from '../core/log.js';

const log = logger('mcp-http');

export type StreamableRoutes = ReturnType<typeof streamableRoutes>;

export interface StreamableDeps {
  sessions: SessionTable;
  newServer: (era: 'legacy' | 'modern', client: ClientHandle) => McpServer;
  /** HTTP_STREAM_AFTER_MS: how long a call's answer may stay plain JSON. */
  streamAfterMs: () => number;
  /** A tool's published inputSchema by name, for the SEP-2243 Mcp-Param-* check (param-headers.ts). */
  toolInputSchema: (name: string) => unknown;
  /** MCP tasks for `subscriptions/listen` with taskIds (task-listen.ts); without it such a listen is the SDK's. */
  tasks?: TaskListenSource;
}

/** One /mcp endpoint's state: the SDK's stateless handler for 2026-07-28, and the live 2025-era sessions. */
interface Endpoint {
  deps: StreamableDeps;
  modernHttp: ModernHttp;
  taskListens?: TaskListens;
  /** The HTTP transport of each live session, by Mcp-Session-Id. */
  transports: Map<string, StreamableSessionTransport>;
}

/**
 * `/mcp`: Streamable HTTP. 2025-era clients get stateful sessions
 * (Mcp-Session-Id, JSON or SSE answers, Last-Event-ID resumption) served by
 * StreamableSessionTransport; 2026-07-28 requests, which carry their protocol
 * envelope on every request, go to the SDK's stateless per-request handler
 * built from the same factory.
 */
export function streamableRoutes(deps: StreamableDeps) {
  const modern: McpHttpHandler = createMcpHandler((ctx) => deps.newServer('modern', clientHandleFrom(ctx.requestInfo?.headers)), { legacy: 'reject' });
  const taskListens = deps.tasks ? new TaskListens(deps.tasks) : undefined;
  const ep: Endpoint = { deps, modernHttp: new ModernHttp(modern), taskListens, transports: new Map() };
  return {
    /** Answers one /mcp request; the caller checked Host/Origin and the token and read the body once. */
    handle: (req: IncomingMessage, res: ServerResponse, parsed: ParsedBody): Promise<void> => handle(ep, req, res, parsed),
    close: () => {
      taskListens?.closeAll();
      return modern.close();
    },
    /** 2026-07-28 clients hear of changes through their `subscriptions/listen` streams, which the SDK's handler owns. */
    peer: {
      toolsChanged: () => {
        modern.notify.toolsChanged();
        taskListens?.peer.toolsChanged();
      },
      promptsChanged: () => {
        modern.notify.promptsChanged();
        taskListens?.peer.promptsChanged();
      },
      resourcesChanged: () => taskListens?.peer.resourcesChanged?.(),
      resourceUpdated: (uri: string) => {
        modern.notify.resourceUpdated(uri);
        taskListens?.peer.resourceUpdated(uri);
      },
    },
  };
}

/** One request: its messages checked, then its session's, a 2026-07-28 request's, or a new session's. */
async function handle(ep: Endpoint, req: IncomingMessage, res: ServerResponse, parsed: ParsedBody): Promise<void> {
  const sidHeader = req.headers['mcp-session-id'];
  const sid = Array.isArray(sidHeader) ? sidHeader[0] : sidHeader;
  if (!parsed.ok) return sendRpcError(res, 'PARSE_ERROR', 'Parse error: the request body is not valid JSON');
  const body = req.method === 'POST' ? parsed.value : undefined;
  const messages = req.method === 'POST' && body !== undefined ? messagesOf(res, body) : undefined;
  if (messages === 'answered') return;
  if (sid) return inSession(ep, req, res, sid, messages);
  const era = ep.modernHttp.classify(req, body);
  if (!era.legacy) return serveModern(ep, req, res, body, era);
  return openSession(ep, req, res, messages);
}

/**
 * A POST's JSON-RPC messages, or 'answered' when the request was refused here. A body that is JSON
 * but not JSON-RPC is an Invalid Request (-32600), not a parse error; array params and a malformed
 * initialize get -32601/-32602 before any session is touched.
 */
function messagesOf(res: ServerResponse, body: unknown): JSONRPCMessage[] | 'answered' {
  if (Array.isArray(body) && body.length === 0) {
    sendRpcError(res, 'INVALID_REQUEST', 'Invalid Request: empty batch');
    return 'answered';
  }
  const messages: JSONRPCMessage[] = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    // 2026-07-28 removed initialize: a request that says it speaks that version gets Method not found (SEP-2575), not a complaint about its params.
    if (isModernInitialize(m)) {
      sendRpcError(res, 'METHOD_NOT_FOUND', 'Method not found: initialize is not part of MCP 2026-07-28 (stateless); call server/discover instead.', { id: idOf(m) });
      return 'answered';
    }
    const r = classifyValue(m);
    if ('message' in r) {
      messages.push(r.message);
      continue;
    }
    // A malformed request is refused as such; a method's own answer (-32601/-32602) is in-band.
    if ('reply' in r) sendJson(res, replyCode(r.reply) === RPC.InvalidRequest ? RPC_REFUSALS.INVALID_REQUEST.status : 200, r.reply);
    else sendRpcError(res, 'INVALID_REQUEST', `Invalid Request: ${r.ignore}`);
    return 'answered';
  }
  return messages;
}

/** A request of a live 2025-era session: POST carries messages, GET opens its stream, DELETE ends it. */
function inSession(ep: Endpoint, req: IncomingMessage, res: ServerResponse, sid: string, messages: JSONRPCMessage[] | undefined): void | Promise<void> {
  const http = ep.transports.get(sid);
  if (!http) return sendRpcError(res, 'SESSION_NOT_FOUND', `Session ${sid} not found (it expired or the hub restarted). Start a new session with initialize.`);
  // Only requests count as use: a client that initialized, said initialized and left never used its session.
  ep.deps.sessions.touch(sid, req.method !== 'POST' || (messages ?? []).some((m) => 'method' in m && 'id' in m));
  if (req.method === 'POST') {
    if (!messages) return sendRpcError(res, 'PARSE_ERROR', 'Parse error: Invalid JSON');
    return http.post(req, res, messages);
  }
  if (req.method === 'GET') {
    const done = ep.deps.sessions.openStream(sid);
    res.on('close', done);
    return http.get(req, res);
  }
  if (req.method === 'DELETE') return http.delete(req, res);
  return sendRpcError(res, 'METHOD_NOT_ALLOWED', 'Method not allowed.', { headers: { Allow: 'GET, POST, DELETE' } });
}

/** A 2026-07-28 request: its Mcp-Param-* headers checked, then a task listen of ours or the SDK's stateless handler. */
function serveModern(ep: Endpoint, req: IncomingMessage, res: ServerResponse, body: unknown, era: Exclude<ReturnType<ModernHttp['classify']>, { legacy: true }>): void | Promise<void> {
  const mismatch = paramHeaderProblem(req.headers, req.rawHeaders, body, ep.deps.toolInputSchema);
  if (mismatch) {
    return sendRpcError(res, 'HEADER_MISMATCH', `Bad Request: the request headers and body disagree: ${mismatch.message}.`, { id: idOf(body), data: { header: mismatch.header } });
  }
  if (ep.taskListens && TaskListens.wants(body)) {
    res.once('close', () => era.abort.abort());
    return ep.taskListens.serve(res, body, era.abort.signal, requestIdentity(clientHandleFrom(req.headers), body));
  }
  return ep.modernHttp.serve(res, era.request, era.abort, body);
}

/** A 2025-era request without a session: only an initialize opens one, while there is room. */
async function openSession(ep: Endpoint, req: IncomingMessage, res: ServerResponse, messages: JSONRPCMessage[] | undefined): Promise<void> {
  const { deps, transports } = ep;
  if (req.method !== 'POST') {
    // No session to stream from: 405 is what clients probing for a standalone GET stream expect.
    return sendRpcError(res, 'METHOD_NOT_ALLOWED', `Method Not Allowed: ${req.method} /mcp needs an Mcp-Session-Id. Start a session by POSTing initialize.`, { headers: { Allow: 'POST' } });
  }
  if (!messages?.some(isInitialize)) {
    return sendRpcError(res, 'BAD_REQUEST', 'Bad Request: no Mcp-Session-Id header. Send initialize first and pass the Mcp-Session-Id it returns on every request.');
  }
  if (!deps.sessions.hasRoom()) {
    return sendRpcError(res, 'UNAVAILABLE', 'Too many sessions: the hub is at MAX_SESSIONS. Close unused clients or raise MAX_SESSIONS.');
  }
  const forget = (id: string): void => {
    if (!transports.delete(id)) return;
    deps.sessions.remove(id);
  };
  const server = deps.newServer('legacy', clientHandleFrom(req.headers));
  const id = randomUUID();
  const http = new StreamableSessionTransport({ sessionId: id, onClosedByClient: () => forget(id), streamAfterMs: deps.streamAfterMs });
  http.onclose = () => forget(id);
  await server.connect(http);
  http.post(req, res, messages);
  if (http.sessionId === undefined) {
    // Refused (Accept, Content-Type, a batch with initialize): nothing to keep.
    await server.close().catch(ignoreFailure(log, 'closing the server of a refused request'));
    return;
  }
  transports.set(id, http);
  deps.sessions.open({
    id,
    transport: 'streamable-http',
    server,
    close: async () => {
      // Closing both halves of a session that is going away: a half already closed rejects, which changes nothing.
      await http.close().catch(ignoreFailure(log, "closing a Streamable HTTP session's transport"));
      await server.close().catch(ignoreFailure(log, "closing a Streamable HTTP session's server"));
    },
  });
}

/** An `initialize` whose own envelope names a modern revision (protocol-era.ts). */
function isModernInitialize(m: unknown): boolean {
  return Boolean(m && typeof m === 'object' && 'method' in m && m.method === 'initialize' && 'params' in m && isModernEnvelope(m.params));
}

function idOf(m: unknown): string | number | null {
  const id: unknown = m && typeof m === 'object' && 'id' in m ? m.id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
