/**
 * The hub's proof of identity, shared by the hub (which answers it) and every
 * process that asks (bridge, CLI, tray). HMAC(hub-secret, challenge + pid):
 * only a process that can read this data folder's 0600 `hub-secret` can
 * compute it. No zod, and node:crypto only when a proof is made or checked:
 * the bridge (`pincer stdio`) loads this on its path.
 *
 * The proof also covers the address the connection reached, as the hub sees it
 * (its socket's local address and port): a program on another port that relays
 * the challenge to the real hub gets back a proof for the hub's own address,
 * which the asker, who connected to the relay, rejects and sends nothing
 * (ARCHITECTURE §1).
 */
import type { IncomingMessage } from 'node:http';
const BOUND_PURPOSE = 'pincer-hub-identity-bound';
export const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;

const crypto = () => process.getBuiltinModule('node:crypto');

/** The secret as `hub-secret` holds it (64 hex digits), or undefined when the text is not one. */
export function parseSecret(text: string): Buffer | undefined {
  const t = text.trim();
  return /^[0-9a-f]{64}$/.test(t) ? Buffer.from(t, 'hex') : undefined;
}

/** HMAC(hub-secret, challenge + pid + the address the connection reached). */
export function boundProof(secret: Buffer, challenge: string, pid: number, address: string): string {
  return crypto().createHmac('sha256', secret).update([BOUND_PURPOSE, challenge, pid, address].join('\n')).digest('base64url');
}

/**
 * One connection's address as both of its ends name it: the hub from its socket's local side, the
 * asker from its remote side. "127.0.0.1:7717", "[::1]:7717"; an IPv4-mapped IPv6 address is its IPv4 form.
 */
export function connectionAddress(address: string | undefined, port: number | undefined): string {
  const a = (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return `${a.includes(':') ? `[${a}]` : a}:${port ?? 0}`;
}

/** A health answer as read off one connection: its status, its JSON body (undefined when not JSON) and the address the connection reached. */
export interface HealthAnswer {
  status: number;
  body: unknown;
  address: string;
}

/**
 * Reads a health answer (at most 64 KiB of it is kept) and calls `done` once: with the answer when it
 * ended, with undefined when it broke off. The address is read at once: a keep-alive socket leaves the
 * response once it ended.
 */
export function readHealthAnswer(res: IncomingMessage, done: (answer: HealthAnswer | undefined) => void): void {
  const address = connectionAddress(res.socket.remoteAddress, res.socket.remotePort);
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (c: Buffer) => {
    if ((size += c.length) <= 64 * 1024) chunks.push(c);
  });
  res.on('end', () => {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    done({ status: res.statusCode ?? 0, body, address });
  });
  res.on('error', () => done(undefined));
}

/**
 * HMAC(hub-secret, label + parts): a request only a process that reads this data folder's hub-secret
 * can make — a handover, a stop, a dashboard sign-in link, health's details. Each kind has its own
 * label, so that none can be replayed as another.
 */
export function secretMac(secret: Buffer, label: string, parts: (string | number | boolean)[]): string {
  return crypto().createHmac('sha256', secret).update([label, ...parts].join('\n')).digest('base64url');
}

/** What a health probe adds to its challenge to be told the hub's details (sessions, tools): this proves it reads hub-secret. */
export function detailsAsker(secret: Buffer, challenge: string): string {
  return secretMac(secret, 'pincer-health-details', [challenge]);
}

/**
 * A request for a dashboard sign-in link (`pincer dashboard`, the tray window for a hub it does not
 * run): signed with hub-secret, for one hub process (`target`, the pid its proof named), fresh
 * (`at`, `nonce`), so it carries nothing another program could use; the hub's answer is signed too.
 */
export interface LinkRequest {
  pid: number;
  target: number;
  kind: 'browser' | 'desktop';
  nonce: string;
  at: number;
  mac: string;
}

export function linkRequestMac(secret: Buffer, r: Omit<LinkRequest, 'mac'>): string {
  return secretMac(secret, 'pincer-dashboard-link', [r.nonce, r.at, r.pid, r.target, r.kind]);
}

export function linkAnswerMac(secret: Buffer, nonce: string, url: string): string {
  return secretMac(secret, 'pincer-dashboard-link-answer', [nonce, url]);
}

export function newChallenge(): string {
  return crypto().randomBytes(24).toString('base64url');
}

/** Constant-time comparison of two MACs. */
export function sameMac(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto().timingSafeEqual(x, y);
}

/**
 * What a health answer (parsed JSON) proves for `challenge` on a connection to `address`: the hub's
 * pid when its proof is right for that address (this folder's hub, reached directly); undefined when
 * it proves nothing, including a proof made for another address (a relay to the real hub) or none.
 */
export function checkProof(secret: Buffer, challenge: string, body: unknown, address: string): { pid: number } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const hub = (body as { hub?: unknown }).hub;
  if (typeof hub !== 'object' || hub === null) return undefined;
  const { pid, bound } = hub as { pid?: unknown; bound?: unknown };
  if (!Number.isSafeInteger(pid) || typeof bound !== 'string' || bound.length > 100) return undefined;
  return sameMac(bound, boundProof(secret, challenge, pid as number, address)) ? { pid: pid as number } : undefined;
}
