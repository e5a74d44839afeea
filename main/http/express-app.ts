import { clientHandleFrom, type ClientHandle } from '../mcp/client-identity.js';
import express, { type Request, type Response, type NextFunction } from 'express';
import type { McpServer } from '@modelcontextprotocol/server';
import { hostAndOriginGuard, requireToken, type GuardOptions } from '../access/security.js';
import { sendError, sendRpcError } from '../access/respond.js';
import { RPC, RPC_REFUSALS, rpcErrorBody } from '../core/wire-errors.js';
import { jsonBodies, bodyOf } from './express-body.js';
import type { StreamableRoutes } from '../transports/streamable.js';
import { compatRouter } from './compat-routes.js';
import { eventsRoute } from './events-route.js';
import { LegacySseTransport } from '../transports/legacy-sse.js';
import type { SessionTable } from '../access/mcp-sessions.js';
import type { Dispatcher } from '../transports/dispatch.js';
import type { Runtime } from '../calls/runtime.js';
import { dashboardStatic } from './static.js';
import { DisposableStore } from '../core/disposables.js';
import { logger, ignoreFailure } from '../core/log.js';
import { oauthAbsentRoutes } from './oauth-absent.js';
import type { SignIns } from './dashboard/sign-ins.js';
import { signInRoutes } from './dashboard/sign-in-routes.js';
import { accessOf, tokenOrSignIn } from './dashboard/auth.js';

const log = logger('http');

export interface AppDeps {
  runtime: Runtime;
  sessions: SessionTable;
  dispatcher: Dispatcher;
  guard: GuardOptions;
  newServer: (era: 'legacy' | 'modern', transport: string, client?: ClientHandle) => McpServer;
  /** Signed-in dashboards: a sign-in's credential stands in for the token on the dashboard's routes only. */
  signIns: SignIns;
  /** This data folder's hub-secret: `pincer dashboard` signs its request for a sign-in link with it. */
  secret: Buffer;
  /** Where the dashboard lives: its own origin (http/dashboard/origin.ts), or the hub's URL without one. */
  dashboardUrl: () => string;
  /** What the dashboard reads and changes: behind the token or a dashboard sign-in. */
  dashboardRoutes?: express.Router[];
  /** Extra routers mounted behind the token only. */
  extraRoutes?: express.Router[];
  /** Streamable HTTP, which the hub serves on its /mcp fast path too. */
  streamable: StreamableRoutes;
}

/** What the hub keeps of its app: the handler, and what closes the streams only the app opens. */
export interface BuiltApp {
  app: express.Express;
  closeEventStreams(): void;
  closeLegacy(): Promise<unknown>;
}

export function buildApp(deps: AppDeps): BuiltApp {
  const { runtime, dispatcher, streamable } = deps;
  const settings = runtime.settings;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(hostAndOriginGuard(deps.guard));

  // GET /api/mcp/health, the one route without the token, is served before the app (health-route.ts).
  app.use(dashboardStatic({ url: deps.dashboardUrl }));
  app.use(signInRoutes({ settings, signIns: deps.signIns, secret: deps.secret, dashboardUrl: deps.dashboardUrl }));
  app.use(oauthAbsentRoutes());
  // The dashboard's routes take the token or a dashboard sign-in; everything after them the token only.
  app.use(tokenOrSignIn(settings, deps.signIns));
  app.use(jsonBodies(settings));
  const events = eventsRoute(runtime.events, deps.sessions);
  const legacy = legacySse(deps);
  app.all('/api/mcp/connect', connectRoute(deps, events.handler, legacy.open));
  for (const r of deps.dashboardRoutes ?? []) app.use(r);
  app.use(requireToken(settings));

  // Most /mcp requests never get here: hub.ts serves them on mcpFastPath with the same checks.
  app.all('/mcp', (req, res, next) => {
    streamable.handle(req, res, bodyOf(req)).catch(next);
  });
  app.get('/sse', legacy.open);
  app.post('/messages', legacy.post);
  app.use(compatRouter({ dispatcher, runtime }));
  for (const r of deps.extraRoutes ?? []) app.use(r);
  notFoundAndErrors(app, settings);
  return { app, closeEventStreams: events.closeAll, closeLegacy: legacy.closeAll };
}

/**
 * `/api/mcp/connect` is the hub's event feed and, for MCP clients configured with that URL (an older
 * Cursor config), an MCP endpoint; what the request carries decides (mcpOnConnectRoute). A dashboard
 * sign-in gets the feed only, and the feed ends with the sign-in.
 */
function connectRoute(deps: AppDeps, feed: express.RequestHandler, openLegacySse: (req: Request, res: Response) => void): express.RequestHandler {
  return (req, res, next) => {
    const access = accessOf(req);
    if (access?.kind === 'sign-in') {
      if (req.method !== 'GET') return next();
      res.on('close', deps.signIns.onEnd(access.signIn.sid, () => res.end()));
      return feed(req, res, next);
    }
    const mcp = mcpOnConnectRoute(req);
    if (mcp === 'streamable') return void deps.streamable.handle(req, res, bodyOf(req)).catch(next);
    if (mcp === 'sse') return openLegacySse(req, res);
    if (req.method !== 'GET') return next('route');
    feed(req, res, next);
  };
}

/** 2024-11-05 HTTP+SSE: GET /sse (or /api/mcp/connect) opens a session, POST /messages carries its requests. */
function legacySse(deps: AppDeps): { open: (req: Request, res: Response) => void; post: (req: Request, res: Response) => void; closeAll: () => Promise<unknown> } {
  const { sessions } = deps;
  const legacy = new Map<string, LegacySseTransport>();
  const open = (req: Request, res: Response): void => {
    if (!sessions.hasRoom() || !sessions.hasStreamRoom()) {
      sendRpcError(res, 'UNAVAILABLE', 'Too many sessions: the hub is at MAX_SESSIONS or MAX_STREAMS.');
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
        // The transport is closed already; the server's close only releases handlers and cannot leave anything open.
        await server.close().catch(ignoreFailure(log, "closing a legacy SSE session's server"));
      },
    });
    const lifetime = new DisposableStore(`legacy SSE session ${transport.sessionId}`, log);
    lifetime.add(sessions.openStream(transport.sessionId));
    lifetime.add(() => legacy.delete(transport.sessionId));
    lifetime.add(() => sessions.remove(transport.sessionId));
    // Released with the session; a failing close of a server whose transport is gone has nothing left to release.
    lifetime.add(() => void server.close().catch(ignoreFailure(log, "closing a legacy SSE session's server")));
    transport.onclose = () => lifetime.dispose();
    void server.connect(transport);
  };
  const post = (req: Request, res: Response): void => {
    const id = String(req.query.sessionId ?? '');
    const transport = legacy.get(id);
    if (!transport) {
      sendRpcError(res, 'SESSION_NOT_FOUND', `Session ${id || '(none)'} not found: open GET /sse first and POST to the endpoint it announces.`);
      return;
    }
    sessions.touch(id);
    transport.receive(bodyOf(req));
    res.status(202).json({ accepted: true });
  };
  return { open, post, closeAll: async () => Promise.all([...legacy.values()].map((t) => t.close())) };
}

/** The last handlers: a 404 that lists the entry points, and errors as JSON-RPC bodies (a 5xx logged with its stack). */
function notFoundAndErrors(app: express.Express, settings: Runtime['settings']): void {
  app.use((req, res) => {
    sendError(res, 'NOT_FOUND', `No route ${req.method} ${req.path}. GET /api/mcp/health, POST /mcp, GET /sse, POST /api/mcp/jsonrpc, GET /api/mcp/tools.`);
  });
  app.use((err: Error & { status?: number; type?: string }, req: Request, res: Response, _next: NextFunction) => {
    const status = err.status ?? 500;
    // A 4xx is the client's mistake and its answer says so; a 5xx is ours and is logged with its stack.
    if (status >= 500) log.error(`${req.method} ${req.path} failed`, { err });
    if (res.headersSent) {
      res.end();
      return;
    }
    const message = err.type === 'entity.too.large' ? `Request body is larger than MAX_BODY_BYTES (${settings.get('MAX_BODY_BYTES')}).` : status >= 500 ? `Internal error: ${err.message}` : err.message;
    // Express's own status (a body past the limit, one it could not read) with its JSON-RPC counterpart.
    res.status(status).json(rpcErrorBody(status === RPC_REFUSALS.BODY_TOO_LARGE.status ? RPC.InvalidRequest : RPC.InternalError, message));
  });
}

/**
 * Which MCP transport a request to `/api/mcp/connect` with the token is, or undefined for the event
 * feed. A POST (a Streamable HTTP client's first try) and anything with an `Mcp-Session-Id` is
 * Streamable HTTP. A GET that asks for `text/event-stream` is the 2024-11-05 HTTP+SSE transport (what
 * an MCP client configured with this URL falls back to) unless it says `?feed`; scripts (`curl`,
 * `fetch`, which accept anything) get the event feed. `?transport=sse` asks for MCP whatever the
 * headers say. A dashboard sign-in always gets the feed (buildApp).
 */
export function mcpOnConnectRoute(req: Request): 'streamable' | 'sse' | undefined {
  if (req.method === 'POST' || req.method === 'DELETE' || req.headers['mcp-session-id'] !== undefined) return 'streamable';
  if (req.method !== 'GET' || req.query.feed !== undefined) return undefined;
  if (req.query.transport === 'sse') return 'sse';
  const accept = req.headers.accept ?? '';
  return accept.includes('text/event-stream') ? 'sse' : undefined;
}
