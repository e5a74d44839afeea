import crypto from 'node:crypto';
import type { PincerPaths } from '../core/paths.js';
import { UserError } from '../core/errors.js';
import { linkAnswerMac, linkRequestMac, sameMac, type LinkRequest } from '../core/hub-proof.js';
import { homeSecret } from './identity.js';
import type { HubInfo } from './lock.js';

/** A one-time sign-in link of a hub's dashboard: `<its dashboard origin>/#signin=<code>`, and the same code at the hub's own address. */
export interface SignInLink {
  url: string;
  /** The same code at the hub's IP address (`?here`), for a browser that does not resolve `*.localhost` names itself (Safari). */
  atAddress: string;
  expiresInS: number;
}

const DASHBOARD_HOST = /^[0-9a-f]{32}\.pincer\.localhost$/;

/**
 * Asks the hub in `info` — which the caller has just seen prove itself (identity.ts verifyHub, bound) —
 * for a sign-in link, with a request signed by hub-secret for that hub process: it carries nothing
 * another program could use, so it may go on a connection of its own. The answer counts only when
 * the hub signed it too, for this request, and names a dashboard on the hub's own port.
 */
export async function askSignInLink(paths: PincerPaths, info: HubInfo, kind: LinkRequest['kind']): Promise<SignInLink> {
  const secret = homeSecret(paths);
  if (!secret) throw new UserError(`${paths.home}/hub-secret is missing, so nothing can prove to be this data folder's hub. Start the hub ("pincer serve").`, 'UNAVAILABLE');
  const unsigned = { pid: process.pid, target: info.pid, kind, nonce: crypto.randomBytes(24).toString('base64url'), at: Date.now() };
  let res: Response;
  try {
    res = await fetch(`${info.url}/api/dashboard/link`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...unsigned, mac: linkRequestMac(secret, unsigned) }), signal: AbortSignal.timeout(5000) });
  } catch (err) {
    throw new UserError(`the hub at ${info.url} (pid ${info.pid}) did not answer the request for a sign-in link (${(err as Error).message}). Try again in a moment.`, 'UNAVAILABLE');
  }
  const answer = (await res.json().catch(() => ({}))) as { url?: unknown; expiresInS?: unknown; mac?: unknown; error?: { message?: string } };
  if (!res.ok) throw new UserError(`the hub at ${info.url} (pid ${info.pid}) gave no sign-in link: ${answer.error?.message ?? `HTTP ${res.status}`}`, 'UPSTREAM');
  const url = typeof answer.url === 'string' ? answer.url : '';
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  const own = new URL(info.url);
  const fits = parsed && parsed.protocol === 'http:' && parsed.port === own.port && (DASHBOARD_HOST.test(parsed.hostname) || parsed.hostname === own.hostname) && /^#signin=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(parsed.hash);
  if (!parsed || !fits || typeof answer.mac !== 'string' || !sameMac(answer.mac, linkAnswerMac(secret, unsigned.nonce, url))) {
    throw new UserError(`what answered at ${info.url} did not sign its sign-in link as this data folder's hub; nothing was opened. Run "pincer status".`, 'CONFLICT');
  }
  return { url, atAddress: `${own.origin}/?here${parsed.hash}`, expiresInS: typeof answer.expiresInS === 'number' ? answer.expiresInS : 120 };
}
