import type { RequestListener } from 'node:http';
import { hostOriginProblem, tokenProblem, presentedToken, type GuardOptions } from '../access/security.js';
import { sendJson, sendRpcError } from '../access/respond.js';
import { VERSION } from '../core/version.js';
import { connectionAddress, detailsAsker, sameMac } from '../core/hub-proof.js';
import type { Runtime } from '../calls/runtime.js';
import type { SessionTable } from '../access/mcp-sessions.js';

export const HEALTH_PATH = '/api/mcp/health';

export interface HealthDeps {
  guard: GuardOptions;
  runtime: Runtime;
  sessions: SessionTable;
  startedAt: number;
  /** This data folder's hub-secret: a probe that proves it reads it (detailsAsker) is told the details too. */
  secret: Buffer;
  /**
   * The hub's proof of identity for `?challenge=` (identity.ts): who answers, for `pincer stop`/`status` and a newcomer;
   * `address` is where this connection reached the hub (hub-proof.ts connectionAddress), which the bound proof covers.
   */
  identify: (challenge: string | undefined, address: string) => object | undefined;
}

/**
 * `GET /api/mcp/health` without express: every bridge asks it before it opens its pipe, and
 * `pincer status`, `stop` and a newcomer hub ask it too, so answering it must not load the
 * express app (lazy-app.ts). It is the one route without the token, behind the same Host/Origin
 * check as every other, and says only that the hub is alive and, asked with a challenge, who it is:
 * how many sessions are open, how many tools and whether serving is paused — what would tell
 * another local user when a dashboard is in use — only to a holder of the token or of hub-secret
 * (`?challenge=…&asker=HMAC(hub-secret, challenge)`, what `pincer status` sends).
 */
export function healthRoute(deps: HealthDeps, next: RequestListener): RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if ((q < 0 ? url : url.slice(0, q)) !== HEALTH_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return next(req, res);
    const refused = hostOriginProblem(req.headers, deps.guard);
    if (refused) return sendRpcError(res, refused.refusal, refused.message);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    const challenge = query.get('challenge') ?? undefined;
    const asker = query.get('asker');
    const byToken = presentedToken(req.headers) !== undefined && !tokenProblem(req.headers, deps.runtime.settings);
    const bySecret = challenge !== undefined && asker !== null && sameMac(asker, detailsAsker(deps.secret, challenge));
    const { registry } = deps.runtime;
    sendJson(res, 200, {
      success: true,
      status: 'healthy',
      name: 'pincer',
      version: VERSION,
      ...(byToken || bySecret ? { uptime: Math.round((Date.now() - deps.startedAt) / 1000), toolsCount: registry.visible().length, paused: registry.servingPaused(), sessions: deps.sessions.size } : {}),
      ...deps.identify(challenge, connectionAddress(req.socket.localAddress, req.socket.localPort)),
    });
  };
}
