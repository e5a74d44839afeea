import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type express from 'express';
import type { ConnectService } from '../core/client-connect.js';
import type { Runtime } from '../calls/runtime.js';
import { createPincerServer } from '../mcp/server.js';
import type { ClientHandle } from '../mcp/client-identity.js';
import { taskListenSource } from '../mcp/task-methods.js';
import type { ToolGroup } from '../tools/types.js';
import { hostOriginProblem, tokenProblem, type GuardOptions, type Refusal } from '../access/security.js';
import { SessionTable } from '../access/mcp-sessions.js';
import { Dispatcher } from '../transports/dispatch.js';
import { streamableRoutes, type StreamableRoutes } from '../transports/streamable.js';
import { webSockets, type WebSockets } from '../transports/websocket-endpoint.js';
import { PipeEndpoint } from '../transports/pipe-endpoint.js';
import { mcpFastPath } from '../transports/mcp-fast-path.js';
import { LazyApp } from '../http/lazy-app.js';
import { healthRoute } from '../http/health-route.js';
import { serviceWorkerGuard } from '../http/service-worker.js';
import { SignIns } from '../http/dashboard/sign-ins.js';
import { RESTARTING_MESSAGE, type HandoverGate } from './handover.js';
import { identityFor } from './identity.js';
import { SHARES_PORT } from './listen.js';
import type { HubRole } from './lock.js';

/** What the hub's endpoints are built from. */
export interface EndpointsContext {
  rt: Runtime;
  role: HubRole;
  secret: Buffer;
  startedAt: number;
  guard: GuardOptions;
  gate: HandoverGate;
  /** The hub's address and its dashboard's, known once it listens. */
  hubUrl: () => string;
  dashboardUrl: () => string;
  extraRoutes?: (ctx: { runtime: Runtime; sessions: SessionTable }) => express.Router[];
  connect?: ConnectService;
}

/** Every way into the hub, built and not yet served: what its drain closes. */
export interface Endpoints {
  sessions: SessionTable;
  signIns: SignIns;
  dispatcher: Dispatcher;
  streamable: StreamableRoutes;
  app: LazyApp;
  pipes: PipeEndpoint;
  wss: WebSockets;
  /** Requests: /mcp first, health, then the lazily built express app. */
  routes: http.RequestListener;
  /** Upgrades: the bridge's pipe, else WebSocket. */
  upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;
}

type NewServer = (transport: string, group?: ToolGroup, era?: 'legacy' | 'modern', client?: ClientHandle) => ReturnType<typeof createPincerServer>;

/** The HTTP routes, the bridge's pipe and WebSocket over the runtime, ready for the hub's server to serve. */
export function openEndpoints(ctx: EndpointsContext): Endpoints {
  const { rt, guard } = ctx;
  const settings = rt.settings;
  const sessions = new SessionTable(rt.events, {
    maxSessions: () => settings.get('MAX_SESSIONS'),
    maxStreams: () => settings.get('MAX_STREAMS'),
    idleMs: () => settings.get('SESSION_IDLE_S') * 1000,
  });
  const newServer: NewServer = (transport, group, era, client) => createPincerServer(rt, { transport, group, era, client });
  const dispatcher = new Dispatcher((group, client) => newServer('jsonrpc', group, undefined, client));
  const signIns = new SignIns();
  const streamable = streamableRoutes({
    sessions,
    newServer: (era, client) => newServer('streamable-http', undefined, era, client),
    streamAfterMs: () => settings.get('HTTP_STREAM_AFTER_MS'),
    toolInputSchema: (name) => {
      const tool = rt.registry.byName.get(name);
      return tool && rt.registry.schemas(tool).input;
    },
    tasks: taskListenSource(rt),
  });
  const app = lazyApp(ctx, { sessions, dispatcher, streamable, signIns, newServer });
  const health = healthRoute({ guard, runtime: rt, sessions, startedAt: ctx.startedAt, secret: ctx.secret, identify: (challenge, address) => identityFor(ctx.secret, ctx.role, challenge, address, SHARES_PORT) }, app.handler);
  const routes = serviceWorkerGuard(mcpFastPath({ guard, settings, handle: streamable.handle }, health));
  const { pipes, wss } = upgrades(ctx, sessions, newServer);
  const upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!pipes.upgrade(req, socket, head)) wss.upgrade(req, socket, head);
  };
  return { sessions, signIns, dispatcher, streamable, app, pipes, wss, routes, upgrade };
}

/** The express app (dashboard, REST, HTTP+SSE, plain JSON-RPC), loaded on the first request that needs it. */
function lazyApp(ctx: EndpointsContext, parts: Pick<Endpoints, 'sessions' | 'dispatcher' | 'streamable' | 'signIns'> & { newServer: NewServer }): LazyApp {
  const { rt } = ctx;
  const { sessions, signIns } = parts;
  return new LazyApp(async () => {
    const [{ buildApp }, { hubApi }, { dashboardApi }] = await Promise.all([import('../http/express-app.js'), import('../http/hub-api.js'), import('../http/dashboard/dashboard-api.js')]);
    return buildApp({
      runtime: rt,
      sessions,
      dispatcher: parts.dispatcher,
      guard: ctx.guard,
      streamable: parts.streamable,
      newServer: (era, transport, client) => parts.newServer(transport, undefined, era, client),
      signIns,
      secret: ctx.secret,
      dashboardUrl: ctx.dashboardUrl,
      dashboardRoutes: [hubApi(rt, sessions), dashboardApi(rt, sessions, signIns, ctx.hubUrl, ctx.connect)],
      extraRoutes: ctx.extraRoutes?.({ runtime: rt, sessions }) ?? [],
    });
  });
}

/** Both upgrades (the bridge's pipe, WebSocket) open a session with a stream: the same checks, then room for one more. */
function upgrades(ctx: EndpointsContext, sessions: SessionTable, newServer: NewServer): { pipes: PipeEndpoint; wss: WebSockets } {
  const { rt, gate, guard } = ctx;
  const settings = rt.settings;
  const authorizeUpgrade = (req: http.IncomingMessage): Refusal | undefined =>
    gate.upgradeRefusal() ??
    hostOriginProblem(req.headers, guard) ??
    tokenProblem(req.headers, settings) ??
    (!sessions.hasRoom() || !sessions.hasStreamRoom() ? { refusal: 'UNAVAILABLE', message: 'Too many sessions: the hub is at MAX_SESSIONS or MAX_STREAMS. Close unused clients or raise the limit.' } : undefined);
  const pipes = new PipeEndpoint({
    sessions,
    newServer: (client) => newServer('bridge', undefined, undefined, client),
    authorize: authorizeUpgrade,
    refusal: () => (gate.handingOver ? RESTARTING_MESSAGE : undefined),
    maxMessageBytes: () => settings.get('MAX_BODY_BYTES'),
    tasks: taskListenSource(rt),
  });
  const wss = webSockets({
    sessions,
    calls: rt.calls,
    newServer: (client) => newServer('websocket', undefined, 'legacy', client),
    authorize: authorizeUpgrade,
    maxPayload: () => settings.get('MAX_BODY_BYTES'),
  });
  return { pipes, wss };
}
