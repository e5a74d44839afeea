import crypto from 'node:crypto';
import type net from 'node:net';
import type { PincerPaths } from '../core/paths.js';
import { logger } from '../core/log.js';
import { LOCK_CONTENTION_MS, readHubFile, tryHubLock, type HubInfo, type HubLock, type HubRole } from './lock.js';
import { homeSecret, signHandover, verifyHub } from './identity.js';
import { HANDOVER_PATH } from './handover.js';

const log = logger('claim');

export type HubRunningCode = 'HUB_RUNNING' | 'TRAY_OWNS_HUB' | 'HUB_NOT_ANSWERING' | 'HANDOVER_FAILED';

/** Starting a hub was refused because this data directory already has one; `code` says why. */
export class HubAlreadyRunning extends Error {
  constructor(
    readonly code: HubRunningCode,
    readonly pid: number,
    readonly info: HubInfo | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a newcomer does about a running hub: `never` take over (a bridge's
 * background hub), take over a `headless` one (the tray app, plain `pincer
 * serve`), or take over `any`, the tray app's too (`pincer serve --takeover`).
 */
export type Takeover = 'never' | 'headless' | 'any';

export interface ClaimOptions {
  role: HubRole;
  takeover: Takeover;
  /** How long to wait for a starting hub to answer, and for a handing-over hub to let go. */
  timeoutMs?: number;
  /**
   * Listens beside the hub about to be taken over, on its port (listen.ts SHARES_PORT), before it is
   * asked: true when this newcomer now listens there. False (the OS or that hub's socket shares
   * nothing): the port is taken after that hub let go of it, as before. A claim that fails after
   * joining leaves the caller to stop listening (hub.ts).
   */
  join?: (hub: HubInfo) => Promise<boolean>;
}

export interface Claim {
  lock: HubLock;
  /** The port of the hub that handed over: the new hub listens there, so clients' URLs stay right. */
  port?: number;
  handedOverBy?: HubInfo;
  /** This newcomer listened on that port beside the hub before the handover (ClaimOptions.join). */
  joined?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The hub that holds the lock, once it answers with this home's identity (it may still be starting),
 * or the lock itself when whoever held it let go meanwhile (another starter that gave up, a probe,
 * a process that crashed before it served): then no hub is coming, and this starter is it.
 */
async function runningHub(paths: PincerPaths, deadline: number): Promise<{ hub: HubInfo & { shares: boolean } } | { lock: HubLock } | undefined> {
  for (;;) {
    const info = readHubFile(paths);
    if (info) {
      const v = await verifyHub(paths, info);
      if (v.ok) return { hub: { ...info, role: v.role, shares: v.shares } };
    }
    const lock = tryHubLock(paths);
    if (lock) return { lock };
    if (Date.now() > deadline) return undefined;
    await sleep(100);
  }
}

/** A connection to that hub, opened before this newcomer listens beside it: the only way to be sure a request reaches it, not this newcomer. */
function connectTo(hub: HubInfo): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const url = new URL(hub.url);
    const socket = process.getBuiltinModule('node:net').connect({ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) });
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/** POSTs the signed request, on `socket` when given (then it surely reaches that hub), else on a connection of its own. */
function post(url: string, body: unknown, socket: net.Socket | undefined): Promise<{ status: number; answer: { error?: { code?: string; message?: string } } }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = process.getBuiltinModule('node:http').request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), Connection: 'close' },
      ...(socket ? { createConnection: () => socket } : { agent: false }),
      timeout: 5000,
    });
    req.once('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.once('error', reject);
    req.once('response', (res) => {
      let data = '';
      res.on('data', (d: Buffer) => (data += d.toString()));
      res.once('end', () => {
        let answer: { error?: { code?: string; message?: string } } = {};
        try {
          answer = JSON.parse(data) as typeof answer;
        } catch {
          // Not JSON: the status says enough.
        }
        resolve({ status: res.statusCode ?? 0, answer });
      });
    });
    req.end(text);
  });
}

async function askToHandOver(paths: PincerPaths, hub: HubInfo, opts: ClaimOptions, shared: boolean, socket: net.Socket | undefined): Promise<void> {
  const secret = homeSecret(paths);
  if (!secret) throw new HubAlreadyRunning('HANDOVER_FAILED', hub.pid, hub, `cannot take over the hub at ${hub.url}: ${paths.home}/hub-secret is missing.`);
  const body = { ...signHandover(secret, { pid: process.pid, role: opts.role, force: opts.takeover === 'any', nonce: crypto.randomBytes(24).toString('base64url'), at: Date.now() }), ...(shared ? { shared } : {}) };
  let res: Awaited<ReturnType<typeof post>>;
  try {
    res = await post(`${hub.url}${HANDOVER_PATH}`, body, socket);
  } catch (err) {
    throw new HubAlreadyRunning('HANDOVER_FAILED', hub.pid, hub, `the hub at ${hub.url} (pid ${hub.pid}) did not answer the handover request (${(err as Error).message}).`);
  }
  if (res.status === 202) return;
  const code = res.answer.error?.code === 'TRAY_OWNS_HUB' ? 'TRAY_OWNS_HUB' : 'HANDOVER_FAILED';
  throw new HubAlreadyRunning(code, hub.pid, hub, `the hub at ${hub.url} (pid ${hub.pid}) refused to hand over: ${res.answer.error?.message ?? `HTTP ${res.status}`}`);
}

function refusal(hub: HubInfo, opts: ClaimOptions): HubAlreadyRunning {
  if (hub.role === 'desktop') {
    return new HubAlreadyRunning('TRAY_OWNS_HUB', hub.pid, hub, `the Pincer tray app runs the hub of this data folder at ${hub.url} (pid ${hub.pid}). Use it, quit the tray app first, or take over with "pincer serve --takeover".`);
  }
  const how = opts.role === 'headless' ? ' Use it, stop it ("pincer stop"), or take it over ("pincer serve").' : '';
  return new HubAlreadyRunning('HUB_RUNNING', hub.pid, hub, `a Pincer hub already runs for this data directory at ${hub.url} (pid ${hub.pid}).${how}`);
}

/**
 * Makes this process the hub of the data directory: takes the lock, or, when
 * a hub holds it and this newcomer has the better claim, asks that hub to
 * hand over and takes the lock as soon as it lets go.
 */
export async function claimHub(paths: PincerPaths, opts: ClaimOptions): Promise<Claim> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  let handedOverBy: HubInfo | undefined;
  let joined = false;
  for (let round = 0; round < 3; round++) {
    const lock = tryHubLock(paths, LOCK_CONTENTION_MS);
    if (lock) return { lock, port: handedOverBy?.port, handedOverBy, joined };
    // The lock is held by a live process of this home. Find out which hub it is.
    const found = await runningHub(paths, Date.now() + Math.min(timeoutMs, 10_000));
    if (found && 'lock' in found) return { lock: found.lock, port: handedOverBy?.port, handedOverBy, joined };
    const hub = found?.hub;
    if (!hub) {
      const recorded = readHubFile(paths);
      const lock2 = tryHubLock(paths, LOCK_CONTENTION_MS);
      if (lock2) return { lock: lock2, port: handedOverBy?.port, handedOverBy };
      throw new HubAlreadyRunning(
        'HUB_NOT_ANSWERING',
        recorded?.pid ?? -1,
        recorded,
        `another Pincer process holds ${paths.home}/hub.lock but no hub of this data folder answers${recorded ? ` at ${recorded.url}` : ''}. It may still be starting or be stuck: try again in a moment, or end it ("pincer status" shows what is known).`,
      );
    }
    const allowed = opts.takeover === 'any' || (opts.takeover === 'headless' && hub.role === 'headless');
    if (!allowed) throw refusal(hub, opts);
    // Beside it on its port first, so that no moment comes when the port is no one's. The request then
    // goes on a connection opened before: a new one could reach this newcomer instead.
    let socket: net.Socket | undefined;
    if (!joined && opts.join) {
      socket = await connectTo(hub);
      if (socket) joined = await opts.join(hub);
      if (!joined) socket?.destroy();
      // A hub that shares its port and still could not be joined keeps it: asked to hand over, it would leave the port to whoever is fastest.
      if (!joined && hub.shares) throw new HubAlreadyRunning('HANDOVER_FAILED', hub.pid, hub, `could not listen beside the hub at ${hub.url} (pid ${hub.pid}) on its port, so it was not asked to hand over and keeps serving. Try again; "pincer status" shows it.`);
    }
    log.info(`asking the ${hub.role} hub at ${hub.url} (pid ${hub.pid}) to hand over${joined ? ', listening beside it on its port' : ''}`);
    await askToHandOver(paths, hub, opts, joined, joined ? socket : undefined);
    handedOverBy = hub;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const taken = tryHubLock(paths);
      if (taken) return { lock: taken, port: hub.port, handedOverBy: hub, joined };
      // Someone else may have got in between (a bridge starting a hub): then ask again.
      const now = readHubFile(paths);
      if (now && now.pid !== hub.pid) break;
      await sleep(50);
    }
  }
  const last = readHubFile(paths);
  throw new HubAlreadyRunning('HANDOVER_FAILED', last?.pid ?? -1, last, `could not take over the hub of ${paths.home}: it did not let go within ${Math.round(timeoutMs / 1000)} s.`);
}
