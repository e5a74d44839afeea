import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type McpServer, type McpHttpHandler } from '@modelcontextprotocol/server';
import { classifyValue, replyCode, RpcCode } from '../mcp/stdio-transport.js';
import { SessionEventStore } from './event-store.js';
import type { SessionTable } from './sessions.js';
import { jsonRpcErrorBody } from './security.js';
import { bodyOf } from './body.js';
import { logger } from '../core/log.js';
import { clientHandleFrom, type ClientHandle } from '../mcp/client-identity.js';

const log = logger('mcp-http');

export interface StreamableDeps {
  sessions: SessionTable;
  newServer: (era: 'legacy' | 'modern', client: ClientHandle) => McpServer;
}

/**
 * `/mcp`: Streamable HTTP. 2025-era clients get stateful sessions
 * (Mcp-Session-Id, SSE, Last-Event-ID resumption); 2026-07-28 requests, which
 * carry their protocol envelope on every request, go to the SDK's stateless
 * per-request handler built from the same factory.
 */
export function streamableRoutes(deps: StreamableDeps) {
  const modern: McpHttpHandler = createMcpHandler((ctx) => deps.newServer('modern', clientHandleFrom(ctx.requestInfo?.headers)), { legacy: 'reject' });
  const modernNode = toNodeHandler(modern, { onerror: (e) => log.warn(`modern handler: ${e.message}`) });
  // The HTTP transport of each live session, by Mcp-Session-Id.
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();

  async function handle(req: Request, res: Response): Promise<void> {
    const sid = req.header('mcp-session-id');
    const parsed = req.method === 'POST' ? bodyOf(req) : { ok: true as const, value: undefined };
    if (!parsed.ok) {
      res.status(400).json(jsonRpcErrorBody(-32700, 'Parse error: the request body is not valid JSON'));
      return;
    }
    const body = parsed.value;
    // A body that is JSON but not JSON-RPC is an Invalid Request (-32600), not a parse error;
    // array params and a malformed initialize get -32601/-32602 before any session is touched.
    if (req.method === 'POST' && body !== undefined) {
      if (Array.isArray(body) && body.length === 0) {
        res.status(400).json(jsonRpcErrorBody(RpcCode.InvalidRequest, 'Invalid Request: empty batch'));
        return;
      }
      for (const m of Array.isArray(body) ? body : [body]) {
        const r = classifyValue(m);
        if ('message' in r) continue;
        if ('reply' in r) {
          res.status(replyCode(r.reply) === RpcCode.InvalidRequest ? 400 : 200).json(r.reply);
        } else res.status(400).json(jsonRpcErrorBody(RpcCode.InvalidRequest, `Invalid Request: ${r.ignore}`));
        return;
      }
    }

    if (sid) {
      const http = transports.get(sid);
      if (!http) {
        res.status(404).json(jsonRpcErrorBody(-32001, `Session ${sid} not found (it expired or the hub restarted). Start a new session with initialize.`));
        return;
      }
      deps.sessions.touch(sid);
      const done = req.method === 'GET' ? deps.sessions.openStream(sid) : undefined;
      if (done) res.on('close', done);
      await http.handleRequest(req, res, body);
      return;
    }

    const webReq = new globalThis.Request(`http://localhost${req.originalUrl}`, { method: req.method, headers: toHeaders(req) });
    if (!(await isLegacyRequest(webReq, body))) {
      await modernNode(req, res, body);
      return;
    }
    if (req.method !== 'POST') {
      // No session to stream from: 405 is what clients probing for a standalone GET stream expect.
      res.status(405).set('Allow', 'POST').json(jsonRpcErrorBody(-32000, `Method Not Allowed: ${req.method} /mcp needs an Mcp-Session-Id. Start a session by POSTing initialize.`));
      return;
    }
    if (!isInitialize(body)) {
      res.status(400).json(jsonRpcErrorBody(-32000, 'Bad Request: no Mcp-Session-Id header. Send initialize first and pass the Mcp-Session-Id it returns on every request.'));
      return;
    }
    if (!deps.sessions.hasRoom()) {
      res.status(503).json(jsonRpcErrorBody(-32000, 'Too many sessions: the hub is at MAX_SESSIONS. Close unused clients or raise MAX_SESSIONS.'));
      return;
    }
    const server = deps.newServer('legacy', clientHandleFrom(req.headers));
    const http = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new SessionEventStore(),
      onsessioninitialized: (id) => {
        transports.set(id, http);
        deps.sessions.open({
          id,
          transport: 'streamable-http',
          server,
          close: async () => {
            await http.close().catch(() => undefined);
            await server.close().catch(() => undefined);
          },
        });
      },
      onsessionclosed: (id) => {
        transports.delete(id);
        deps.sessions.remove(id);
      },
    });
    http.onclose = () => {
      if (!http.sessionId) return;
      transports.delete(http.sessionId);
      deps.sessions.remove(http.sessionId);
    };
    await server.connect(http);
    await http.handleRequest(req, res, body);
  }

  return {
    handle,
    close: () => modern.close(),
    /** 2026-07-28 clients hear of changes through their `subscriptions/listen` streams, which the SDK's handler owns. */
    peer: {
      toolsChanged: () => modern.notify.toolsChanged(),
      promptsChanged: () => modern.notify.promptsChanged(),
      resourceUpdated: (uri: string) => modern.notify.resourceUpdated(uri),
    },
  };
}

function isInitialize(body: unknown): boolean {
  const one = (m: unknown) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize';
  return Array.isArray(body) ? body.some(one) : one(body);
}

function toHeaders(req: Request): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    h.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  return h;
}
