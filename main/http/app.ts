import { clientHandleFrom, type ClientHandle } from '../mcp/client-identity.js';
import express, { type Request, type Response, type NextFunction } from 'express';
import type { McpServer } from '@modelcontextprotocol/server';
import { hostAndOriginGuard, requireToken, jsonRpcErrorBody, type GuardOptions } from './security.js';
import { jsonBodies, bodyOf } from './body.js';
import { streamableRoutes } from './streamable.js';
import { compatRouter } from './compat-routes.js';
import { eventsRoute } from './events-route.js';
import { LegacySseTransport } from '../mcp/legacy-sse.js';
import type { SessionTable } from './sessions.js';
import type { Dispatcher } from './dispatch.js';
import type { Runtime } from '../hub/runtime.js';
import { VERSION } from '../core/version.js';
import { dashboardStatic } from './static.js';
import { DisposableStore } from '../core/disposables.js';
import { oauthAbsentRoutes } from './oauth-absent.js';
import type { DashboardSessions } from './dashboard-sessions.js';

export interface AppDeps {
  runtime: Runtime;
  sessions: SessionTable;
  dispatcher: Dispatcher;
  guard: GuardOptions;
  newServer: (era: 'legacy' | 'modern', transport: string, client?: ClientHandle) => McpServer;
  startedAt: number;
  /** The hub's proof of identity for `?challenge=` (identity.ts): who answers, for `pincer stop`/`status` and a newcomer. */
  identify?: (challenge: unknown) => object | undefined;
  /** Signed-in dashboards: a session cookie plus its key header stands in for the token. */
  dashboardSessions: DashboardSessions;
  /** Extra routers mounted behind the token (the dashboard API). */
  extraRoutes?: express.Router[];
}

export function buildApp(deps: AppDeps) {
  const { runtime, sessions, dispatcher } = deps;
  const settings = runtime.settings;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(hostAndOriginGuard(deps.guard));

  // Health says nothing secret, so it is the one route without the token.
  app.get('/api/mcp/health', (req, res) => {
    res.json({
      success: true,
      status: 'healthy',
      name: 'pincer',
      version: VERSION,
      uptime: Math.round((Date.now() - deps.startedAt) / 1000),
      toolsCount: runtime.registry.visible().length,
      paused: runtime.registry.servingPaused(),
      sessions: sessions.size,
      ...deps.identify?.(req.query.challenge),
    });
  });

  app.use(dashboardStatic(settings, deps.dashboardSessions));
  app.use(oauthAbsentRoutes());
  app.use(requireToken(settings, deps.dashboardSessions));
  app.use(jsonBodies(settings));

  const streamable = streamableRoutes({ sessions, newServer: (era, client) => deps.newServer(era, 'streamable-http', client), streamAfterMs: () => settings.get('HTTP_STREAM_AFTER_MS') });
  // Most /mcp requests never get here: hub.ts serves them on mcpFastPath with the same checks.
  app.all('/mcp', (req, res, next) => {
    streamable.handle(req, res, bodyOf(req)).catch(next);
  });

  // 2024-11-05 HTTP+SSE.
  const legacy = new Map<string, LegacySseTransport>();
  app.get('/sse', (req, res) => {
    if (!sessions.hasRoom() || !sessions.hasStreamRoom()) {
      res.status(503).json(jsonRpcErrorBody(-32000, 'Too many sessions: the hub is at MAX_SESSIONS or MAX_STREAMS.'));
      return;
    }
    const server = deps.newServer('legacy', 'sse', clientHandleFrom(req.headers));
    const transport = new LegacySseTransport(res, '/messages');
    legacy.set(transport.sessionId, transport);
    sessions.open({
      id: transport.sessionId,
      transport: 'sse',
      server,
      close: async () => {
        await transport.close();
        await server.close().catch(() => undefined);
      },
    });
    const lifetime = new DisposableStore();
    lifetime.add(sessions.openStream(transport.sessionId));
    lifetime.add(() => legacy.delete(transport.sessionId));
    lifetime.add(() => sessions.remove(transport.sessionId));
    lifetime.add(() => void server.close().catch(() => undefined));
    transport.onclose = () => lifetime.dispose();
    void server.connect(transport);
  });
  app.post('/messages', (req, res) => {
    const id = String(req.query.sessionId ?? '');
    const transport = legacy.get(id);
    if (!transport) {
      res.status(404).json(jsonRpcErrorBody(-32001, `Session ${id || '(none)'} not found: open GET /sse first and POST to the endpoint it announces.`));
      return;
    }
    sessions.touch(id);
    transport.receive(bodyOf(req));
    res.status(202).json({ accepted: true });
  });

  const events = eventsRoute(runtime.events, sessions);
  // A dashboard's event stream ends when its session is revoked (sign-out, token rotation).
  app.get('/api/mcp/connect', (req, res, next) => {
    const session = deps.dashboardSessions.authenticated(req.headers);
    if (session) {
      const onRevoked = (which: string[] | 'all') => {
        if (which === 'all' || which.includes(session)) res.end();
      };
      deps.dashboardSessions.on('revoked', onRevoked);
      res.on('close', () => deps.dashboardSessions.off('revoked', onRevoked));
    }
    next();
  }, events.handler);
  app.use(compatRouter({ dispatcher, runtime }));
  for (const r of deps.extraRoutes ?? []) app.use(r);

  app.use((req, res) => {
    res.status(404).json({ success: false, error: { code: 'NOT_FOUND', message: `No route ${req.method} ${req.path}. GET /api/mcp/health, POST /mcp, GET /sse, POST /api/mcp/jsonrpc, GET /api/mcp/tools.` } });
  });
  app.use((err: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    const status = err.status ?? 500;
    if (res.headersSent) {
      res.end();
      return;
    }
    const message = err.type === 'entity.too.large' ? `Request body is larger than MAX_BODY_BYTES (${settings.get('MAX_BODY_BYTES')}).` : status >= 500 ? `Internal error: ${err.message}` : err.message;
    res.status(status).json(jsonRpcErrorBody(status === 413 ? -32600 : -32603, message));
  });

  return { app, streamable, closeEventStreams: events.closeAll, closeLegacy: async () => Promise.all([...legacy.values()].map((t) => t.close())) };
}
