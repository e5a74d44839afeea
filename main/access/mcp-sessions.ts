import type { McpServer } from '@modelcontextprotocol/server';
import type { EventBus } from '../calls/event-bus.js';
import { ignoreFailure, logger } from '../core/log.js';

const log = logger('sessions');

/** At MAX_SESSIONS, a session never used after it opened gives way to a new client once idle this long. */
const EVICT_UNUSED_AFTER_MS = 5_000;
/** …and any session without a stream, once idle this long. */
const EVICT_IDLE_AFTER_MS = 60_000;
/** A session never used after it opened is closed by the sweep after this long (SESSION_IDLE_S if shorter). */
const UNUSED_IDLE_MS = 5 * 60_000;

export type TransportKind = 'streamable-http' | 'sse' | 'websocket' | 'bridge';

export interface SessionRecord {
  id: string;
  transport: TransportKind;
  server: McpServer;
  created: number;
  lastSeen: number;
  /** Open long-lived responses (SSE streams); a session with one is not idle. */
  streams: number;
  /** Requests seen after the one that opened it: a session that never came back is the first to give way. */
  requests?: number;
  close(): Promise<void>;
}

export interface SessionSummary {
  id: string;
  transport: TransportKind;
  client?: string;
  created: number;
  lastSeen: number;
}

/** Every live MCP session of the hub, whatever its transport: for caps, idle expiry, health and the dashboard. */
export class SessionTable {
  private sessions = new Map<string, SessionRecord>();
  private sweeper?: NodeJS.Timeout;
  private streamCount = 0;

  constructor(private events: EventBus, private limits: { maxSessions: () => number; maxStreams: () => number; idleMs: () => number }) {}

  get size(): number {
    return this.sessions.size;
  }

  get streams(): number {
    return this.streamCount;
  }

  /**
   * Whether a new session fits under MAX_SESSIONS. At the cap, the session idle the longest gives way
   * (closed, as the idle sweep would close it): first one that never made a request after opening and has
   * been idle EVICT_UNUSED_AFTER_MS, else any idle EVICT_IDLE_AFTER_MS. A session with an open stream never
   * does. So sessions that opened and never came back cannot lock new clients out until SESSION_IDLE_S.
   */
  hasRoom(now = Date.now()): boolean {
    if (this.sessions.size < this.limits.maxSessions()) return true;
    let oldest: SessionRecord | undefined;
    for (const s of this.sessions.values()) {
      if (s.streams > 0) continue;
      const idle = now - s.lastSeen;
      const unused = !s.requests;
      if (idle < (unused ? EVICT_UNUSED_AFTER_MS : EVICT_IDLE_AFTER_MS)) continue;
      // The unused ones first, then the longest idle.
      if (!oldest || (unused && oldest.requests) || (Boolean(unused) === !oldest.requests && s.lastSeen < oldest.lastSeen)) oldest = s;
    }
    if (!oldest) return false;
    log.info(`MAX_SESSIONS reached: closing session ${oldest.id} (${oldest.transport}, idle ${Math.round((now - oldest.lastSeen) / 1000)} s${oldest.requests ? '' : ', never used after it opened'}) for a new client`);
    this.remove(oldest.id);
    void oldest.close().catch(ignoreFailure(log, `closing session ${oldest.id} to make room`));
    return this.sessions.size < this.limits.maxSessions();
  }

  hasStreamRoom(): boolean {
    return this.streamCount < this.limits.maxStreams();
  }

  /** Counts a long-lived connection until `done` is called. */
  openStream(sessionId?: string): () => void {
    this.streamCount++;
    const s = sessionId ? this.sessions.get(sessionId) : undefined;
    if (s) s.streams++;
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      this.streamCount--;
      if (s) {
        s.streams--;
        s.lastSeen = Date.now();
      }
    };
  }

  /** Registers a new session: now is both its start and its last activity. */
  open(s: { id: string; transport: TransportKind; server: McpServer; streams?: number; close(): Promise<void> }): void {
    this.add({ ...s, streams: s.streams ?? 0, created: Date.now(), lastSeen: Date.now() });
  }

  add(record: SessionRecord): void {
    this.sessions.set(record.id, record);
    this.events.publish({ type: 'session_opened', session: record.id, transport: record.transport, client: clientName(record), at: Date.now() });
  }

  get(id: string): SessionRecord | undefined {
    return this.sessions.get(id);
  }

  /**
   * Something arrived for the session. `request`: a JSON-RPC request (not only the notifications that
   * finish a handshake): the session is in use, so that one that never came back is known.
   */
  touch(id: string, request = true): void {
    const s = this.sessions.get(id);
    if (!s) return;
    s.lastSeen = Date.now();
    if (request) s.requests = (s.requests ?? 0) + 1;
  }

  remove(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    this.events.publish({ type: 'session_closed', session: id, transport: s.transport, client: clientName(s), at: Date.now() });
  }

  list(): SessionSummary[] {
    return [...this.sessions.values()].map((s) => ({ id: s.id, transport: s.transport, client: clientName(s), created: s.created, lastSeen: s.lastSeen }));
  }

  /** Closes sessions idle past the limit, so abandoned sessions never pile up. */
  startSweeping(everyMs = 15_000): void {
    this.sweeper = setInterval(() => void this.sweep(), everyMs);
    this.sweeper.unref();
  }

  async sweep(now = Date.now()): Promise<number> {
    const idle = this.limits.idleMs();
    // A session that opened and never made another request is abandoned much sooner than an idle one in use.
    const stale = [...this.sessions.values()].filter((s) => s.streams === 0 && now - s.lastSeen > (s.requests ? idle : Math.min(idle, UNUSED_IDLE_MS)));
    for (const s of stale) {
      log.info(`closing idle session ${s.id} (${s.transport})`);
      await s.close().catch(ignoreFailure(log, `closing idle session ${s.id}`));
      this.remove(s.id);
    }
    return stale.length;
  }

  stopSweeping(): void {
    clearInterval(this.sweeper);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.close().catch(ignoreFailure(log, `closing session ${s.id}`))));
    for (const id of [...this.sessions.keys()]) this.remove(id);
  }
}

function clientName(s: SessionRecord): string | undefined {
  const v = s.server.server.getClientVersion();
  return v ? `${v.name}${v.version ? ' ' + v.version : ''}` : undefined;
}
