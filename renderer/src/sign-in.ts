/**
 * The tab's dashboard sign-in (ARCHITECTURE §5, dashboard sign-ins). Before it sends any credential
 * (at sign-in, after a reload, after a lost connection) the tab asks the server on its address to
 * prove it holds the sign-in's key for that very address (`hello`), and it believes an answer only
 * when it carries the MAC of the request it answers. The credential it then sends is bound to that
 * hub process: caught by anyone, it opens nothing on any other.
 *
 * The sign-in is kept in this tab's sessionStorage, so a reload keeps it while its hub runs. Whatever
 * serves the origin can read that storage — but the origin is this hub process's own
 * (`<label>.pincer.localhost`, never served by anyone before it), and the sign-in dies with that hub:
 * a program that takes the port afterwards and reads the storage finds a sign-in no hub knows.
 */
import { HubUnreachable, SignedOut } from './errors.js';

const SIGN_IN_HEADER = 'X-Pincer-Session';
const REQUEST_HEADER = 'X-Pincer-Request';
const ANSWER_HEADER = 'X-Pincer-Answer';
const enc = new TextEncoder();

interface Held {
  sid: string;
  kind: 'browser' | 'desktop';
  key: CryptoKey;
}
interface Proven {
  credential: string;
  epoch: string;
}

const STORE = 'pincer-dashboard-session';

let held: Held | undefined;
let proven: Proven | undefined;
let proving: Promise<Proven> | undefined;

function b64url(bytes: ArrayBuffer | Uint8Array): string {
  const a = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = '';
  for (const b of a) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromB64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const out = new Uint8Array(new ArrayBuffer(s.length));
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function random(bytes: number): string {
  return b64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

const hmacKey = (raw: BufferSource, usages: KeyUsage[]) => crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, usages);
const sign = (key: CryptoKey, parts: string[]) => crypto.subtle.sign('HMAC', key, enc.encode(parts.join('\n')));

/**
 * The addresses a proof may name for this page: exactly its own for an IP address; either loopback
 * address on its port for the hub's `*.pincer.localhost` origin (the hub holds both there). Any other
 * name (`localhost`, a name a DNS answer could point anywhere) is never signed in.
 */
function acceptableAt(at: string): boolean {
  const port = location.port || '80';
  if (/^[0-9a-f]{32}\.pincer\.localhost$/.test(location.hostname)) return at === `127.0.0.1:${port}` || at === `[::1]:${port}`;
  if (/^(\d+\.){3}\d+$/.test(location.hostname) || location.hostname.startsWith('[')) return at === `${location.hostname}:${port}`;
  return false;
}

/**
 * Pincer registers no service worker: one that controls this page is another program's, left on the
 * origin while it held the port, and it would see every request. Nothing is sent while one does; it
 * is unregistered and the page loads again without it.
 */
export function foreignWorker(): boolean {
  const sw = navigator.serviceWorker;
  if (!sw?.controller) return false;
  void sw.getRegistrations().then((rs) => Promise.all(rs.map((r) => r.unregister()))).finally(() => location.reload());
  return true;
}

export function signedIn(): boolean {
  return held !== undefined;
}

export function signInKind(): 'browser' | 'desktop' | undefined {
  return held?.kind;
}

/** Forgets the sign-in: nothing of it remains in the tab. */
export function forget(): void {
  held = undefined;
  proven = undefined;
  proving = undefined;
  sessionStorage.removeItem(STORE);
}

async function hold(sid: string, kind: unknown, secret: Uint8Array<ArrayBuffer>): Promise<void> {
  const raw = await sign(await hmacKey(secret, ['sign']), ['pincer-dashboard-key', sid]);
  held = { sid, kind: kind === 'desktop' ? 'desktop' : 'browser', key: await hmacKey(raw, ['sign', 'verify']) };
  unprove();
  sessionStorage.setItem(STORE, JSON.stringify({ sid, kind: held.kind, secret: b64url(secret) }));
}

/** The sign-in this tab kept across a reload, proven again; false when it kept none. */
export async function resume(): Promise<boolean> {
  let kept: { sid?: unknown; kind?: unknown; secret?: unknown } | undefined;
  try {
    kept = JSON.parse(sessionStorage.getItem(STORE) ?? 'null') as typeof kept;
  } catch {
    kept = undefined;
  }
  const secret = typeof kept?.secret === 'string' ? fromB64url(kept.secret) : undefined;
  if (!kept || typeof kept.sid !== 'string' || !secret) {
    forget();
    return false;
  }
  await hold(kept.sid, kept.kind, secret);
  await prove();
  return true;
}

/** After a lost connection or an answer that was not the hub's: the next request proves the hub first. */
export function unprove(): void {
  proven = undefined;
  proving = undefined;
}

/** Redeems a sign-in code `<id>.<secret>`: only the id is sent; the key is derived here from the secret. */
export async function redeem(code: string): Promise<void> {
  // The sign-in held so far stays until the new one is in hand (a rotation redeems while the feed reconnects).
  const [id, secretText] = code.split('.');
  const secret = secretText ? fromB64url(secretText) : undefined;
  if (!id || !secret || secret.length < 16) {
    forget();
    throw new SignedOut('This sign-in link is damaged. Run "pincer dashboard" for a new one.');
  }
  let res: Response;
  try {
    res = await fetch('/api/dashboard/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code: id }), credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new HubUnreachable('The hub is not answering.');
  }
  const data = (await res.json().catch(() => ({}))) as { sid?: unknown; kind?: unknown; error?: { message?: string } };
  if (!res.ok || typeof data.sid !== 'string') {
    forget();
    throw new SignedOut(data.error?.message ?? 'This sign-in link could not be used. Run "pincer dashboard" for a new one.');
  }
  await hold(data.sid, data.kind, secret);
  await prove();
}

async function hello(signIn: Held): Promise<Proven> {
  const challenge = random(24);
  let res: Response;
  try {
    res = await fetch(`/api/dashboard/hello?sid=${encodeURIComponent(signIn.sid)}&challenge=${challenge}`, { credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new HubUnreachable('The hub is not answering.');
  }
  // A hub that is restarting or overloaded: ask again later; nothing was sent.
  if (res.status >= 500) throw new HubUnreachable('The hub is not answering.');
  const body = (await res.json().catch(() => /* not JSON: not the hub's answer */ undefined)) as { known?: unknown; at?: unknown; epoch?: unknown; proof?: unknown } | undefined;
  if (!res.ok || !body) throw notTheHub();
  if (body.known === false) {
    forget();
    throw new SignedOut('The hub that signed this dashboard in has stopped or restarted, or the session ended. Run "pincer dashboard" to sign in again.');
  }
  const proof = typeof body.proof === 'string' ? fromB64url(body.proof) : undefined;
  if (typeof body.at !== 'string' || typeof body.epoch !== 'string' || !proof || !acceptableAt(body.at)) throw notTheHub();
  const ok = await crypto.subtle.verify('HMAC', signIn.key, proof, enc.encode(['pincer-dashboard-hub', challenge, body.at, body.epoch].join('\n')));
  if (!ok) throw notTheHub();
  return { epoch: body.epoch, credential: b64url(await sign(signIn.key, ['pincer-dashboard-request', body.epoch])) };
}

function notTheHub(): SignedOut {
  forget();
  return new SignedOut(`What answers at ${location.host} could not prove to be the Pincer hub that signed this dashboard in, so this page sent it nothing and signed out. If Pincer is running, run "pincer dashboard" to sign in again.`);
}

/** Proves the hub (once for all requests waiting on it). */
export function prove(): Promise<Proven> {
  if (!held) return Promise.reject(new SignedOut('You are signed out.'));
  if (proven) return Promise.resolve(proven);
  const signIn = held;
  proving ??= hello(signIn).then(
    (p) => {
      if (held === signIn) proven = p;
      proving = undefined;
      return p;
    },
    (err: unknown) => {
      proving = undefined;
      throw err;
    },
  );
  return proving;
}

/**
 * The headers of a credentialed request to the proven hub, and the check of its answer: an answer
 * without the MAC of this request's id is not the hub's (the port changed hands since the proof),
 * and the next request proves the hub again.
 */
export async function credentials(): Promise<{ headers: Record<string, string>; check(res: Response): Promise<boolean> }> {
  if (foreignWorker()) throw new HubUnreachable('A service worker of another program controlled this page; it was removed.');
  const p = await prove();
  const signIn = held!;
  const id = random(18);
  return {
    headers: { [SIGN_IN_HEADER]: `${signIn.sid}.${p.credential}`, [REQUEST_HEADER]: id },
    check: async (res) => {
      const answer = res.headers.get(ANSWER_HEADER);
      const mac = answer ? fromB64url(answer) : undefined;
      const ok = !!mac && held === signIn && (await crypto.subtle.verify('HMAC', signIn.key, mac, enc.encode(['pincer-dashboard-answer', p.epoch, id].join('\n'))));
      if (!ok) unprove();
      return ok;
    },
  };
}
