import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { DashboardSessionsRepo } from '../../store/dashboard-sessions.js';

type Headers = Record<string, string | string[] | undefined>;

/** The header that carries a dashboard session's key; the cookie alone is not enough. */
export const SESSION_KEY_HEADER = 'x-pincer-session-key';

/** Most signed-in dashboards at once; the oldest is signed out beyond this. */
const MAX_SESSIONS = 64;
/** A session nobody used for this long has ended (README, Security model). */
export const SESSION_IDLE_MS = 2 * 3600_000;
/** No session outlives this, however busy: a stolen one is worth a day at most. */
export const SESSION_LIFETIME_MS = 24 * 3600_000;
/** Last use is written at most this often per session (every API call reads it; few write it). */
const TOUCH_EVERY_MS = 60_000;
/** How often ended sessions are swept, which closes the event streams they held open. */
const SWEEP_EVERY_MS = 10_000;

function hash(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

function random(): string {
  return crypto.randomBytes(32).toString('base64url');
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The session tag at the head of a key, which names its cookie; undefined for anything else. */
function tagOf(key: string): string | undefined {
  const m = /^([A-Za-z0-9_-]{8})\./.exec(key);
  return m?.[1];
}

/**
 * Signed-in dashboards. Signing in trades the token for two random values:
 * a session id, sent as an HttpOnly, SameSite=Strict cookie whose name carries
 * the hub's port and a tag of the session, and a key (`<tag>.<secret>`) the page
 * keeps in its tab's sessionStorage and sends as a header; the tag names the
 * cookie to read, so each tab's sign-in has a cookie of its own and signing in
 * in one tab never signs another out. Browsers send cookies for 127.0.0.1 to
 * every port, so a server on another port may see the cookie; it never sees the
 * key (storage is per origin and tab), and the cookie is worth nothing without it.
 * Neither value is the token or works as one. The hub keeps only their hashes,
 * in pincer.db, so a restart does not sign anyone out.
 *
 * A session ends after SESSION_IDLE_MS without a request, SESSION_LIFETIME_MS after sign-in, on
 * sign-out, and when the token changes by any means (rotation, an edit of pincer-env.txt, a
 * `pincer token rotate` while no hub ran): each row carries an HMAC of the token it was opened
 * under, and a row whose tag is not the current token's opens nothing.
 */
export class DashboardSessions extends EventEmitter<{ revoked: [idHashes: string[] | 'all'] }> {
  private sweeper: NodeJS.Timeout;

  constructor(private port: () => number, private repo: DashboardSessionsRepo, private token: () => string) {
    super();
    this.setMaxListeners(0);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  /** Which token a session belongs to, without keeping the token (or a plain hash of it) in pincer.db. */
  private tokenTag(): string {
    return crypto.createHmac('sha256', this.token()).update('pincer dashboard session').digest('hex').slice(0, 32);
  }

  /** Ends the sessions past their time and closes what they hold open; a store that fails now is tried on the next sweep. */
  sweep(now = Date.now()): void {
    try {
      const gone = this.repo.deleteEnded(this.tokenTag(), now - SESSION_IDLE_MS, now - SESSION_LIFETIME_MS);
      if (gone.length) this.emit('revoked', gone);
    } catch {
      // pincer.db unavailable: authenticate() refuses ended sessions by itself meanwhile.
    }
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  /** `pincer_session_<port>_<tag>`: two hubs on one machine never read each other's cookie, nor two tabs. */
  cookieName(tag: string): string {
    return `pincer_session_${this.port()}_${tag}`;
  }

  create(): { id: string; key: string; cookieName: string } {
    const id = random();
    const tag = crypto.randomBytes(6).toString('base64url');
    const key = `${tag}.${random()}`;
    this.repo.insert(hash(id), hash(key), this.tokenTag(), MAX_SESSIONS);
    return { id, key, cookieName: this.cookieName(tag) };
  }

  /** The hash of the session a request proves (its cookie plus its key header), or undefined. */
  authenticated(headers: Headers): string | undefined {
    const key = first(headers[SESSION_KEY_HEADER]);
    const tag = key && tagOf(key);
    const id = tag && this.cookieValue(headers, tag);
    if (!key || !id) return undefined;
    const idHash = hash(id);
    const row = this.repo.get(idHash);
    if (!row || !crypto.timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash(key), 'hex'))) return undefined;
    const now = Date.now();
    const lastUsed = row.last_used_at ?? row.created_at;
    if (row.token_tag !== this.tokenTag() || now - row.created_at >= SESSION_LIFETIME_MS || now - lastUsed >= SESSION_IDLE_MS) {
      if (this.repo.delete(idHash)) this.emit('revoked', [idHash]);
      return undefined;
    }
    if (now - lastUsed >= TOUCH_EVERY_MS) this.repo.touch(idHash, now);
    return idHash;
  }

  /** The session cookie's value, parsed with `cookie` (which never throws on bad percent-encoding). */
  private cookieValue(headers: Headers, tag: string): string | undefined {
    const raw = headers.cookie;
    const text = Array.isArray(raw) ? raw.join('; ') : raw;
    if (!text) return undefined;
    const value = parseCookie(text)[this.cookieName(tag)];
    return value && value.length <= 256 ? value : undefined;
  }

  /**
   * Signs out the session a request proves with its cookie and its key. The cookie alone is not
   * enough: any local web server on another port receives `127.0.0.1` cookies and could end the
   * person's session with it. True when a session was ended.
   */
  revokeFrom(headers: Headers): boolean {
    const idHash = this.authenticated(headers);
    if (!idHash) return false;
    if (this.repo.delete(idHash)) this.emit('revoked', [idHash]);
    return true;
  }

  /**
   * A connection a dashboard session opened (a WebSocket, a pipe) lasts no longer than the session:
   * when it ends (sign-out, idle, lifetime, a token change) the socket is closed.
   */
  bindSocket(idHash: string, socket: { destroy(): void; once(event: 'close', l: () => void): unknown }): void {
    const onRevoked = (which: string[] | 'all') => {
      if (which === 'all' || which.includes(idHash)) socket.destroy();
    };
    this.on('revoked', onRevoked);
    socket.once('close', () => this.off('revoked', onRevoked));
  }

  /** Signs every dashboard out: token rotation calls this. */
  revokeAll(): void {
    this.repo.clear();
    this.emit('revoked', 'all');
  }

  get size(): number {
    return this.repo.count();
  }

  /** The browser forgets the cookie when the session could no longer be used anyway. */
  setCookie(session: { id: string; cookieName: string }): string {
    return stringifySetCookie({ name: session.cookieName, value: session.id, httpOnly: true, sameSite: 'strict', path: '/', maxAge: SESSION_LIFETIME_MS / 1000 });
  }

  /** Clears the cookie of the session whose key the request sent (undefined when it sent none). */
  clearCookie(headers: Headers): string | undefined {
    const key = first(headers[SESSION_KEY_HEADER]);
    const tag = key && tagOf(key);
    return tag ? stringifySetCookie({ name: this.cookieName(tag), value: '', httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0 }) : undefined;
  }
}
