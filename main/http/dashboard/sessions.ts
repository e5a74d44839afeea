import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { DashboardSessionsRepo } from '../../store/dashboard-sessions.js';

type Headers = Record<string, string | string[] | undefined>;

/** The header that carries a dashboard session's key; the cookie alone is not enough. */
export const SESSION_KEY_HEADER = 'x-pincer-session-key';

/** Most signed-in dashboards at once; the oldest is signed out beyond this. */
const MAX_SESSIONS = 64;

function hash(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

function random(): string {
  return crypto.randomBytes(32).toString('base64url');
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Signed-in dashboards. Signing in trades the token for two random values:
 * a session id, sent as an HttpOnly, SameSite=Strict cookie whose name carries
 * the hub's port, and a key the page keeps in its own origin's storage and
 * sends as a header. Browsers send cookies for 127.0.0.1 to every port, so a
 * server on another port may see the cookie; it never sees the key (storage is
 * per origin, port included), and the cookie is worth nothing without it.
 * Neither value is the token or works as one. The hub keeps only their hashes,
 * in pincer.db, so a restart does not sign anyone out.
 */
export class DashboardSessions extends EventEmitter<{ revoked: [idHashes: string[] | 'all'] }> {
  constructor(private port: () => number, private repo: DashboardSessionsRepo) {
    super();
    this.setMaxListeners(0);
  }

  /** `pincer_session_<port>`: two hubs on one machine never read each other's cookie. */
  cookieName(): string {
    return `pincer_session_${this.port()}`;
  }

  create(): { id: string; key: string } {
    const id = random();
    const key = random();
    this.repo.insert(hash(id), hash(key), MAX_SESSIONS);
    return { id, key };
  }

  /** The hash of the session a request proves (its cookie plus its key header), or undefined. */
  authenticated(headers: Headers): string | undefined {
    const id = this.cookieValue(headers);
    const key = first(headers[SESSION_KEY_HEADER]);
    if (!id || !key) return undefined;
    const idHash = hash(id);
    const expected = this.repo.keyHash(idHash);
    if (!expected) return undefined;
    return crypto.timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(hash(key), 'hex')) ? idHash : undefined;
  }

  /** The session cookie's value, parsed with `cookie` (which never throws on bad percent-encoding). */
  private cookieValue(headers: Headers): string | undefined {
    const raw = headers.cookie;
    const text = Array.isArray(raw) ? raw.join('; ') : raw;
    if (!text) return undefined;
    const value = parseCookie(text)[this.cookieName()];
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

  /** Signs every dashboard out: token rotation calls this. */
  revokeAll(): void {
    this.repo.clear();
    this.emit('revoked', 'all');
  }

  get size(): number {
    return this.repo.count();
  }

  setCookie(id: string): string {
    return stringifySetCookie({ name: this.cookieName(), value: id, httpOnly: true, sameSite: 'strict', path: '/' });
  }

  clearCookie(): string {
    return stringifySetCookie({ name: this.cookieName(), value: '', httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0 });
  }
}
