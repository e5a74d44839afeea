import type { IncomingMessage } from 'node:http';
import type { Request, Response, NextFunction } from 'express';
import type { Settings } from '../../core/settings/settings.js';
import { presentedToken, tokenProblem, unauthorizedHeaders } from '../../access/security.js';
import { sendRpcError } from '../../access/respond.js';
import { RPC_REFUSALS, rpcErrorBody } from '../../core/wire-errors.js';
import { fail } from './replies.js';
import { ANSWER_HEADER, REQUEST_HEADER, SESSION_HEADER, type DashboardSession, type DashboardSessions } from './sign-ins.js';

/** Who a dashboard API request speaks for: a holder of the token, or a signed-in dashboard. */
export type Caller = { kind: 'token' } | { kind: 'session'; session: DashboardSession };

const callers = new WeakMap<IncomingMessage, Caller>();

export function callerOf(req: IncomingMessage): Caller | undefined {
  return callers.get(req);
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The dashboard API's gate: the token, or a dashboard session's credential (sign-ins.ts). The MCP
 * endpoints, the compatibility routes and upgrades take the token only (express-app.ts), so a dashboard
 * session can never run a tool. A session's answer carries the MAC of the request id it sent, by
 * which the tab tells its hub's answers from anyone else's.
 */
export function tokenOrSession(settings: Settings, sessions: DashboardSessions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (presentedToken(req.headers) !== undefined) {
      const problem = tokenProblem(req.headers, settings);
      if (problem) return sendRpcError(res, problem.refusal, problem.message, { headers: unauthorizedHeaders(req.headers) });
      callers.set(req, { kind: 'token' });
      return next();
    }
    const session = sessions.authenticate(req.headers);
    if (!session) {
      const tried = first(req.headers[SESSION_HEADER]) !== undefined;
      const message = tried
        ? 'Signed out: this dashboard session has ended (sign-out, 2 hours unused, 24 hours old, a token change, or the hub that signed it in has stopped). Run "pincer dashboard" to open a signed-in dashboard.'
        : 'Unauthorized: send the header "Authorization: Bearer <token>" (`pincer token` prints it), or sign in to the dashboard with "pincer dashboard".';
      // A JSON-RPC refusal, as the token's; its top-level code tells the tab an ended session from none.
      const { code, status } = RPC_REFUSALS.UNAUTHORIZED;
      res.status(status).set(unauthorizedHeaders(req.headers)).json({ ...rpcErrorBody(code, message), code: tried ? 'SESSION_ENDED' : 'UNAUTHORIZED' });
      return;
    }
    const answer = sessions.answer(session, first(req.headers[REQUEST_HEADER]) ?? '');
    if (answer) res.setHeader(ANSWER_HEADER, answer);
    res.setHeader('Cache-Control', 'no-store');
    callers.set(req, { kind: 'session', session });
    next();
  };
}

/**
 * Whether the caller may read the token and change what chooses programs, paths and addresses: the
 * token or the desktop window's session. A browser tab's session may not — it ends with its hub and
 * proves it before every use, but a tab is where a page of another program can run on the same
 * origin. Answers 403, saying where to do it instead, when it may not.
 */
export function fullAccess(req: IncomingMessage, res: Response, what: string): boolean {
  const caller = callerOf(req);
  if (caller && (caller.kind === 'token' || caller.session.kind === 'desktop')) return true;
  fail(res, 'NEEDS_TOKEN', `A browser's dashboard session cannot ${what}. Do it in pincer-env.txt (in the data folder), in the Pincer tray app's dashboard, or with the token ("pincer token").`);
  return false;
}
