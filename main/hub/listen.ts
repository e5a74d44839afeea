import type net from 'node:net';
import { listenersOn, portHolder } from './ports.js';
import type { HubInfo } from './lock.js';
import type { HubServer } from './http-server.js';
import { SETTINGS } from '../core/settings/schema.js';
import { logger } from '../core/log.js';

const log = logger('hub');

/**
 * Whether this OS lets a second socket share a listening port with the hub's — only a socket of the
 * same user (Linux's SO_REUSEPORT checks the effective uid; Node's `reusePort`). A newcomer hub then
 * listens beside the one it takes over before that one lets go: no moment in a handover when another
 * user's program could bind the port (handover.ts). macOS's SO_REUSEPORT hands connections to any
 * user's socket that sets it, and Windows has no such option in Node: there the port is never shared.
 * `PINCER_SHARE_PORT=0` hands over that way on Linux too (tests and bench/ measure the two side by side).
 */
export const SHARES_PORT = process.platform === 'linux' && process.env.PINCER_SHARE_PORT !== '0';

/**
 * The other loopback address on the hub's port: `[::1]` beside `127.0.0.1` and the other way round.
 * Browsers try `::1` first for `localhost` names (the dashboard's origin, http/dashboard/origin.ts),
 * so a hub that left it free would let another user's program answer them there.
 * `held`: the hub listens on both; `absent`: the machine has no such address (no browser reaches it);
 * `taken`: another program holds it (the dashboard then stays on the hub's own address, with a warning);
 * `none`: the hub listens on an address that has no twin (not loopback, or every address).
 */
export type TwinState = 'held' | 'absent' | 'taken' | 'none';

export interface Listening {
  port: number;
  twin: TwinState;
}

function twinOf(address: string): string | undefined {
  if (address === '127.0.0.1') return '::1';
  if (address === '::1') return '127.0.0.1';
  return undefined;
}

/**
 * How a hub binds: `alone` where ports are never shared; `fresh` (a start on a port-sharing OS):
 * shareable by a later hub of the same user, but only once it is sure no one listens there yet — a
 * hub of another data folder of the same user would otherwise share the port unseen; `join`: beside
 * the hub it takes over (handover.ts).
 */
export type BindMode = 'alone' | 'fresh' | 'join';

function inUse(): NodeJS.ErrnoException {
  return Object.assign(new Error('address already in use'), { code: 'EADDRINUSE' });
}

async function listenOnce(server: net.Server, port: number, host: string, mode: BindMode): Promise<void> {
  if (mode === 'fresh') {
    // A bind that shares nothing fails if anyone listens there, even a socket that would share.
    const probe = process.getBuiltinModule('node:net').createServer();
    await bind(probe, port, host, false);
    await close(probe);
  }
  await bind(server, port, host, mode !== 'alone');
  const addr = server.address();
  // Someone of the same user bound it in the moment between: this hub is not alone, so it was not free.
  if (mode === 'fresh' && typeof addr === 'object' && addr && (listenersOn(addr.address, addr.port) ?? 1) > 1) {
    await close(server);
    throw inUse();
  }
}

function bind(server: net.Server, port: number, host: string, reusePort: boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host, ...(reusePort ? { reusePort: true } : {}) });
  });
}

function close(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

async function refusal(err: NodeJS.ErrnoException, host: string, port: number): Promise<Error> {
  if (err.code === 'EADDRINUSE') {
    const holder = await portHolder(port);
    return new Error(`port ${port} on ${host} is already in use${holder ? ` by ${holder}` : ''}. Stop that program, set HTTP_PORT to a free port, or set HTTP_PORT=auto in pincer-env.txt.`);
  }
  if (err.code === 'EADDRNOTAVAIL') return new Error(`cannot listen on ${host}: no such address on this machine. Check HTTP_HOST in pincer-env.txt.`);
  if (err.code === 'EACCES') return new Error(`not allowed to listen on ${host}:${port}. Pick a port above 1024 with HTTP_PORT.`);
  return err;
}

/**
 * Listens the hub on host:port — with `auto`, the first port from the default up where both the
 * address and its loopback twin are free — and the twin server on the same port. Where SHARES_PORT a
 * later hub of the same user can listen beside this one; `join` is that later hub (BindMode).
 */
export async function listenHub(server: net.Server, twin: net.Server, host: string, port: number | 'auto', defaultPort: number, opts: { join?: boolean } = {}): Promise<Listening> {
  const mode: BindMode = !SHARES_PORT ? 'alone' : opts.join ? 'join' : 'fresh';
  const first = port === 'auto' ? defaultPort : port;
  const last = port === 'auto' ? defaultPort + 100 : port;
  for (let p = first; p <= last; p++) {
    try {
      await listenOnce(server, p, host, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && p < last) continue;
      throw await refusal(err as NodeJS.ErrnoException, host, p);
    }
    const addr = server.address();
    const bound = typeof addr === 'object' && addr ? addr : undefined;
    const other = bound && twinOf(bound.address);
    if (!other || !bound) return { port: bound?.port ?? p, twin: 'none' };
    try {
      await listenOnce(twin, bound.port, other, mode);
      return { port: bound.port, twin: 'held' };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') return { port: bound.port, twin: 'absent' };
      if (code !== 'EADDRINUSE' || p === last) return { port: bound.port, twin: 'taken' };
      // Another program has the twin of this port: with `auto`, a port whose both addresses are free is better.
      await close(server);
    }
  }
  throw new Error('no free port found');
}

/** Where a newcomer listens beside the hub it takes over: that hub's address and port. */
export interface Joined extends Listening {
  host: string;
}

/**
 * Listens beside the hub about to hand over, on its address and port (BindMode `join`), so that the
 * port is never no one's; undefined where it cannot — an OS that shares no port, or a hub whose socket
 * does not share (`PINCER_SHARE_PORT=0`): that hub is then asked all the same and the port taken once it
 * let go of it.
 */
export async function joinBeside(server: net.Server, twin: net.Server, hub: HubInfo): Promise<Joined | undefined> {
  if (!SHARES_PORT) return undefined;
  const host = new URL(hub.url).hostname.replace(/^\[(.*)\]$/, '$1');
  try {
    return { host, ...(await listenHub(server, twin, host, hub.port, hub.port, { join: true })) };
  } catch (err) {
    log.info(`could not listen beside the hub at ${hub.url} (${(err as Error).message}); its port is taken once it lets go`);
    return undefined;
  }
}

/**
 * The hub's listeners when it did not join (or joined on another address than HTTP_HOST now says):
 * after a handover the port of the hub that handed over, so that clients' configured URLs stay right —
 * unless another program took it in the moment between; then the configured port, as any start.
 */
export async function listenAfter(http: HubServer, joined: boolean, host: string, claimed: number | undefined, configured: number | 'auto', warnings: string[]): Promise<Listening> {
  if (joined) http.stopAccepting();
  const defaultPort = Number(SETTINGS.HTTP_PORT.default);
  if (claimed === undefined) return listenHub(http.server, http.twin, host, configured, defaultPort);
  return listenHub(http.server, http.twin, host, claimed, defaultPort).catch(async (err: Error) => {
    const listening = await listenHub(http.server, http.twin, host, configured, defaultPort);
    // The first sentence names the holder; its advice is for a start, not for this.
    const taken = err.message.split('. ')[0];
    const why = configured === 'auto' ? `HTTP_PORT=auto: the first free port from ${defaultPort}` : `HTTP_PORT=${configured}`;
    const warning = `The hub that handed over listened on port ${claimed}, but ${taken} now; this hub listens on port ${listening.port} instead (${why}). Clients configured with port ${claimed} need the new address.`;
    log.warn(warning);
    warnings.push(warning);
    return listening;
  });
}
