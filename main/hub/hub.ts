import type { ConnectService } from '../core/client-connect.js';
import { useLoginEnvironment } from '../tools/shell/process.js';
import type http from 'node:http';
import { pincerPaths, ensureHome } from '../core/paths.js';
import { createRuntime, type Runtime } from '../calls/runtime.js';
import { createPincerServer } from '../mcp/server.js';
import { startPlugins } from '../plugins/index.js';
import type { ClientHandle } from '../mcp/client-identity.js';
import { taskListenSource } from '../mcp/tasks.js';
import { writeHubInfo, type HubInfo, type HubRole } from './lock.js';
// Handover and identity: claim.ts, handover.ts, identity.ts.
import { claimHub, HubAlreadyRunning, type Claim, type Takeover } from './claim.js';
import { HandoverGate, RESTARTING_MESSAGE, type HandoverTo } from './handover.js';
import { homeSecret, identityFor } from './identity.js';
import { joinBeside, listenAfter, SHARES_PORT, type TwinState } from './listen.js';
import { hubServer } from './http-server.js';
import { fileId, watchHome } from './home-watch.js';
import { generateToken, isLoopbackAddress, hostOriginProblem, tokenProblem, type GuardOptions, type Refusal } from '../access/security.js';
import { SessionTable } from '../access/sessions.js';
import { Dispatcher } from '../transports/dispatch.js';
import { LazyApp } from '../http/lazy-app.js';
import { streamableRoutes } from '../transports/streamable.js';
import { webSockets } from '../transports/websocket-endpoint.js';
import { PipeEndpoint } from '../transports/pipe-endpoint.js';
import { mcpFastPath } from '../transports/mcp-fast-path.js';
import { healthRoute } from '../http/health.js';
import { serviceWorkerGuard } from '../http/service-worker.js';
import { dashboardHost, originOf } from '../http/dashboard/origin.js';
import { VERSION } from '../core/version.js';
import { ignoreFailure, logger } from '../core/log.js';
import { SETTINGS } from '../core/settings/schema.js';
import type express from 'express';
import type { PageRenderer } from '../tools/web/browser.js';
import type { EngineTransport } from '../tools/search/service.js';
import type { ToolGroup } from '../tools/types.js';
import { DisposableStore } from '../core/disposables.js';
import { DashboardSessions } from '../http/dashboard/sessions.js';

const log = logger('hub');

export { HubAlreadyRunning };

export interface Hub {
  url: string;
  port: number;
  runtime: Runtime;
  sessions: SessionTable;
  /** Signed-in dashboards (the desktop window signs in through this too). */
  dashboardSessions: DashboardSessions;
  /** Where this hub serves its dashboard: an origin of this hub process's own (http/dashboard/origin.ts), or `url` without one. */
  dashboardUrl: string;
  warnings: string[];
  role: HubRole;
  /** Settles when this hub handed over to a newcomer and has closed. */
  handedOver: Promise<HandoverTo>;
  /** Settles with the pid of the `pincer stop` that asked this hub to stop, once it has drained and closed. */
  stopRequested: Promise<number>;
  /** Settles with the reason when this hub stopped because its data folder no longer leads to it (home-watch.ts). */
  lost: Promise<string>;
  /** The hub this one took over from, if it did. */
  tookOverFrom?: HubInfo;
  close(): Promise<void>;
}

export interface HubOptions {
  home: string;
  env?: NodeJS.ProcessEnv;
  /** Extra origins allowed to call the hub (the desktop window). */
  extraOrigins?: string[];
  extraRoutes?: (ctx: { runtime: Runtime; sessions: SessionTable }) => express.Router[];
  /** The desktop app renders ReadDocs pages in a hidden Electron window. */
  renderer?: PageRenderer;
  /** The desktop app sends WebSearch requests through Chromium's network stack. */
  searchTransport?: EngineTransport;
  /** `desktop` for the tray app; `headless` (default) for `pincer serve` and a bridge's hub. */
  role?: HubRole;
  /** Whether to ask a running hub to hand over (default `never`). */
  takeover?: Takeover;
  /** How long calls in flight may take to finish when this hub hands over (default 10 s). */
  handoverGraceMs?: number;
  /** Started by a client's bridge (`serve --if-none`): its environment is that client's, not the user's. */
  clientStarted?: boolean;
  /** The dashboard's Connect page: made by the hub's creator, which knows how clients start this Pincer (core/client-connect.ts). */
  connect?: ConnectService;
}

/** Starts the hub: one per data directory, listening on HTTP_HOST:HTTP_PORT. */
export async function startHub(opts: HubOptions): Promise<Hub> {
  const paths = pincerPaths(opts.home);
  ensureHome(paths);
  const role = opts.role ?? 'headless';
  // The HTTP server comes before the claim: a newcomer listens beside the hub it takes over (http-server.ts).
  let settingsRef: Runtime['settings'] | undefined;
  const httpServer = hubServer(() => settingsRef?.get('MAX_BODY_BYTES') ?? Number(SETTINGS.MAX_BODY_BYTES.default));
  const { server, twin } = httpServer;
  let joined: { host: string; port: number; twin: TwinState } | undefined;
  let claim: Claim;
  try {
    claim = await claimHub(paths, {
      role,
      takeover: opts.takeover ?? 'never',
      join: async (hub) => (joined = await joinBeside(server, twin, hub)) !== undefined,
    });
  } catch (err) {
    httpServer.abandon();
    throw err;
  }
  // The tray app's and a bridge's hub run commands with the login shell's environment, read once (login-env.ts).
  if (role === 'desktop' || opts.clientStarted) void useLoginEnvironment();
  // What the hub holds (the lock, the runtime, the handover gate): released last, newest first, on
  // close — and at once if the start fails part-way.
  const owned = new DisposableStore();
  owned.add(() => claim.lock.release());
  // Listeners on the runtime: released first on close, before sessions and streams are closed.
  const listeners = new DisposableStore();
  try {
    const rt = createRuntime({ home: opts.home, env: opts.env, renderer: opts.renderer, role: 'hub' });
    owned.add(() => rt.close());
    if (opts.searchTransport) rt.services.search.transport = opts.searchTransport;
    // The user's own plugins (PINCER_HOME/tools and /plugins), loaded before the hub answers its first client.
    await startPlugins(rt);
    const settings = rt.settings;
    settingsRef = settings;
    const warnings = [...rt.warnings];
    if (settings.get('AUTH_TOKEN') === '') settings.set('AUTH_TOKEN', generateToken());
    const host = settings.get('HTTP_HOST');
    checkListenAddress(host, settings.get('HTTP_ALLOW_REMOTE'), warnings);

    let port = 0;
    let hubUrl = '';
    let dashboardUrl = '';
    // Made now, used once the hub holds both loopback addresses of its port (listenOn).
    const dashHost = dashboardHost();
    let dashHostInUse: string | undefined;
    const guard: GuardOptions = { settings, port: () => port, extraOrigins: opts.extraOrigins, dashboardHost: () => dashHostInUse };
    const sessions = new SessionTable(rt.events, {
      maxSessions: () => settings.get('MAX_SESSIONS'),
      maxStreams: () => settings.get('MAX_STREAMS'),
      idleMs: () => settings.get('SESSION_IDLE_S') * 1000,
    });
    const newServer = (transport: string, group?: ToolGroup, era?: 'legacy' | 'modern', client?: ClientHandle) => createPincerServer(rt, { transport, group, era, client });
    const dispatcher = new Dispatcher((group, client) => newServer('jsonrpc', group, undefined, client));
    const startedAt = Date.now();
    const secret = homeSecret(paths, true)!;
    let handedOverTo: (to: HandoverTo) => void = () => undefined;
    const handedOver = new Promise<HandoverTo>((resolve) => (handedOverTo = resolve));
    let stoppedBy: (pid: number) => void = () => undefined;
    const stopRequested = new Promise<number>((resolve) => (stoppedBy = resolve));
    let lostFor: (reason: string) => void = () => undefined;
    const lost = new Promise<string>((resolve) => (lostFor = resolve));
    // Right after the lock (held on claim.lock.file): a folder deleted and made again later is not this hub's.
    const homeAtStart = fileId(paths.home);
    const gate = new HandoverGate({
      secret,
      role,
      events: rt.events,
      graceMs: opts.handoverGraceMs ?? 10_000,
      port: () => port,
      refuse: (req) => hostOriginProblem(req.headers, guard),
      onHandover: (to) => void handOver(to),
      onStop: (by) => void stopOnRequest(by),
    });
    owned.add(() => gate.close());
    const dashboardSessions = new DashboardSessions();
    owned.add(() => dashboardSessions.close());
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
    const app = new LazyApp(async () => {
      const [{ buildApp }, { hubApi }, { dashboardApi }] = await Promise.all([import('../http/app.js'), import('../http/api.js'), import('../http/dashboard/api.js')]);
      return buildApp({
        runtime: rt,
        sessions,
        dispatcher,
        guard,
        streamable,
        newServer: (era, transport, client) => newServer(transport, undefined, era, client),
        dashboardSessions,
        secret,
        dashboardUrl: () => dashboardUrl,
        dashboardRoutes: [hubApi(rt, sessions), dashboardApi(rt, sessions, dashboardSessions, () => hubUrl, opts.connect)],
        extraRoutes: opts.extraRoutes?.({ runtime: rt, sessions }) ?? [],
      });
    });

    const routes = serviceWorkerGuard(mcpFastPath({ guard, settings, handle: streamable.handle }, healthRoute({ guard, runtime: rt, sessions, startedAt, secret, identify: (challenge, address) => identityFor(secret, role, challenge, address, SHARES_PORT) }, app.handler)));
    // Both upgrades (the bridge's pipe, WebSocket) open a session with a stream: the same checks, then room for one more.
    const authorizeUpgrade = (req: http.IncomingMessage): Refusal | undefined => {
      const refused =
        gate.upgradeRefusal() ??
        hostOriginProblem(req.headers, guard) ??
        tokenProblem(req.headers, settings) ??
        (!sessions.hasRoom() || !sessions.hasStreamRoom() ? { refusal: 'UNAVAILABLE', message: 'Too many sessions: the hub is at MAX_SESSIONS or MAX_STREAMS. Close unused clients or raise the limit.' } : undefined);
      return refused;
    };
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

    listeners.add(rt.notifier.register(streamable.peer));
    listeners.add(rt.notifier.register(pipes.taskListens.peer));
    // A rotated token revokes everything opened with the old one: sessions on every
    // transport, WebSockets and event streams (each request also re-checks the token).
    const revokeConnections = async () => {
      log.info('the token changed: closing every session and stream opened with the old one');
      dashboardSessions.revokeAll();
      await app.closeEventStreams();
      wss.closeAll(4001, 'Pincer token rotated: reconnect with the new token');
      await app.closeLegacy();
      await sessions.closeAll();
    };
    listeners.listen(settings, 'change', (c: { changed: string[] }) => {
      if (c.changed.includes('AUTH_TOKEN')) void revokeConnections().catch((err: unknown) => log.warn(`revoking connections failed: ${(err as Error).message}`, { err }));
    });

    const listening = joined && joined.host === host ? joined : await listenAfter(httpServer, joined !== undefined, host, claim.port, settings.get('HTTP_PORT'), warnings);
    port = listening.port;
    const url = originOf(host, port);
    hubUrl = url;
    // The dashboard gets an origin of its own only where no other program can answer for it (origin.ts).
    dashHostInUse = listening.twin === 'held' || listening.twin === 'absent' ? dashHost : undefined;
    dashboardUrl = dashHostInUse ? originOf(dashHostInUse, port) : url;
    if (listening.twin === 'taken') {
      const warning = `Another program listens on the other loopback address of port ${port} (${host === '::1' ? '127.0.0.1' : '[::1]'}), where browsers look first for "localhost" names: the dashboard stays at ${url}, and a browser pointed at http://localhost:${port} reaches that program, not Pincer. Stop it, or set HTTP_PORT to a port free on both.`;
      log.warn(warning);
      warnings.push(warning);
    }
    writeHubInfo(paths, { url, port, pid: process.pid, started: new Date(startedAt).toISOString(), version: VERSION, role });
    // Requests and upgrades that reached this newcomer while it was not ready yet are served now.
    httpServer.ready(gate.handler(routes), (req, socket, head) => {
      if (!pipes.upgrade(req, socket, head)) wss.upgrade(req, socket, head);
    });
    sessions.startSweeping(Math.min(15_000, Math.max(250, (settings.get('SESSION_IDLE_S') * 1000) / 2)));
    log.info(`hub listening on ${url}`);
    // A folder already gone by now (no id) matches nothing: the first looks report it.
    listeners.add(
      watchHome(paths, { home: homeAtStart ?? { dev: -1n, ino: -1n }, lock: claim.lock.file }, {
        paused: () => gate.handingOver || closing !== undefined,
        onLost: (reason) => void stopWhenLost(reason),
      }),
    );

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        log.info('hub shutting down');
        // hub.json goes before the port: no one may find this address in it once another process can bind it.
        claim.lock.forgetHubFile();
        // So do the dashboards' trust: their streams end and no proof is given any more, so that no
        // tab sends its next request to whoever takes the port (renderer/src/session.ts).
        gate.refuseNew();
        await app.closeEventStreams();
        listeners.dispose();
        server.close();
        twin.close();
        wss.close();
        wss.closeAll(1001, 'hub shutting down');
        await app.closeLegacy();
        sessions.stopSweeping();
        // Task listens on bridges' pipes get their graceful close while the pipes are still open.
        pipes.taskListens.closeAll();
        await sessions.closeAll();
        await streamable.close().catch(ignoreFailure(log, 'closing the Streamable HTTP endpoint'));
        await dispatcher.close();
        // Give open requests a moment to finish, then cut what is left.
        await new Promise((r) => setTimeout(r, 200));
        server.closeAllConnections();
        owned.dispose();
      })());
    // Handover: no new calls, those in flight finish within the grace period, then the lock is let go.
    const handOver = async (to: HandoverTo) => {
      // The newcomer listens beside this hub already: it takes every new connection from now on, and
      // what reaches this hub on those already open is served (handover.ts serveToTheEnd).
      if (to.shared) {
        gate.serveToTheEnd();
        httpServer.stopAccepting();
      }
      let { unfinished } = await gate.drain();
      // Open connections are served until they close by themselves, and then what they started finishes.
      if (to.shared) {
        await httpServer.quiet(server.keepAliveTimeout + 500);
        ({ unfinished } = await gate.drain());
      }
      if (unfinished) log.warn(`handing over with ${unfinished} call(s) unfinished after the grace period; their clients are told to send them again`);
      rt.services.asker.keepPendingOnClose();
      await close();
      log.info(`handed over to pid ${to.pid}`);
      handedOverTo(to);
    };
    // `pincer stop` (a signed request, the same on every OS): drain as for a handover, then close; the process owner exits.
    const stopOnRequest = async (by: number) => {
      const { unfinished } = await gate.drain();
      if (unfinished) log.warn(`stopping with ${unfinished} call(s) unfinished after the grace period`);
      await close();
      log.info(`stopped at the request of pid ${by}`);
      stoppedBy(by);
    };
    // Nothing can find or stop this hub through its data folder any more: say why and stop, as `pincer stop` would.
    const stopWhenLost = async (reason: string) => {
      log.warn(`stopping: ${reason}, so no client or "pincer stop" can find this hub (pid ${process.pid}) any more; background jobs keep running`);
      const { unfinished } = await gate.drain();
      if (unfinished) log.warn(`stopping with ${unfinished} call(s) unfinished after the grace period`);
      await close();
      lostFor(reason);
    };
    return { url, port, runtime: rt, sessions, dashboardSessions, dashboardUrl, warnings, role, handedOver, stopRequested, lost, tookOverFrom: claim.handedOverBy, close };
  } catch (err) {
    httpServer.abandon();
    listeners.dispose();
    owned.dispose();
    throw err;
  }
}

/** A listen address other machines can reach needs HTTP_ALLOW_REMOTE, and earns a warning. */
function checkListenAddress(host: string, allowRemote: boolean, warnings: string[]): void {
  if (isLoopbackAddress(host)) return;
  if (!allowRemote) {
    throw new Error(`HTTP_HOST=${host} would expose Bash (remote code execution) to the network. Set HTTP_ALLOW_REMOTE=true as well if you really mean it, or use HTTP_HOST=127.0.0.1.`);
  }
  warnings.push(`WARNING: the hub listens on ${host}, reachable from other machines. Anyone with the token can run commands as you.`);
}
