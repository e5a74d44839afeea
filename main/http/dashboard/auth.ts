import type { IncomingMessage } from 'node:http';
import type { Request, Response, NextFunction } from 'express';
import type { Settings } from '../../core/settings/settings.js';
import { presentedToken, tokenProblem, unauthorizedHeaders } from '../../access/security.js';
import { sendRpcError } from '../../access/respond.js';
import { RPC_REFUSALS, rpcErrorBody } from '../../core/wire-errors.js';
import { fail } from './replies.js';
import { ANSWER_HEADER, REQUEST_HEADER, SIGN_IN_HEADER, type SignIn, type SignIns } from './sign-ins.js';

/** Who a dashboard API request speaks for: a holder of the token, or a signed-in dashboard. */
export type Access = { kind: 'token' } | { kind: 'sign-in'; signIn: SignIn };

const accesses = new WeakMap<IncomingMessage, Access>();

export function accessOf(req: IncomingMessage): Access | undefined {
  return accesses.get(req);
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The dashboard API's gate: the token, or a dashboard sign-in's credential (sign-ins.ts). The MCP
 * endpoints, the compatibility routes and upgrades take the token only (express-app.ts), so a dashboard
 * sign-in can never run a tool. A sign-in's answer carries the MAC of the request id it sent, by
 * which the tab tells its hub's answers from anyone else's.
 */
export function tokenOrSignIn(settings: Settings, signIns: SignIns) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (presentedToken(req.headers) !== undefined) {
      const problem = tokenProblem(req.headers, settings);
      if (problem) return sendRpcError(res, problem.refusal, problem.message, { headers: unauthorizedHeaders(req.headers) });
      accesses.set(req, { kind: 'token' });
      return next();
    }
    const signIn = signIns.authenticate(req.headers);
    if (!signIn) {
      const tried = first(req.headers[SIGN_IN_HEADER]) !== undefined;
      const message = tried
        ? 'Signed out: this dashboard sign-in has ended (sign-out, 2 hours unused, 24 hours old, a token change, or the hub that signed it in has stopped). Run "pincer dashboard" to open a signed-in dashboard.'
        : 'Unauthorized: send the header "Authorization: Bearer <token>" (`pincer token` prints it), or sign in to the dashboard with "pincer dashboard".';
      // A JSON-RPC refusal, as the token's; its top-level code tells the tab an ended sign-in from none.
      const { code, status } = RPC_REFUSALS.UNAUTHORIZED;
      res.status(status).set(unauthorizedHeaders(req.headers)).json({ ...rpcErrorBody(code, message), code: tried ? 'SESSION_ENDED' : 'UNAUTHORIZED' });
      return;
    }
    const answer = signIns.answer(signIn, first(req.headers[REQUEST_HEADER]) ?? '');
    if (answer) res.setHeader(ANSWER_HEADER, answer);
    res.setHeader('Cache-Control', 'no-store');
    accesses.set(req, { kind: 'sign-in', signIn });
    next();
  };
}

/**
 * Whether the caller may read the token and change what chooses programs, paths and addresses: the
 * token or the desktop window's sign-in. A browser tab's sign-in may not — it ends with its hub and
 * proves it before every use, but a tab is where a page of another program can run on the same
 * origin. Answers 403, saying where to do it instead, when it may not.
 */
export function fullAccess(req: IncomingMessage, res: Response, what: string): boolean {
  const access = accessOf(req);
  if (access && (access.kind === 'token' || access.signIn.kind === 'desktop')) return true;
  fail(res, 'NEEDS_TOKEN', `A browser's dashboard sign-in cannot ${what}. Do it in pincer-env.txt (in the data folder), in the Pincer tray app's dashboard, or with the token ("pincer token").`);
  return false;
}
