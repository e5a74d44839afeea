import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import { CHALLENGE } from '../../core/hub-proof.js';

type Headers = Record<string, string | string[] | undefined>;

/** Where a tab asks the hub to prove itself; a hub that is closing answers it "restarting" (handover.ts). */
export const HELLO_PATH = '/api/dashboard/hello';
/** `<sid>.<credential>`: which sign-in, and its credential for this hub process. */
export const SIGN_IN_HEADER = 'x-pincer-session';
/** A random id per request, which the hub's answer MACs (ANSWER_HEADER): the tab believes only answers of its hub. */
export const REQUEST_HEADER = 'x-pincer-request';
export const ANSWER_HEADER = 'x-pincer-answer';

/**
 * `desktop`: the tray app's window, whose main process proved the hub and signs it in; it may read
 * the token and change the settings that choose programs, paths and addresses. `browser`: a tab,
 * which may not (ARCHITECTURE §5, dashboard sign-ins).
 */
export type SignInKind = 'browser' | 'desktop';

export interface SignIn {
  sid: string;
  kind: SignInKind;
  createdAt: number;
  lastUsedAt: number;
  /** HMAC(code secret, sid): the tab derives it from the secret it never sends; the hub keeps it in memory only. */
  key: Buffer;
  /** What the tab sends with each request: HMAC(key, this hub's epoch), worth nothing to any other hub process. */
  credential: string;
}

/** Most signed-in dashboards at once; the oldest is signed out beyond this. */
const MAX_SIGN_INS = 64;
/** Most sign-in codes waiting to be used; the oldest goes beyond this. */
const MAX_CODES = 16;
/** A sign-in link is good for this long, once. */
export const CODE_TTL_MS = 120_000;
/** A sign-in nobody used for this long has ended (README, Security model). */
export const SIGN_IN_IDLE_MS = 2 * 3600_000;
/** No sign-in outlives this, however busy. */
export const SIGN_IN_LIFETIME_MS = 24 * 3600_000;
/** How often ended sign-ins and codes are swept, which closes the event streams they held open. */
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

/** What a tab learns from `GET /api/dashboard/hello`: whether this hub knows its sign-in and, if so, the proof. */
export interface Hello {
  known: boolean;
  /** The address the connection reached, as the hub sees it: the tab compares it with its own. */
  at: string;
  epoch: string;
  /** HMAC(key, challenge, at, epoch): only the hub that made the sign-in can answer it. */
  proof?: string;
}

/**
 * Signed-in dashboards, held in this hub's memory only: a sign-in ends with the hub process that
 * made it (a stop, a crash, a handover), on sign-out, on a token change, after SIGN_IN_IDLE_MS
 * unused and SIGN_IN_LIFETIME_MS after sign-in.
 *
 * Signing in: a one-time sign-in code `<id>.<secret>` (from `pincer dashboard`, the tray, or a
 * holder of the token) reaches the tab in its address's fragment or over the window's IPC; the
 * tab sends only the id, gets a sign-in id, and derives the sign-in key from the secret itself,
 * so the key never crosses the wire. Before it sends anything else — after a reload, a lost
 * connection, a restart — the tab asks the hub to prove it holds that key for the address the tab
 * connected to (`hello`), and then sends a credential bound to this hub process (its epoch). What a
 * program holding the port while the hub is away catches is worth nothing: it cannot prove the
 * key, and no other hub process knows the sign-in or the epoch.
 */
export class SignIns extends EventEmitter<{ revoked: [sids: string[] | 'all'] }> {
  /** This hub process, in every credential: a credential caught anywhere is worth nothing to another hub. */
  readonly epoch = b64(16);
  private signIns = new Map<string, SignIn>();
  private codes = new Map<string, { secret: Buffer; kind: SignInKind; expires: number }>();
  private sweeper: NodeJS.Timeout;

  constructor(private now: () => number = Date.now) {
    super();
    this.setMaxListeners(0);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  /** A one-time sign-in code: the id is sent to redeem it, the secret stays in the tab. */
  createCode(kind: SignInKind): string {
    const id = b64(16);
    const secret = crypto.randomBytes(32);
    this.codes.set(id, { secret, kind, expires: this.now() + CODE_TTL_MS });
    for (const old of this.codes.keys()) {
      if (this.codes.size <= MAX_CODES) break;
      this.codes.delete(old);
    }
    return `${id}.${secret.toString('base64url')}`;
  }

  /** Trades a code's id for a new sign-in, once; undefined for a code this hub never made, used or expired. */
  redeem(id: string): { sid: string; kind: SignInKind } | undefined {
    const code = ID.test(id) ? this.codes.get(id) : undefined;
    if (!code) return undefined;
    this.codes.delete(id);
    if (code.expires <= this.now()) return undefined;
    const sid = b64(16);
    const key = crypto.createHmac('sha256', code.secret).update(['pincer-dashboard-key', sid].join('\n')).digest();
    const now = this.now();
    this.signIns.set(sid, { sid, kind: code.kind, createdAt: now, lastUsedAt: now, key, credential: mac(key, ['pincer-dashboard-request', this.epoch]) });
    for (const [old] of this.signIns) {
      if (this.signIns.size <= MAX_SIGN_INS) break;
      this.revoke(old);
    }
    return { sid, kind: code.kind };
  }

  /** The hub's answer to a tab's challenge on a connection that reached `at` (hub-proof.ts connectionAddress). */
  hello(sid: string, challenge: string, at: string): Hello | undefined {
    if (!CHALLENGE.test(challenge)) return undefined;
    const signIn = this.live(sid);
    return signIn ? { known: true, at, epoch: this.epoch, proof: mac(signIn.key, ['pincer-dashboard-hub', challenge, at, this.epoch]) } : { known: false, at, epoch: this.epoch };
  }

  /** The sign-in a request proves with its SIGN_IN_HEADER, or undefined. */
  authenticate(headers: Headers): SignIn | undefined {
    const value = first(headers[SIGN_IN_HEADER]);
    const dot = value?.indexOf('.') ?? -1;
    if (!value || dot < 0 || value.length > 200) return undefined;
    const signIn = this.live(value.slice(0, dot));
    if (!signIn || !sameText(value.slice(dot + 1), signIn.credential)) return undefined;
    signIn.lastUsedAt = this.now();
    return signIn;
  }

  /** The MAC a sign-in's answer carries for the request id it sent (ANSWER_HEADER). */
  answer(signIn: SignIn, requestId: string): string | undefined {
    return /^[A-Za-z0-9_-]{16,64}$/.test(requestId) ? mac(signIn.key, ['pincer-dashboard-answer', this.epoch, requestId]) : undefined;
  }

  /** A sign-in still within its limits (one past them is ended here). */
  private live(sid: string): SignIn | undefined {
    const signIn = this.signIns.get(sid);
    if (!signIn) return undefined;
    const now = this.now();
    if (now - signIn.createdAt >= SIGN_IN_LIFETIME_MS || now - signIn.lastUsedAt >= SIGN_IN_IDLE_MS) {
      this.revoke(sid);
      return undefined;
    }
    return signIn;
  }

  /** Ends the sign-ins past their time (closing what they hold open) and forgets expired codes. */
  sweep(): void {
    const now = this.now();
    for (const [id, code] of this.codes) if (code.expires <= now) this.codes.delete(id);
    for (const sid of [...this.signIns.keys()]) this.live(sid);
  }

  /** Signs one dashboard out; true when it was signed in. */
  revoke(sid: string): boolean {
    if (!this.signIns.delete(sid)) return false;
    this.emit('revoked', [sid]);
    return true;
  }

  /** Signs every dashboard out and voids every sign-in code: a token change does this. */
  revokeAll(): void {
    this.signIns.clear();
    this.codes.clear();
    this.emit('revoked', 'all');
  }

  /** Calls `onEnd` once when this sign-in ends (sign-out, a limit, a token change). */
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
    return this.signIns.size;
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
