import { ensureHub, readToken } from './hub-client.js';
import { HubPipe, openPipe } from './bridge/hub-pipe.js';
import { isGoodbye, peekHubLine } from './bridge/hub-lines.js';
import { GOODBYE_HEADER } from '../core/pipe-protocol.js';
import { frameLines, type Framed } from './bridge/message-framer.js';
import { errorLine, isRetryElsewhere, refusalMessage, requestIds, routingOf, type RpcId } from './bridge/messages.js';
import { configureLogging, logger } from '../core/log.js';
import { pincerPaths } from '../core/paths.js';
import { discoverResult } from '../mcp/server-info.js';
import { errorMessage } from '../core/errors.js';
import { installLastResort } from '../core/last-resort.js';
import { RPC } from '../core/wire-errors.js';

const log = logger('bridge');

/** What a request in flight gets when the hub it went to closes before answering. */
export const RESTARTING = 'Pincer is restarting, send the request again';
const REPLAY_PREFIX = 'pincer-bridge-replay-';
/** A failed hub start is reported again without a new attempt for this long. */
const START_RETRY_MS = 2000;
/** How long answers to requests in flight may take to arrive once stdin has ended. */
const DRAIN_MS = 2000;
/** How long the bridge waits for a hub that is handing over (it refuses new connections meanwhile). */
const HANDOVER_WAIT_MS = 20_000;
/** Requests that act on nothing: sent again to the next hub rather than answered "restarting". */
const RESENDABLE = new Set(['initialize', 'subscriptions/listen']);

/** A client request the hub has not answered yet. */
interface Pending {
  line: string;
  method: string;
  /** The connection it was written to; undefined while it waits for one. */
  sentOn?: HubPipe;
}

/** The client's 2025-era handshake: replayed on the next hub so the client notices nothing. */
interface Session {
  initId: RpcId;
  initParams: string;
  answered: boolean;
  initialized: boolean;
  /** The params of the client's last logging/setLevel: the next hub sends log messages only after it. */
  logLevel?: string;
}

/**
 * `pincer stdio`: a relay, not a server. It opens one connection to the hub
 * (`/mcp/pipe`, newline-delimited JSON-RPC, served by the same code as
 * `pincer stdio --standalone`) and copies lines both ways: both protocol
 * generations, progress, cancellation, elicitation and list_changed cross
 * without the bridge understanding them. It reads the client's lines only for
 * their ids and the initialize handshake, and the hub's only for the ids they
 * answer (from the line's ends, see hub-lines.ts). When the hub goes away
 * (shut down, killed, handed over) it finds or starts the next one, replays
 * the client's initialize there and answers what the old hub left unanswered.
 */
class Bridge {
  private pipe?: HubPipe;
  private connecting?: Promise<void>;
  private startFailure?: { error: Error; at: number };
  private reported?: Error;
  private session?: Session;
  private readonly pending = new Map<RpcId, Pending>();
  /** Client lines waiting for a connection (none yet, or the hub is handing over), with the request ids they carry. */
  private held: { line: string; ids: RpcId[] }[] = [];
  /** The hub refused requests because it is handing over: new requests wait for the next one. */
  private draining = false;
  private readonly identity: Record<string, string>;
  private replays = 0;
  private closing = false;

  constructor(private readonly home: string) {
    this.identity = { 'x-pincer-client': clientId(), 'x-pincer-cwd': encodeURIComponent(process.cwd()) };
  }

  start(): void {
    frameLines(process.stdin, {
      message: (m) => this.fromClient(m),
      invalid: (reason, code) => this.write(errorLine(null, code, reason)),
      end: () => void this.drainThenShutdown(),
    });
    process.stdout.on('error', () => void this.shutdown('stdout closed'));
    process.on('SIGINT', () => void this.shutdown('SIGINT'));
    process.on('SIGTERM', () => void this.shutdown('SIGTERM'));
    // Find or start the hub right away so the client's first request does not wait for it.
    this.connect();
  }

  private write(line: string): void {
    if (!this.closing) process.stdout.write(line + '\n');
  }

  private fromClient(m: Framed): void {
    const v = m.value;
    const r = routingOf(v);
    // The AI SDK gives its 2026-07-28 probe 1 s, often less than reaching (or starting) the hub takes:
    // until the hub is connected, the bridge answers it from the same static description the hub uses.
    if (r.isRequest && r.method === 'server/discover' && !this.pipe?.open) return this.write(JSON.stringify({ jsonrpc: '2.0', id: r.id, result: discoverResult() }));
    const ids = requestIds(v);
    for (const id of ids) this.pending.set(id, { line: Array.isArray(v) ? '' : m.text, method: r.method ?? '' });
    if (r.isRequest && r.method === 'initialize') {
      this.session = { initId: r.id!, initParams: JSON.stringify((v as { params?: unknown }).params ?? {}), answered: false, initialized: false };
    } else if (r.method === 'notifications/initialized' && this.session) {
      this.session.initialized = true;
    } else if (r.isRequest && r.method === 'logging/setLevel' && this.session) {
      this.session.logLevel = JSON.stringify((v as { params?: unknown }).params ?? {});
    } else if (r.method === 'notifications/cancelled') {
      // The client gave up on that request: it expects no answer, so none is made up if the hub goes.
      const id = (v as { params?: { requestId?: unknown } }).params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.pending.delete(id);
    }
    // While the hub hands over, new requests wait for the next hub; everything else (answers to its
    // questions, cancellations) still reaches the calls finishing on this one.
    if (this.pipe?.open && !this.pipe.leaving && !(this.draining && ids.length > 0)) this.send(this.pipe, m.text, ids);
    else {
      this.held.push({ line: m.text, ids });
      this.connect();
    }
  }

  private send(pipe: HubPipe, line: string, ids: RpcId[]): void {
    const max = pipe.maxMessageBytes;
    // The hub would discard it unread and answer without an id; this way the request gets its answer.
    if (max !== undefined && line.length * 3 > max && Buffer.byteLength(line) > max) {
      for (const id of ids) {
        this.pending.delete(id);
        this.write(errorLine(id, RPC.InvalidRequest, `Invalid Request: a message of ${Buffer.byteLength(line)} bytes is larger than the hub accepts (MAX_BODY_BYTES = ${max}).`));
      }
      if (ids.length === 0) log.warn(`dropped a ${Buffer.byteLength(line)}-byte notification: larger than the hub's MAX_BODY_BYTES (${max})`);
      return;
    }
    for (const id of ids) {
      const p = this.pending.get(id);
      if (p) p.sentOn = pipe;
    }
    // The hub reads slower than the client writes: hold stdin until the socket drains.
    if (!pipe.write(line) && !process.stdin.isPaused()) {
      process.stdin.pause();
      // Whichever comes first resumes and takes the other listener with it: a pause must not leave one behind.
      const resume = () => {
        pipe.socket.off('drain', resume);
        pipe.socket.off('close', resume);
        process.stdin.resume();
      };
      pipe.socket.once('drain', resume);
      pipe.socket.once('close', resume);
    }
  }

  /** One line from the hub, before it is copied out: false keeps it from the client. */
  private fromHub(line: Buffer, pipe: HubPipe): boolean {
    if (isGoodbye(line)) {
      // The hub closes this pipe: what comes from the client now waits for the next hub.
      this.draining = true;
      pipe.leave();
      return false;
    }
    if (this.pending.size === 0) return true;
    const seen = peekHubLine(line);
    if (seen.kind === 'other') return true;
    if (seen.kind === 'batch') {
      for (const id of seen.ids) this.pending.delete(id);
      return true;
    }
    if (typeof seen.id === 'string' && seen.id.startsWith(REPLAY_PREFIX)) {
      if (seen.kind === 'error') log.warn(`the hub refused the replayed session: ${line.toString('utf8', 0, 300)}`);
      this.pending.delete(seen.id);
      return false;
    }
    const p = this.pending.get(seen.id);
    if (p && p.line !== '' && seen.kind === 'error' && isRetryElsewhere(seen.data)) {
      // The hub is handing over and never acted on it: it goes to the next hub.
      this.draining = true;
      p.sentOn = undefined;
      this.held.push({ line: p.line, ids: [seen.id] });
      return false;
    }
    this.pending.delete(seen.id);
    if (this.session && seen.id === this.session.initId) this.session.answered = true;
    return true;
  }

  /** Opens the pipe to the hub (starting one if none runs) unless it is open or opening. */
  private connect(): void {
    if (this.closing || this.pipe?.open || this.connecting) return;
    this.connecting = this.open()
      .catch((err: unknown) => this.unavailable(err instanceof Error ? err : new Error(String(err))))
      .finally(() => (this.connecting = undefined));
  }

  private async open(): Promise<void> {
    const failed = this.startFailure;
    if (failed && Date.now() - failed.at < START_RETRY_MS) throw failed.error;
    const until = Date.now() + HANDOVER_WAIT_MS;
    let tokenReread = false;
    let token = readToken(this.home);
    for (;;) {
      let info;
      try {
        info = await ensureHub(this.home);
      } catch (err) {
        this.startFailure = { error: err instanceof Error ? err : new Error(String(err)), at: Date.now() };
        throw err;
      }
      this.startFailure = undefined;
      const opened = await openPipe(info, { authorization: `Bearer ${token}`, ...this.identity, [GOODBYE_HEADER]: '1' });
      // The proven connection became the pipe, or failed: the agent has nothing left to hold.
      info.agent.destroy();
      if (opened.kind === 'open') {
        const events = { line: (l: Buffer) => this.fromHub(l, pipe), closed: (why: string) => this.lost(pipe, why) };
        const pipe: HubPipe = new HubPipe(opened.socket, opened.head, process.stdout, events, opened.maxMessageBytes);
        log.info(`connected to the hub at ${info.url} (pid ${info.pid})`);
        return this.attach(pipe);
      }
      if (opened.kind === 'refused' && opened.status === 401 && !tokenReread) {
        // The token was rotated (`pincer token rotate`): this bridge reads the same settings file.
        tokenReread = true;
        token = readToken(this.home);
        continue;
      }
      // 503 while handing over, or a hub that went away just now: the next one is on its way.
      const passing = opened.kind === 'unreachable' || (opened.status === 503 && /restarting/i.test(opened.body));
      if (passing && Date.now() < until && !this.closing) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      throw new Error(opened.kind === 'unreachable' ? `could not reach the hub at ${info.url} (${opened.reason})` : refusalMessage(opened.status, opened.body, pincerPaths(this.home).settingsFile));
    }
  }

  /** A new connection: the client's session is replayed on it first, then what waited is sent. */
  private attach(pipe: HubPipe): void {
    if (this.closing) return pipe.close();
    this.pipe = pipe;
    this.draining = false;
    const s = this.session;
    if (s?.answered) {
      const id = `${REPLAY_PREFIX}${++this.replays}`;
      this.pending.set(id, { line: '', method: 'initialize', sentOn: pipe });
      pipe.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"initialize","params":${s.initParams}}`);
      if (s.initialized) pipe.write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      if (s.initialized && s.logLevel) {
        const level = `${REPLAY_PREFIX}${++this.replays}`;
        this.pending.set(level, { line: '', method: 'logging/setLevel', sentOn: pipe });
        pipe.write(`{"jsonrpc":"2.0","id":${JSON.stringify(level)},"method":"logging/setLevel","params":${s.logLevel}}`);
      }
    }
    const held = this.held;
    this.held = [];
    for (const h of held) this.send(pipe, h.line, h.ids);
  }

  /** The connection ended: requests it left unanswered are sent again or answered, and the next hub is found. */
  private lost(pipe: HubPipe, why: string): void {
    if (this.pipe !== pipe) return;
    this.pipe = undefined;
    this.draining = false;
    // Routine (a handover, a restart): the bridge moves to the next hub; failing to is logged as an error.
    if (!this.closing) log.info(`lost the hub: ${why}`);
    for (const [id, p] of this.pending) {
      if (p.sentOn !== pipe) continue;
      if (typeof id === 'string' && id.startsWith(REPLAY_PREFIX)) {
        this.pending.delete(id);
      } else if (RESENDABLE.has(p.method) && p.line !== '') {
        p.sentOn = undefined;
        this.held.push({ line: p.line, ids: [id] });
      } else {
        this.pending.delete(id);
        this.write(errorLine(id, RPC.ServerError, `${RESTARTING} (the hub went away: ${why}).`));
      }
    }
    this.connect();
  }

  /** No hub could be reached or started: what waited for one is answered with the reason. */
  private unavailable(err: Error): void {
    // A failed start is reported again for a moment without a new attempt (START_RETRY_MS): logged once.
    if (err !== this.reported) log.error(`could not start or reach the hub: ${errorMessage(err)}`);
    this.reported = err;
    const held = this.held;
    this.held = [];
    for (const h of held) for (const id of h.ids) if (this.pending.delete(id)) this.write(errorLine(id, RPC.ServerError, `Pincer: ${errorMessage(err)}`));
  }

  /** stdin ended: answers still on their way get a moment to arrive (a script may close its input right after its requests). */
  private async drainThenShutdown(): Promise<void> {
    const until = Date.now() + DRAIN_MS;
    while (this.pending.size > 0 && Date.now() < until && !this.closing) await new Promise((r) => setTimeout(r, 20));
    this.shutdown('stdin closed');
  }

  private shutdown(why: string): void {
    if (this.closing) return;
    this.closing = true;
    log.info(`bridge closing (${why})`);
    // Ends this client's session on the hub; the hub and its jobs keep running.
    this.pipe?.close();
    process.exit(0);
  }
}

/**
 * This bridge's identity for the hub, fixed for the life of the process. It must
 * be unique, not secret (the token is the secret): V8's Math.random, seeded
 * from the OS at start, with the pid and the time, spares loading node:crypto
 * (~3 MB of RSS in every client's bridge).
 */
function clientId(): string {
  const r = () => Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0');
  return `${process.pid.toString(16)}-${Date.now().toString(16)}-${r()}${r()}${r()}`;
}

/**
 * V8 flags the bridge sets on itself at start (no re-exec: the client launched
 * `pincer`). A relay's own code is a few small functions; the work per message
 * is in builtins (JSON.parse of client lines, Buffer.indexOf, socket writes).
 * Without the optimising tiers it stays interpreted and baseline-compiled,
 * which costs nothing measurable per call (bench: cheap call through the
 * bridge) and keeps ~3 MB of optimised code and compiler memory out of every
 * client window's `pincer stdio` (target: bridge RSS after use ≤ 55 MB, bench/RESULTS.md).
 * PINCER_BRIDGE_FULL_JIT=1 keeps V8's defaults (to compare).
 */
const BRIDGE_V8_FLAGS = ['--no-opt', '--no-maglev'] as const;

export async function runBridge(home: string): Promise<void> {
  if (process.env.PINCER_BRIDGE_FULL_JIT !== '1') {
    const v8 = process.getBuiltinModule('node:v8');
    for (const flag of BRIDGE_V8_FLAGS) v8.setFlagsFromString(flag);
  }
  configureLogging({ logsDir: pincerPaths(home).logsDir, fileName: 'bridge.log', stderr: true, quietStderr: true });
  installLastResort(log, { keepServing: false });
  new Bridge(home).start();
}
