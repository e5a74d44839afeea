import type { McpServer } from '@modelcontextprotocol/server';
import type { EventBus } from '../calls/event-bus.js';
import { ignoreFailure, logger } from '../core/log.js';

const log = logger('sessions');

export type TransportKind = 'streamable-http' | 'sse' | 'websocket' | 'bridge';

export interface SessionRecord {
  id: string;
  transport: TransportKind;
  server: McpServer;
  created: number;
  lastSeen: number;
  /** Open long-lived responses (SSE streams); a session with one is not idle. */
  streams: number;
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

  hasRoom(): boolean {
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

  touch(id: string): void {
    const s = this.sessions.get(id);
    if (s) s.lastSeen = Date.now();
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
    const stale = [...this.sessions.values()].filter((s) => s.streams === 0 && now - s.lastSeen > idle);
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
