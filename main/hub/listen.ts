import type net from 'node:net';
import { listenersOn, portHolder } from './ports.js';

/**
 * Whether this OS lets a second socket share a listening port with the hub's — only a socket of the
 * same user (Linux's SO_REUSEPORT checks the effective uid; Node's `reusePort`). A newcomer hub then
 * listens beside the one it takes over before that one lets go: no moment in a handover when another
 * user's program could bind the port (handover.ts). macOS's SO_REUSEPORT hands connections to any
 * user's socket that sets it, and Windows has no such option in Node: there the port is never shared.
 */
export const SHARES_PORT = process.platform === 'linux';

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
