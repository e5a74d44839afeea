/**
 * The hub's proof of identity, shared by the hub (which answers it) and every
 * process that asks (bridge, CLI, tray). HMAC(hub-secret, challenge + pid):
 * only a process that can read this data folder's 0600 `hub-secret` can
 * compute it. No zod, and node:crypto only when a proof is made or checked:
 * the bridge (`pincer stdio`) loads this on its path.
 */
const PURPOSE = 'pincer-hub-identity';
export const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;

const crypto = () => process.getBuiltinModule('node:crypto');

/** The secret as `hub-secret` holds it (64 hex digits), or undefined when the text is not one. */
export function parseSecret(text: string): Buffer | undefined {
  const t = text.trim();
  return /^[0-9a-f]{64}$/.test(t) ? Buffer.from(t, 'hex') : undefined;
}

export function identityProof(secret: Buffer, challenge: string, pid: number): string {
  return crypto().createHmac('sha256', secret).update([PURPOSE, challenge, pid].join('\n')).digest('base64url');
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

/** Whether a health answer (parsed JSON) carries a valid proof for `challenge`; the proven pid if so. */
export function provenPid(secret: Buffer, challenge: string, body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const hub = (body as { hub?: unknown }).hub;
  if (typeof hub !== 'object' || hub === null) return undefined;
  const { pid, proof } = hub as { pid?: unknown; proof?: unknown };
  if (!Number.isSafeInteger(pid) || typeof proof !== 'string' || proof.length > 100) return undefined;
  return sameMac(proof, identityProof(secret, challenge, pid as number)) ? (pid as number) : undefined;
}
