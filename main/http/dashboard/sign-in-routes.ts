import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { Settings } from '../../core/settings/settings.js';
import { presentedToken, tokenProblem, unauthorizedHeaders } from '../../access/security.js';
import { sendError, sendRpcError } from '../../access/respond.js';
import { fail } from './replies.js';
import { CHALLENGE, connectionAddress, linkAnswerMac, linkRequestMac, sameMac } from '../../core/hub-proof.js';
import { CODE_TTL_MS, HELLO_PATH, SIGN_IN_HEADER, type SignIns, type SignInKind } from './sign-ins.js';

/** How far a signed link request's clock may be off; older ones are refused as replays. */
const MAX_SKEW_MS = 60_000;

const Kind = z.enum(['browser', 'desktop']);
const TokenLinkBody = z.object({ kind: Kind.optional() });
const SignedLinkBody = z.object({ pid: z.number().int().positive(), target: z.number().int().positive(), kind: Kind, nonce: z.string().regex(CHALLENGE), at: z.number().int(), mac: z.string().max(100) });
const RedeemBody = z.object({ code: z.string().max(64) });
const HelloQuery = z.object({ sid: z.string().max(64), challenge: z.string().max(200) });

export interface SignInDeps {
  settings: Settings;
  signIns: SignIns;
  /** This data folder's hub-secret: a signed link request proves its sender reads it. */
  secret: Buffer;
  /** Where this hub's dashboard lives (http/dashboard/origin.ts). */
  dashboardUrl: () => string;
}

/** The link a code opens: its fragment never reaches a server, and the page removes it from the address at once. */
function linkFor(deps: SignInDeps, kind: SignInKind): string {
  return `${deps.dashboardUrl()}/#signin=${deps.signIns.createCode(kind)}`;
}

/**
 * Signing a dashboard in, without the token ever being typed into a page (a page at the hub's
 * address may be another program's, ARCHITECTURE §5): a one-time link from whoever holds the token
 * or hub-secret (`pincer dashboard`, the tray app), the code's redemption, the hub's proof (hello),
 * and sign-out. None of these needs a sign-in or the token but the link itself.
 */
export function signInRoutes(deps: SignInDeps): express.Router {
  const r = express.Router();
  const nonces = new Map<string, number>();
  const json = express.json({ limit: '4kb' });

  r.post('/api/dashboard/link', json, (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    if (presentedToken(req.headers) !== undefined) {
      const problem = tokenProblem(req.headers, deps.settings);
      if (problem) return sendRpcError(res, problem.refusal, problem.message, { headers: unauthorizedHeaders(req.headers) });
      const body = TokenLinkBody.safeParse(req.body ?? {});
      if (!body.success) return fail(res, 'INVALID_INPUT', 'Send {} or {"kind": "browser"}.');
      return void res.json({ success: true, url: linkFor(deps, body.data.kind ?? 'browser'), expiresInS: CODE_TTL_MS / 1000 });
    }
    const body = SignedLinkBody.safeParse(req.body);
    if (!body.success) return fail(res, 'UNAUTHORIZED', 'A sign-in link is given to a holder of the token ("Authorization: Bearer <token>") or to a request signed with this data folder\'s hub-secret ("pincer dashboard").');
    const r2 = body.data;
    const now = Date.now();
    for (const [n, at] of nonces) if (now - at > 2 * MAX_SKEW_MS) nonces.delete(n);
    if (!sameMac(r2.mac, linkRequestMac(deps.secret, r2)) || r2.target !== process.pid) return fail(res, 'NOT_SIGNED', `The request is not signed with this data folder's hub-secret for this hub (pid ${process.pid}).`);
    if (Math.abs(now - r2.at) > MAX_SKEW_MS || nonces.has(r2.nonce)) return fail(res, 'REPLAYED', 'The request is stale or was already used; send a fresh one.');
    nonces.set(r2.nonce, now);
    const url = linkFor(deps, r2.kind);
    res.json({ success: true, url, expiresInS: CODE_TTL_MS / 1000, mac: linkAnswerMac(deps.secret, r2.nonce, url) });
  });

  r.post('/api/dashboard/session', json, (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const body = RedeemBody.safeParse(req.body);
    if (!body.success) return fail(res, 'INVALID_INPUT', 'Send {"code": "<the id part of the sign-in code>"}.');
    const signIn = deps.signIns.redeem(body.data.code);
    if (!signIn) return fail(res, 'LINK_INVALID', 'This sign-in link was used already, is older than 2 minutes, or belongs to a hub that has stopped. Run "pincer dashboard" for a new one.');
    res.json({ success: true, sid: signIn.sid, kind: signIn.kind });
  });

  r.get(HELLO_PATH, (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const q = HelloQuery.safeParse(req.query);
    const hello = q.success ? deps.signIns.hello(q.data.sid, q.data.challenge, connectionAddress(req.socket.localAddress, req.socket.localPort)) : undefined;
    if (!hello) return fail(res, 'INVALID_INPUT', 'Send ?sid=<sign-in id>&challenge=<16 to 128 URL-safe characters>.');
    res.json(hello);
  });

  r.post('/api/dashboard/logout', (req, res) => {
    const signIn = deps.signIns.authenticate(req.headers);
    if (!signIn) return sendError(res, 'UNAUTHORIZED', `Sign-out needs the sign-in: its ${SIGN_IN_HEADER} header, which only the dashboard that signed in holds.`);
    deps.signIns.revoke(signIn.sid);
    res.json({ success: true });
  });
  return r;
}
