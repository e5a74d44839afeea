import type { RequestListener } from 'node:http';
import { hostOriginProblem, type GuardOptions } from '../access/security.js';
import { sendJson, sendRpcError } from '../access/respond.js';
import { VERSION } from '../core/version.js';
import { connectionAddress } from '../core/hub-proof.js';
import type { Runtime } from '../calls/runtime.js';
import type { SessionTable } from '../access/sessions.js';

export const HEALTH_PATH = '/api/mcp/health';

export interface HealthDeps {
  guard: GuardOptions;
  runtime: Runtime;
  sessions: SessionTable;
  startedAt: number;
  /**
   * The hub's proof of identity for `?challenge=` (identity.ts): who answers, for `pincer stop`/`status` and a newcomer;
   * `address` is where this connection reached the hub (hub-proof.ts connectionAddress), which the bound proof covers.
   */
  identify: (challenge: string | undefined, address: string) => object | undefined;
}

/**
 * `GET /api/mcp/health` without express: every bridge asks it before it opens its pipe, and
 * `pincer status`, `stop` and a newcomer hub ask it too, so answering it must not load the
 * express app (lazy-app.ts). It says nothing secret: the one route without the token, behind the
 * same Host/Origin check as every other. Anything else goes on to `next`.
 */
export function healthRoute(deps: HealthDeps, next: RequestListener): RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if ((q < 0 ? url : url.slice(0, q)) !== HEALTH_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return next(req, res);
    const refused = hostOriginProblem(req.headers, deps.guard);
    if (refused) return sendRpcError(res, refused.status, refused.code, refused.message);
    const challenge = q < 0 ? undefined : (new URLSearchParams(url.slice(q + 1)).get('challenge') ?? undefined);
    const { registry } = deps.runtime;
    sendJson(res, 200, {
      success: true,
      status: 'healthy',
      name: 'pincer',
      version: VERSION,
      uptime: Math.round((Date.now() - deps.startedAt) / 1000),
      toolsCount: registry.visible().length,
      paused: registry.servingPaused(),
      sessions: deps.sessions.size,
      ...deps.identify(challenge, connectionAddress(req.socket.localAddress, req.socket.localPort)),
    });
  };
}
