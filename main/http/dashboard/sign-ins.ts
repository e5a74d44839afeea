import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import { CHALLENGE } from '../../core/hub-proof.js';

type Headers = Record<string, string | string[] | undefined>;

/** Where a tab asks the hub to prove itself; a hub that is closing answers it "restarting" (handover.ts). */
export const HELLO_PATH = '/api/dashboard/hello';
/** `<sid>.<credential>`: which session, and its credential for this hub process. */
export const SESSION_HEADER = 'x-pincer-session';
/** A random id per request, which the hub's answer MACs (ANSWER_HEADER): the tab believes only answers of its hub. */
export const REQUEST_HEADER = 'x-pincer-request';
export const ANSWER_HEADER = 'x-pincer-answer';

/**
 * `desktop`: the tray app's window, whose main process proved the hub and signs it in; it may read
 * the token and change the settings that choose programs, paths and addresses. `browser`: a tab,
 * which may not (ARCHITECTURE §5, dashboard sessions).
 */
export type SessionKind = 'browser' | 'desktop';

export interface DashboardSession {
  sid: string;
  kind: SessionKind;
  createdAt: number;
  lastUsedAt: number;
  /** HMAC(code secret, sid): the tab derives it from the secret it never sends; the hub keeps it in memory only. */
  key: Buffer;
  /** What the tab sends with each request: HMAC(key, this hub's epoch), worth nothing to any other hub process. */
  credential: string;
}

/** Most signed-in dashboards at once; the oldest is signed out beyond this. */
const MAX_SESSIONS = 64;
/** Most sign-in codes waiting to be used; the oldest goes beyond this. */
const MAX_CODES = 16;
/** A sign-in link is good for this long, once. */
export const CODE_TTL_MS = 120_000;
/** A session nobody used for this long has ended (README, Security model). */
export const SESSION_IDLE_MS = 2 * 3600_000;
/** No session outlives this, however busy. */
export const SESSION_LIFETIME_MS = 24 * 3600_000;
/** How often ended sessions and codes are swept, which closes the event streams they held open. */
const SWEEP_EVERY_MS = 10_000;

const b64 = (bytes: number) => crypto.randomBytes(bytes).toString('base64url');
const mac = (key: Buffer, parts: string[]) => crypto.createHmac('sha256', key).update(parts.join('\n')).digest('base64url');
const ID = /^[A-Za-z0-9_-]{22}$/;

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** What a tab learns from `GET /api/dashboard/hello`: whether this hub knows its session and, if so, the proof. */
export interface Hello {
  known: boolean;
  /** The address the connection reached, as the hub sees it: the tab compares it with its own. */
  at: string;
  epoch: string;
  /** HMAC(key, challenge, at, epoch): only the hub that made the session can answer it. */
  proof?: string;
}

/**
 * Signed-in dashboards, held in this hub's memory only: a session ends with the hub process that
 * made it (a stop, a crash, a handover), on sign-out, on a token change, after SESSION_IDLE_MS
 * unused and SESSION_LIFETIME_MS after sign-in.
 *
 * Signing in: a one-time sign-in code `<id>.<secret>` (from `pincer dashboard`, the tray, or a
 * holder of the token) reaches the tab in its address's fragment or over the window's IPC; the
 * tab sends only the id, gets a session id, and derives the session key from the secret itself,
 * so the key never crosses the wire. Before it sends anything else — after a reload, a lost
 * connection, a restart — the tab asks the hub to prove it holds that key for the address the tab
 * connected to (`hello`), and then sends a credential bound to this hub process (its epoch). What a
 * program holding the port while the hub is away catches is worth nothing: it cannot prove the
 * key, and no other hub process knows the session or the epoch.
 */
export class DashboardSessions extends EventEmitter<{ revoked: [sids: string[] | 'all'] }> {
  /** This hub process, in every credential: a credential caught anywhere is worth nothing to another hub. */
  readonly epoch = b64(16);
  private sessions = new Map<string, DashboardSession>();
  private codes = new Map<string, { secret: Buffer; kind: SessionKind; expires: number }>();
  private sweeper: NodeJS.Timeout;

  constructor(private now: () => number = Date.now) {
    super();
    this.setMaxListeners(0);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  /** A one-time sign-in code: the id is sent to redeem it, the secret stays in the tab. */
  createCode(kind: SessionKind): string {
    const id = b64(16);
    const secret = crypto.randomBytes(32);
    this.codes.set(id, { secret, kind, expires: this.now() + CODE_TTL_MS });
    for (const old of this.codes.keys()) {
      if (this.codes.size <= MAX_CODES) break;
      this.codes.delete(old);
    }
    return `${id}.${secret.toString('base64url')}`;
  }

  /** Trades a code's id for a new session, once; undefined for a code this hub never made, used or expired. */
  redeem(id: string): { sid: string; kind: SessionKind } | undefined {
    const code = ID.test(id) ? this.codes.get(id) : undefined;
    if (!code) return undefined;
    this.codes.delete(id);
    if (code.expires <= this.now()) return undefined;
    const sid = b64(16);
    const key = crypto.createHmac('sha256', code.secret).update(['pincer-dashboard-key', sid].join('\n')).digest();
    const now = this.now();
    this.sessions.set(sid, { sid, kind: code.kind, createdAt: now, lastUsedAt: now, key, credential: mac(key, ['pincer-dashboard-request', this.epoch]) });
    for (const [old] of this.sessions) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      this.revoke(old);
    }
    return { sid, kind: code.kind };
  }

  /** The hub's answer to a tab's challenge on a connection that reached `at` (hub-proof.ts connectionAddress). */
  hello(sid: string, challenge: string, at: string): Hello | undefined {
    if (!CHALLENGE.test(challenge)) return undefined;
    const session = this.live(sid);
    return session ? { known: true, at, epoch: this.epoch, proof: mac(session.key, ['pincer-dashboard-hub', challenge, at, this.epoch]) } : { known: false, at, epoch: this.epoch };
  }

  /** The session a request proves with its SESSION_HEADER, or undefined. */
  authenticate(headers: Headers): DashboardSession | undefined {
    const value = first(headers[SESSION_HEADER]);
    const dot = value?.indexOf('.') ?? -1;
    if (!value || dot < 0 || value.length > 200) return undefined;
    const session = this.live(value.slice(0, dot));
    if (!session || !sameText(value.slice(dot + 1), session.credential)) return undefined;
    session.lastUsedAt = this.now();
    return session;
  }

  /** The MAC a session's answer carries for the request id it sent (ANSWER_HEADER). */
  answer(session: DashboardSession, requestId: string): string | undefined {
    return /^[A-Za-z0-9_-]{16,64}$/.test(requestId) ? mac(session.key, ['pincer-dashboard-answer', this.epoch, requestId]) : undefined;
  }

  /** A session still within its limits (one past them is ended here). */
  private live(sid: string): DashboardSession | undefined {
    const session = this.sessions.get(sid);
    if (!session) return undefined;
    const now = this.now();
    if (now - session.createdAt >= SESSION_LIFETIME_MS || now - session.lastUsedAt >= SESSION_IDLE_MS) {
      this.revoke(sid);
      return undefined;
    }
    return session;
  }

  /** Ends the sessions past their time (closing what they hold open) and forgets expired codes. */
  sweep(): void {
    const now = this.now();
    for (const [id, code] of this.codes) if (code.expires <= now) this.codes.delete(id);
    for (const sid of [...this.sessions.keys()]) this.live(sid);
  }

  /** Signs one dashboard out; true when it was signed in. */
  revoke(sid: string): boolean {
    if (!this.sessions.delete(sid)) return false;
    this.emit('revoked', [sid]);
    return true;
  }

  /** Signs every dashboard out and voids every sign-in code: a token change does this. */
  revokeAll(): void {
    this.sessions.clear();
    this.codes.clear();
    this.emit('revoked', 'all');
  }

  /** Calls `onEnd` once when this session ends (sign-out, a limit, a token change). */
  onEnd(sid: string, onEnd: () => void): () => void {
    const listener = (which: string[] | 'all') => {
      if (which === 'all' || which.includes(sid)) {
        this.off('revoked', listener);
        onEnd();
      }
    };
    this.on('revoked', listener);
    return () => this.off('revoked', listener);
  }

  get size(): number {
    return this.sessions.size;
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
