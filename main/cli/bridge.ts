import type http from 'node:http';
import { ensureHub, hubHealthy, readToken } from './hub-client.js';
import { HubLink, type Incoming, type PostResult } from './bridge/hub-link.js';
import { frameLines, type Framed } from './bridge/line-framer.js';
import { envelopeHeaders, errorLine, negotiatedVersion, requestIds, routingOf, type RpcId } from './bridge/messages.js';
import { configureLogging, logger } from '../core/log.js';
import { pincerPaths } from '../core/paths.js';
import { errorMessage } from '../core/errors.js';
import { pidAlive } from '../core/pid.js';

const log = logger('bridge');

/** What a request in flight gets when the hub it went to closes before answering. */
export const RESTARTING = 'Pincer is restarting, send the request again';
/** JSON-RPC "server error" range: the hub could not be reached or started. */
const HUB_UNAVAILABLE = -32000;
const REPLAY_PREFIX = 'pincer-bridge-replay-';
/** A failed hub start is reported again without a new attempt for this long. */
const START_RETRY_MS = 2000;
/** How long answers to requests in flight may take to arrive once stdin has ended. */
const DRAIN_MS = 2000;

/** The client's 2025-era session: replayed on a new hub so the client notices nothing. */
interface Session {
  initRequestId?: RpcId;
  initParams: unknown;
  initialized: boolean;
  /** Mcp-Session-Id on the current hub; undefined until its initialize is answered. */
  id?: string;
  version?: string;
}

/**
 * `pincer stdio`: a relay, not a server. Frames the client's lines, POSTs each
 * one unchanged to the hub's /mcp and writes the hub's messages back as they
 * arrive, so both protocol generations, progress, cancellation, elicitation and
 * list_changed cross without the bridge understanding them. It carries the
 * client's identity and working folder on every request, and when the hub
 * goes away (shut down, killed, handed over) it finds or starts the next one and
 * replays the client's initialize there.
 */
class Bridge {
  private link?: HubLink;
  private linking?: Promise<HubLink>;
  private startFailure?: { error: Error; at: number };
  private session?: Session;
  private stream?: { close(): void };
  private readonly pending = new Set<RpcId>();
  private readonly identity: Record<string, string>;
  private token = '';
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
    void this.ensureLink().catch((err) => log.error(`could not start or reach the hub: ${errorMessage(err)}`));
  }

  private write(line: string): void {
    if (!this.closing) process.stdout.write(line + '\n');
  }

  private headers(value: unknown, method: string | undefined): http.OutgoingHttpHeaders {
    const base = { authorization: `Bearer ${this.token}`, ...this.identity };
    const envelope = envelopeHeaders(value);
    // 2026-07-28 requests carry their own envelope and belong to no session.
    if (envelope) return { ...base, ...envelope };
    if (method === 'initialize' || !this.session?.id) return base;
    return { ...base, 'mcp-session-id': this.session.id, ...(this.session.version ? { 'mcp-protocol-version': this.session.version } : {}) };
  }

  private fromClient(m: Framed): void {
    const r = routingOf(m.value);
    if (r.method === 'initialize' && r.isRequest) {
      this.stream?.close();
      this.stream = undefined;
      this.session = { initRequestId: r.id, initParams: (m.value as { params?: unknown }).params, initialized: false };
    } else if (r.method === 'notifications/initialized' && this.session) {
      this.session.initialized = true;
    } else if (r.method === 'notifications/cancelled') {
      // The client gave up on that request: it expects no answer, so none is made up if its stream ends empty.
      const id = (m.value as { params?: { requestId?: unknown } }).params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.pending.delete(id);
    }
    void this.forward(m, r.method);
  }

  private fromHub(m: Incoming): void {
    for (const one of Array.isArray(m.value) ? m.value : [m.value]) {
      const r = routingOf(one);
      if (!r.isResponse) continue;
      if (typeof r.id === 'string' && r.id.startsWith(REPLAY_PREFIX)) return;
      this.pending.delete(r.id!);
      if (this.session && r.id === this.session.initRequestId) this.session.version = negotiatedVersion(one) ?? this.session.version;
    }
    this.write(m.text);
  }

  private async forward(m: Framed, method: string | undefined): Promise<void> {
    const ids = requestIds(m.value);
    for (const id of ids) this.pending.add(id);
    const answer = (message: string, code = HUB_UNAVAILABLE) => {
      for (const id of ids) if (this.pending.delete(id)) this.write(errorLine(id, code, message));
    };
    // Sent again at most once for a new token and once on a new hub or session: the hub never acted on those.
    let tokenRefreshed = false;
    let relinked = false;
    for (;;) {
      let link: HubLink;
      try {
        link = await this.ensureLink();
      } catch (err) {
        return answer(`Pincer: ${errorMessage(err)}`);
      }
      const isInit = method === 'initialize';
      const result = await link.post(m.text, this.headers(m.value, method), (msg) => this.fromHub(msg), (status, sid) => {
        if (isInit && status < 300 && sid && this.session) this.session.id = sid;
      });
      if (result.kind === 'done' && result.status === 401 && !tokenRefreshed && readToken(this.home) !== this.token) {
        // The token was rotated (`pincer token rotate`): this bridge reads the same settings file.
        tokenRefreshed = true;
        this.token = readToken(this.home);
        continue;
      }
      const sessionGone = result.kind === 'done' && result.status === 404 && !isInit && this.session?.id !== undefined && !envelopeHeaders(m.value);
      if ((result.kind === 'unreachable' || sessionGone) && !relinked && !this.closing) {
        // The hub never acted on it: move to the next hub (or a fresh session) and send it once more.
        relinked = true;
        this.lose(link, result.kind === 'unreachable' ? result.reason : 'the hub no longer knows this session');
        continue;
      }
      return this.settle(link, method, result, answer);
    }
  }

  private settle(link: HubLink, method: string | undefined, result: PostResult, answer: (message: string, code?: number) => void): void {
    if (result.kind === 'unreachable') return answer(`Pincer: could not reach the hub (${result.reason}). Send the request again.`);
    // 499: the hub ended a 2026-07-28 request it was serving because it is shutting down.
    if (result.kind === 'done' && result.status === 499) result = { kind: 'cut', reason: 'the hub ended the request while shutting down' };
    if (result.kind === 'cut') {
      if (!pidAlive(link.pid) || this.link !== link) this.lose(link, result.reason);
      return answer(`${RESTARTING} (the hub went away: ${result.reason}).`);
    }
    if (result.status >= 300) return answer(httpFailure(result.status, result.body, pincerPaths(this.home).settingsFile), rpcCodeOf(result.body));
    if (method === 'notifications/initialized') this.listen(link);
    // A stream that ended without the answer: the hub closed it while shutting down.
    answer(`${RESTARTING} (the hub closed the request's stream).`);
  }

  private ensureLink(): Promise<HubLink> {
    if (this.link) return Promise.resolve(this.link);
    return (this.linking ??= this.connect().finally(() => (this.linking = undefined)));
  }

  private async connect(): Promise<HubLink> {
    const failed = this.startFailure;
    if (failed && Date.now() - failed.at < START_RETRY_MS) throw failed.error;
    let info;
    try {
      info = await ensureHub(this.home, { headers: this.identity });
    } catch (err) {
      this.startFailure = { error: err instanceof Error ? err : new Error(String(err)), at: Date.now() };
      throw err;
    }
    this.startFailure = undefined;
    this.token = readToken(this.home);
    const link = new HubLink(info.url, info.pid);
    if (this.session?.id !== undefined) await this.replay(link, this.session);
    this.link = link;
    log.info(`connected to the hub at ${info.url} (pid ${info.pid})`);
    return link;
  }

  /** Opens a new session on `link` with the client's own initialize, and its initialized notification. */
  private async replay(link: HubLink, session: Session): Promise<void> {
    session.id = undefined;
    const id = `${REPLAY_PREFIX}${++this.replays}`;
    const init = JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: session.initParams });
    let version: string | undefined;
    const result = await link.post(init, this.headers(undefined, 'initialize'), (m) => (version = negotiatedVersion(m.value) ?? version), (status, sid) => {
      if (status < 300) session.id = sid;
    });
    if (result.kind !== 'done' || result.status >= 300 || !session.id) throw new Error(`the new hub did not accept the session (${result.kind === 'done' ? `HTTP ${result.status}` : result.reason})`);
    session.version = version ?? session.version;
    if (!session.initialized) return;
    await link.post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), this.headers(undefined, undefined), () => undefined);
    this.listen(link);
  }

  /** The session's GET stream: notifications and requests from the hub between calls. Reopened while the hub lives. */
  private listen(link: HubLink, lastEventId?: string): void {
    if (!this.session?.id || this.stream || this.closing) return;
    const s = link.listen(this.headers(undefined, undefined), (m) => this.fromHub(m), lastEventId);
    this.stream = s;
    void s.done.then(async (end) => {
      if (this.stream !== s) return;
      this.stream = undefined;
      if (this.closing || this.link !== link) return;
      if (end.kind === 'refused') {
        // 405: the hub offers no stream. 404: it forgot the session (a new hub on the same port).
        if (end.status === 404) this.lose(link, 'the hub no longer knows this session');
        return;
      }
      const alive = pidAlive(link.pid) && (await hubHealthy(link, 1000, this.identity));
      if (this.link !== link) return;
      if (!alive) return this.lose(link, 'the hub closed');
      setTimeout(() => this.link === link && this.listen(link, end.kind === 'ended' ? end.lastEventId : undefined), 200).unref();
    });
  }

  /** The hub behind `link` is gone (or forgot the session): find or start the next one, replaying the session there. */
  private lose(link: HubLink, why: string): void {
    if (this.link !== link) return;
    log.warn(`lost the hub at ${link.url}: ${why}`);
    this.link = undefined;
    this.stream?.close();
    this.stream = undefined;
    if (pidAlive(link.pid)) link.retire();
    else link.close();
    if (!this.closing) void this.ensureLink().catch((err) => log.error(`reconnect failed: ${errorMessage(err)}`));
  }

  /** stdin ended: answers still on their way get a moment to arrive (a script may close its input right after its requests). */
  private async drainThenShutdown(): Promise<void> {
    const until = Date.now() + DRAIN_MS;
    while (this.pending.size > 0 && Date.now() < until && !this.closing) await new Promise((r) => setTimeout(r, 20));
    await this.shutdown('stdin closed');
  }

  private async shutdown(why: string): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    log.info(`bridge closing (${why})`);
    this.stream?.close();
    // Ends this client's session on the hub; the hub and its jobs keep running.
    if (this.link && this.session?.id) await this.link.terminate(this.headers(undefined, undefined));
    this.link?.close();
    process.exit(0);
  }
}

/** The JSON-RPC error code in a hub's error body, when it has one. */
function rpcCodeOf(body: string | undefined): number | undefined {
  const e = errorOf(body);
  return typeof e?.code === 'number' ? e.code : undefined;
}

function errorOf(body: string | undefined): { code?: unknown; message?: unknown } | undefined {
  try {
    const v = JSON.parse(body ?? '') as { error?: { code?: unknown; message?: unknown } };
    return typeof v.error === 'object' && v.error !== null ? v.error : undefined;
  } catch {
    return undefined;
  }
}

/** The client's view of an HTTP error from the hub: the hub's own message where it gave one. */
function httpFailure(status: number, body: string | undefined, settingsFile: string): string {
  if (status === 401) return `Pincer: the hub rejected this bridge's token (HTTP 401). AUTH_TOKEN in ${settingsFile} or in the environment must be the hub's; see "pincer token".`;
  const message = errorOf(body)?.message;
  if (typeof message === 'string') return message;
  return `Pincer: the hub answered HTTP ${status}${body ? `: ${body.slice(0, 300)}` : ''}`;
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

export async function runBridge(home: string): Promise<void> {
  configureLogging({ logsDir: pincerPaths(home).logsDir, fileName: 'bridge.log', stderr: true });
  new Bridge(home).start();
}
