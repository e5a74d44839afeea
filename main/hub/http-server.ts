import type http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { guardConnections } from '../access/connection-guard.js';
import { declaredTooLarge } from '../access/body.js';
import { RPC_REFUSALS, rpcErrorBody } from '../core/wire-errors.js';
import { logger } from '../core/log.js';
import { RESTARTING_MESSAGE } from './handover.js';

const log = logger('hub');

export type UpgradeListener = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Most requests and upgrades a hub that is not ready yet holds; beyond, they are told to send again. */
const MAX_HELD = 1024;
/** How long one waits for the hub to be ready before it is told to send again. */
const HELD_MS = 45_000;

/**
 * The hub's HTTP server and its twin on the other loopback address (listen.ts), made before the hub
 * is one: a newcomer listens beside the hub it takes over before asking it to hand over (claim.ts),
 * so what reaches the newcomer before it is ready waits here and is served once it is (`ready`) —
 * never refused, never lost in a gap.
 */
export interface HubServer {
  server: http.Server;
  twin: net.Server;
  /** The hub is ready: what waited is served now, in the order it came. */
  ready(handler: http.RequestListener, upgrade: UpgradeListener): void;
  /** The hub will not be (a takeover refused): what waited is told to send again, and both listeners close. */
  abandon(): void;
  /** Stops accepting connections on both listeners; those open are served on. */
  stopAccepting(): void;
  /**
   * Settles once no connection waits for a request of its client (a new one, or a keep-alive one
   * between two requests), or after `maxMs`: closing such a connection may cut the request its client
   * is sending that very moment. Each closes by itself: after its next answer (Connection: close while
   * handing over), or when its client or keepAliveTimeout gives up on it.
   */
  quiet(maxMs: number): Promise<void>;
}

function restarting(res: http.ServerResponse): void {
  if (res.headersSent) return void res.end();
  const { code, status } = RPC_REFUSALS.UNAVAILABLE;
  res.writeHead(status, { 'Content-Type': 'application/json', Connection: 'close' });
  res.end(JSON.stringify(rpcErrorBody(code, RESTARTING_MESSAGE)));
}

const netClose = process.getBuiltinModule('node:net').Server.prototype.close;

export function hubServer(maxBodyBytes: () => number): HubServer {
  let handle: http.RequestListener | undefined;
  let upgrade: UpgradeListener | undefined;
  const held: { run(): void; refuse(): void; timer: NodeJS.Timeout }[] = [];
  const hold = (run: () => void, refuse: () => void) => {
    if (held.length >= MAX_HELD) return refuse();
    const entry = {
      run,
      refuse,
      timer: setTimeout(() => {
        const i = held.indexOf(entry);
        if (i >= 0) held.splice(i, 1)[0]!.refuse();
      }, HELD_MS),
    };
    held.push(entry);
  };
  const server = createHttpServer((req, res) => (handle ? handle(req, res) : hold(() => handle!(req, res), () => restarting(res))), maxBodyBytes);
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const serve = () => {
      try {
        upgrade!(req, socket, head);
      } catch (err) {
        // A failing upgrade is that client's 400, never the hub's end.
        log.warn(`upgrade refused: ${(err as Error).message}`);
        if (!socket.destroyed) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      }
    };
    if (upgrade) serve();
    else hold(serve, () => socket.destroy());
  });
  // Connections that wait for their client's next request (quiet()).
  const waiting = new Set<Duplex>();
  server.on('connection', (socket: Duplex) => {
    waiting.add(socket);
    socket.once('close', () => waiting.delete(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    waiting.delete(req.socket);
    res.once('finish', () => {
      if (res.shouldKeepAlive && !req.socket.destroyed) waiting.add(req.socket);
    });
  });
  server.on('upgrade', (req: http.IncomingMessage) => waiting.delete(req.socket));
  const twin = process.getBuiltinModule('node:net').createServer((socket) => server.emit('connection', socket));
  twin.maxConnections = server.maxConnections;
  const release = (how: 'run' | 'refuse') => {
    for (const entry of held.splice(0)) {
      clearTimeout(entry.timer);
      entry[how]();
    }
  };
  return {
    server,
    twin,
    ready(h, u) {
      handle = h;
      upgrade = u;
      release('run');
    },
    abandon() {
      release('refuse');
      server.close();
      twin.close();
    },
    async quiet(maxMs) {
      const until = Date.now() + maxMs;
      while (waiting.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    },
    stopAccepting() {
      // net.Server's close, not http.Server's: that one also closes idle keep-alive connections, on
      // which a client may be sending its next request this very moment (a reset, a failed call). Kept,
      // they are served and closed after their answer (handover.ts serveToTheEnd). Connections still in
      // this listener's accept queue are reset by the kernel unless net.ipv4.tcp_migrate_req=1 moves them
      // to the newcomer's socket.
      netClose.call(server);
      twin.close();
    },
  };
}

/** The file-descriptor cap on the hub's sockets; PINCER_HTTP_MAX_CONNECTIONS lowers it (tests reach it with a few sockets). */
function maxConnections(): number {
  const n = Number(process.env.PINCER_HTTP_MAX_CONNECTIONS);
  return Number.isInteger(n) && n >= 16 ? n : 4096;
}

/** The hub's HTTP server, with the limits that keep slow, half-open or oversized clients from holding it. */
function createHttpServer(handler: http.RequestListener, maxBodyBytes: () => number): http.Server {
  // Not an ESM import of node:http: that reads every export, and its WebSocket getters load Node's
  // bundled undici (~16 MB of RSS) into a hub that may never need it (bench/RESULTS.md, idle hub).
  const server = process.getBuiltinModule('node:http').createServer({ maxHeaderSize: 16 * 1024 }, handler);
  // Slow or half-open clients must not hold the hub: bounded header and body time.
  server.headersTimeout = 15_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  // Sessions and streams have their own caps; this only bounds file descriptors. Sockets that
  // have not sent a whole request are capped separately so they cannot lock real clients out.
  server.maxConnections = maxConnections();
  guardConnections(server, 128); // after maxConnections: the guard keeps its own limit just below it
  // Refuse an oversized upload before inviting the client to send it.
  server.on('checkContinue', (req, res) => {
    const tooLarge = declaredTooLarge(req.headers, maxBodyBytes());
    if (tooLarge) {
      const { code, status } = RPC_REFUSALS.BODY_TOO_LARGE;
      res.writeHead(status, { 'Content-Type': 'application/json', Connection: 'close' });
      res.end(JSON.stringify(rpcErrorBody(code, tooLarge)));
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  return server;
}
