import type { ConnectService } from '../core/client-connect.js';
import { useLoginEnvironment } from '../tools/shell/process.js';
import { pincerPaths, ensureHome, type PincerPaths } from '../core/paths.js';
import { createRuntime, type Runtime } from '../calls/runtime.js';
import { startPlugins } from '../plugins/index.js';
import { writeHubInfo, type HubInfo, type HubRole } from './lock.js';
import { claimHub, HubAlreadyRunning, type Claim, type Takeover } from './claim.js';
import { HandoverGate } from './handover.js';
import { homeSecret } from './identity.js';
import { joinBeside, listenAfter, type Listening, type TwinState } from './listen.js';
import { hubServer, type HubServer } from './http-server.js';
import { fileId, watchHome } from './home-watch.js';
import { generateToken, isLoopbackAddress, hostOriginProblem, type GuardOptions } from '../access/security.js';
import type { SessionTable } from '../access/mcp-sessions.js';
import { dashboardHost, originOf } from '../http/dashboard/origin.js';
import { VERSION } from '../core/version.js';
import { logger } from '../core/log.js';
import { SETTINGS } from '../core/settings/schema.js';
import type express from 'express';
import type { PageRenderer } from '../tools/web/browser.js';
import type { EngineTransport } from '../tools/search/search-service.js';
import { DisposableStore } from '../core/disposables.js';
import type { SignIns } from '../http/dashboard/sign-ins.js';
import { openEndpoints, type Endpoints } from './endpoints.js';
import { shutdownPath, type DrainStep, type ShutdownReason } from './lifecycle.js';

const log = logger('hub');

export { HubAlreadyRunning };
export type { ShutdownReason };

export interface Hub {
  url: string;
  port: number;
  runtime: Runtime;
  sessions: SessionTable;
  /** Signed-in dashboards (the desktop window signs in through this too). */
  signIns: SignIns;
  /** Where this hub serves its dashboard: an origin of this hub process's own (http/dashboard/origin.ts), or `url` without one. */
  dashboardUrl: string;
  warnings: string[];
  role: HubRole;
  /**
   * Settles once the hub has drained and closed, with why: handed over to a newcomer, stopped by
   * `pincer stop`, its data folder lost (home-watch.ts), or closed by its owner.
   */
  ended: Promise<ShutdownReason>;
  /** The hub this one took over from, if it did. */
  tookOverFrom?: HubInfo;
  /** The owner's close: the one shutdown path with `{ kind: 'closed', by }` (`by`: what asked, for the log). */
  close(by?: string): Promise<void>;
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
  const settingsRef: { current?: Runtime['settings'] } = {};
  const httpServer = hubServer(() => settingsRef.current?.get('MAX_BODY_BYTES') ?? Number(SETTINGS.MAX_BODY_BYTES.default));
  let joined: { host: string; port: number; twin: TwinState } | undefined;
  let claim: Claim;
  try {
    claim = await claimHub(paths, {
      role,
      takeover: opts.takeover ?? 'never',
      join: async (hub) => (joined = await joinBeside(httpServer.server, httpServer.twin, hub)) !== undefined,
    });
  } catch (err) {
    httpServer.abandon();
    throw err;
  }
  // The tray app's and a bridge's hub run commands with the login shell's environment, read once (login-env.ts).
  if (role === 'desktop' || opts.clientStarted) void useLoginEnvironment();
  // What the hub holds (the lock, the runtime, the handover gate): released last, newest first, on
  // close — and at once if the start fails part-way.
  const owned = new DisposableStore('the hub', log);
  owned.add(() => claim.lock.release(), 'the hub lock');
  // Listeners on the runtime: released first on close, before sessions and streams are closed.
  const listeners = new DisposableStore("the hub's runtime listeners", log);
  try {
    return await serve(opts, { paths, role, claim, joined, httpServer, settingsRef, owned, listeners });
  } catch (err) {
    httpServer.abandon();
    listeners.dispose();
    owned.dispose();
    throw err;
  }
}

interface Claimed {
  paths: PincerPaths;
  role: HubRole;
  claim: Claim;
  /** Where the newcomer already listens beside the hub it took over, if it does. */
  joined: { host: string; port: number; twin: TwinState } | undefined;
  httpServer: HubServer;
  settingsRef: { current?: Runtime['settings'] };
  owned: DisposableStore;
  listeners: DisposableStore;
}

/** The runtime with the user's plugins, the endpoints over it, listening; then its one way to end. */
async function serve(opts: HubOptions, c: Claimed): Promise<Hub> {
  const { paths, role, claim, httpServer, owned, listeners } = c;
  const rt = createRuntime({ home: opts.home, env: opts.env, renderer: opts.renderer, role: 'hub' });
  owned.add(() => rt.close(), 'the runtime');
  if (opts.searchTransport) rt.services.search.transport = opts.searchTransport;
  // The user's own plugins (PINCER_HOME/tools and /plugins), loaded before the hub answers its first client.
  await startPlugins(rt);
  const settings = rt.settings;
  c.settingsRef.current = settings;
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
  const startedAt = Date.now();
  const secret = homeSecret(paths, true)!;
  // Right after the lock (held on claim.lock.file): a folder deleted and made again later is not this hub's.
  const homeAtStart = fileId(paths.home);
  const gate = new HandoverGate({
    secret,
    role,
    events: rt.events,
    graceMs: opts.handoverGraceMs ?? 10_000,
    port: () => port,
    refuse: (req) => hostOriginProblem(req.headers, guard),
    onHandover: (to) => void end.shutdown({ kind: 'handover', to }),
    onStop: (by) => void end.shutdown({ kind: 'stop-request', by }),
  });
  owned.add(() => gate.close(), 'the handover gate');
  const ep = openEndpoints({ rt, role, secret, startedAt, guard, gate, hubUrl: () => hubUrl, dashboardUrl: () => dashboardUrl, extraRoutes: opts.extraRoutes, connect: opts.connect });
  owned.add(() => ep.signIns.close(), 'dashboard sessions');
  listenToRuntime(rt, ep, listeners);
  const end = shutdownPath({
    drainCalls: (reason) => drainCalls(gate, httpServer, reason),
    keepPendingQuestions: () => rt.services.asker.keepPendingOnClose(),
    steps: drainOrder(ep, { claim, gate, httpServer, listeners, owned }),
  });

  const listening = c.joined && c.joined.host === host ? c.joined : await listenAfter(httpServer, c.joined !== undefined, host, claim.port, settings.get('HTTP_PORT'), warnings);
  port = listening.port;
  const url = originOf(host, port);
  hubUrl = url;
  // The dashboard gets an origin of its own only where no other program can answer for it (origin.ts).
  dashHostInUse = listening.twin === 'held' || listening.twin === 'absent' ? dashHost : undefined;
  dashboardUrl = dashHostInUse ? originOf(dashHostInUse, port) : url;
  warnTwinTaken(listening, host, port, warnings);
  writeHubInfo(paths, { url, port, pid: process.pid, started: new Date(startedAt).toISOString(), version: VERSION, role });
  // Requests and upgrades that reached this newcomer while it was not ready yet are served now.
  httpServer.ready(gate.handler(ep.routes), ep.upgrade);
  ep.sessions.startSweeping(Math.min(15_000, Math.max(250, (settings.get('SESSION_IDLE_S') * 1000) / 2)));
  log.info(`hub listening on ${url}`);
  // A folder already gone by now (no id) matches nothing: the first looks report it.
  listeners.add(
    watchHome(paths, { home: homeAtStart ?? { dev: -1n, ino: -1n }, lock: claim.lock.file }, {
      paused: () => gate.handingOver || end.started(),
      onLost: (reason) => void end.shutdown({ kind: 'home-lost', reason }),
    }),
  );
  const close = (by?: string) => end.shutdown({ kind: 'closed', by });
  return { url, port, runtime: rt, sessions: ep.sessions, signIns: ep.signIns, dashboardUrl, warnings, role, ended: end.ended, tookOverFrom: claim.handedOverBy, close };
}

/** The other loopback address of the port is another program's: browsers that look there first for "localhost" reach it. */
function warnTwinTaken(listening: Pick<Listening, 'twin'>, host: string, port: number, warnings: string[]): void {
  if (listening.twin !== 'taken') return;
  const url = originOf(host, port);
  const warning = `Another program listens on the other loopback address of port ${port} (${host === '::1' ? '127.0.0.1' : '[::1]'}), where browsers look first for "localhost" names: the dashboard stays at ${url}, and a browser pointed at http://localhost:${port} reaches that program, not Pincer. Stop it, or set HTTP_PORT to a port free on both.`;
  log.warn(warning);
  warnings.push(warning);
}

/** What the hub listens to on its runtime: tool-list and task notifications, and a rotated token. */
function listenToRuntime(rt: Runtime, ep: Endpoints, listeners: DisposableStore): void {
  listeners.add(rt.notifier.register(ep.streamable.peer));
  listeners.add(rt.notifier.register(ep.pipes.taskListens.peer));
  // A rotated token revokes everything opened with the old one: sessions on every
  // transport, WebSockets and event streams (each request also re-checks the token).
  const revokeConnections = async () => {
    log.info('the token changed: closing every session and stream opened with the old one');
    ep.signIns.revokeAll();
    await ep.app.closeEventStreams();
    ep.wss.closeAll(4001, 'Pincer token rotated: reconnect with the new token');
    await ep.app.closeLegacy();
    await ep.sessions.closeAll();
  };
  listeners.listen(rt.settings, 'change', (c: { changed: string[] }) => {
    if (c.changed.includes('AUTH_TOKEN')) void revokeConnections().catch((err: unknown) => log.warn(`revoking connections failed: ${(err as Error).message}`, { err }));
  });
}

/**
 * Before the drain: no new calls, those in flight finish within the grace period. A newcomer that
 * listens beside this hub already takes every new connection; what reaches this hub on those already
 * open is served (handover.ts serveToTheEnd) until they close by themselves, and then what they started finishes.
 */
async function drainCalls(gate: HandoverGate, httpServer: HubServer, reason: ShutdownReason): Promise<{ unfinished: number }> {
  if (reason.kind !== 'handover' || !reason.to.shared) return gate.drain();
  gate.serveToTheEnd();
  httpServer.stopAccepting();
  await gate.drain();
  await httpServer.quiet(httpServer.server.keepAliveTimeout + 500);
  return gate.drain();
}

/** The drain, in order: first nothing new can find or trust the hub, then each way in closes, then what it holds goes. */
function drainOrder(ep: Endpoints, held: { claim: Claim; gate: HandoverGate; httpServer: HubServer; listeners: DisposableStore; owned: DisposableStore }): DrainStep[] {
  const { server, twin } = held.httpServer;
  return [
    // hub.json goes before the port: no one may find this address in it once another process can bind it.
    { name: 'forget hub.json', run: () => held.claim.lock.forgetHubFile() },
    // So do the dashboards' trust: their streams end and no proof is given any more, so that no
    // tab sends its next request to whoever takes the port (renderer/src/sign-in.ts).
    { name: 'refuse new proofs', run: () => held.gate.refuseNew() },
    { name: "close dashboards' event streams", run: () => ep.app.closeEventStreams() },
    { name: 'release runtime listeners', run: () => held.listeners.dispose() },
    {
      name: 'stop listening',
      run: () => {
        server.close();
        twin.close();
      },
    },
    {
      name: 'close WebSockets',
      run: () => {
        ep.wss.close();
        ep.wss.closeAll(1001, 'hub shutting down');
      },
    },
    { name: 'close HTTP+SSE sessions', run: () => ep.app.closeLegacy() },
    { name: 'stop sweeping idle sessions', run: () => ep.sessions.stopSweeping() },
    // Task listens on bridges' pipes get their graceful close while the pipes are still open.
    { name: "close bridges' task listens", run: () => ep.pipes.taskListens.closeAll() },
    { name: 'close MCP sessions', run: () => ep.sessions.closeAll() },
    { name: 'close the Streamable HTTP endpoint', run: () => ep.streamable.close() },
    { name: 'close the JSON-RPC dispatcher', run: () => ep.dispatcher.close() },
    // Give open requests a moment to finish, then cut what is left.
    { name: 'let open requests finish', run: () => new Promise<void>((r) => setTimeout(r, 200)) },
    { name: 'cut open connections', run: () => server.closeAllConnections() },
    { name: 'release the runtime, gate and lock', run: () => held.owned.dispose() },
  ];
}

/** A listen address other machines can reach needs HTTP_ALLOW_REMOTE, and earns a warning. */
function checkListenAddress(host: string, allowRemote: boolean, warnings: string[]): void {
  if (isLoopbackAddress(host)) return;
  if (!allowRemote) {
    throw new Error(`HTTP_HOST=${host} would expose Bash (remote code execution) to the network. Set HTTP_ALLOW_REMOTE=true as well if you really mean it, or use HTTP_HOST=127.0.0.1.`);
  }
  warnings.push(`WARNING: the hub listens on ${host}, reachable from other machines. Anyone with the token can run commands as you.`);
}
