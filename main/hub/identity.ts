import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic, type PincerPaths } from '../core/paths.js';
import { HubRole, type HubInfo } from './lock.js';
import { CHALLENGE, boundProof, checkProof, newChallenge, parseSecret, readHealthAnswer, sameMac, secretMac, type HealthAnswer } from '../core/hub-proof.js';

export { CHALLENGE };

/**
 * Proving "this is the hub of this data directory" without a secret on the
 * wire. `hub-secret` (0600, random, made once) is readable only by the user who
 * owns the data directory. A caller sends a fresh challenge to the
 * unauthenticated health endpoint; the hub answers with its pid and
 * HMAC(secret, challenge + pid). Only a process that can read this home can
 * compute that, and the pid in it is the one the hub itself reports: an
 * unrelated process that reused a recorded pid, or another home's hub on a
 * recorded port, cannot answer it.
 */
const SECRET_FILE = 'hub-secret';

export function secretFile(paths: PincerPaths): string {
  return path.join(paths.home, SECRET_FILE);
}

/**
 * The home's secret. With `create` (only the lock holder passes it, so no two
 * processes race to make it) a missing or damaged secret is replaced atomically.
 */
export function homeSecret(paths: PincerPaths, create = false): Buffer | undefined {
  const file = secretFile(paths);
  try {
    const secret = parseSecret(fs.readFileSync(file, 'utf8'));
    if (secret) return secret;
  } catch {
    // Missing: made below when asked to.
  }
  if (!create) return undefined;
  const secret = crypto.randomBytes(32);
  writeFileAtomic(file, secret.toString('hex') + '\n', 0o600);
  return secret;
}



/**
 * What the health endpoint adds when asked with `?challenge=`: who answers, and the proof. `bound` is
 * the proof, which covers the address the connection reached (hub-proof.ts); `at` names that address
 * as the hub saw it; `shares`: this hub listens so that a newcomer of the same user can listen beside
 * it (listen.ts SHARES_PORT), absent when it does not.
 */
export const HubIdentity = z.object({ pid: z.number().int(), role: HubRole, bound: z.string(), at: z.string(), shares: z.boolean().optional() });
export type HubIdentity = z.infer<typeof HubIdentity>;

/** The identity part of a health answer for `challenge`, on a connection that reached `address` (connectionAddress). */
export function identityFor(secret: Buffer, role: HubRole, challenge: unknown, address: string, shares = false): { hub: HubIdentity } | undefined {
  if (typeof challenge !== 'string' || !CHALLENGE.test(challenge)) return undefined;
  return { hub: { pid: process.pid, role, bound: boundProof(secret, challenge, process.pid, address), at: address, ...(shares ? { shares: true } : {}) } };
}

export type Verification =
  | { ok: true; info: HubInfo; role: HubRole; shares: boolean }
  | { ok: false; reason: 'no-secret' | 'no-answer' | 'restarting' | 'not-this-home' | 'other-pid' };

/** Asks the process recorded in `info` to prove it is this home's hub, with that pid, at that address. */
export async function verifyHub(paths: PincerPaths, info: HubInfo, timeoutMs = 2000): Promise<Verification> {
  const secret = homeSecret(paths);
  if (!secret) return { ok: false, reason: 'no-secret' };
  const challenge = newChallenge();
  const answer = await healthAnswer(`${info.url}/api/mcp/health?challenge=${challenge}`, timeoutMs);
  if (!answer) return { ok: false, reason: 'no-answer' };
  if (answer.status === 503) return { ok: false, reason: 'restarting' };
  // Something that answered and not as a hub holds the port all the same.
  const parsed = z.object({ hub: HubIdentity }).safeParse(answer.body);
  if (!parsed.success) return { ok: false, reason: 'not-this-home' };
  const proven = checkProof(secret, challenge, answer.body, answer.address);
  if (!proven) return { ok: false, reason: 'not-this-home' };
  if (proven.pid !== info.pid) return { ok: false, reason: 'other-pid' };
  return { ok: true, info, role: parsed.data.hub.role, shares: parsed.data.hub.shares === true };
}

/** One GET on a connection of its own: the health answer, or undefined when none came. */
function healthAnswer(url: string, timeoutMs: number): Promise<HealthAnswer | undefined> {
  return new Promise((resolve) => {
    // Loaded on use, not imported: an ESM import of node:http builds its namespace, whose lazy exports load undici in every hub (test/hub-lazy-loads).
    const req = process.getBuiltinModule('node:http').get(url, { agent: false, timeout: timeoutMs }, (res) => readHealthAnswer(res, resolve));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(undefined));
  });
}

/** A handover request is signed with the home's secret: only a process of the same user and home can ask. */
export const HandoverRequest = z.object({
  pid: z.number().int().positive(),
  role: HubRole,
  force: z.boolean(),
  nonce: z.string().regex(CHALLENGE),
  at: z.number().int(),
  /** `pincer stop`: drain and stop, handing over to nobody. */
  stop: z.literal(true).optional(),
  /**
   * The newcomer listens on the port beside this hub already (listen.ts SHARES_PORT): this hub stops
   * accepting connections at once and serves what reaches it on those open until it hands over.
   * Outside the MAC: it widens nothing.
   */
  shared: z.boolean().optional(),
  mac: z.string().max(100),
});
export type HandoverRequest = z.infer<typeof HandoverRequest>;

/** What the MAC covers. A stop is signed under its own label, so that it can never be taken for a handover. */
function handoverMac(secret: Buffer, req: Omit<HandoverRequest, 'mac'>): string {
  return req.stop ? secretMac(secret, 'pincer-stop', [req.nonce, req.at, req.pid]) : secretMac(secret, 'pincer-handover', [req.nonce, req.at, req.pid, req.role, req.force]);
}

export function signHandover(secret: Buffer, req: Omit<HandoverRequest, 'mac'>): HandoverRequest {
  return { ...req, mac: handoverMac(secret, req) };
}

export function handoverSigned(secret: Buffer, req: HandoverRequest): boolean {
  return sameMac(req.mac, handoverMac(secret, req));
}
