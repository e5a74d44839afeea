import express from 'express';
import path from 'node:path';
import { z } from 'zod';
import { PACKAGE_ROOT } from '../core/version.js';
import { tokensEqual, jsonRpcErrorBody } from '../access/security.js';
import type { DashboardSessions } from './dashboard/sessions.js';
import type { Settings } from '../core/settings/settings.js';

/** The dashboard's own CSP: nothing but this origin, no inline script or style, no framing. */
export const DASHBOARD_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const LoginBody = z.object({ token: z.string().max(1024) });

function securityHeaders(res: express.Response): void {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/**
 * The dashboard's files (they hold nothing secret, so no token is needed to
 * load the sign-in page) and the sign-in that trades the token for a session.
 * The bundle is served by express.static with ETags: a reload revalidates
 * (304) instead of downloading it again.
 */
export function dashboardStatic(settings: Settings, sessions: DashboardSessions): express.Router {
  const r = express.Router();
  const htmlDir = path.join(PACKAGE_ROOT, 'renderer');
  const bundleDir = path.join(PACKAGE_ROOT, 'dist', 'renderer');
  const serve = (dir: string, opts: { index?: string | false } = {}) =>
    express.static(dir, {
      index: opts.index ?? false,
      etag: true,
      lastModified: true,
      dotfiles: 'ignore',
      fallthrough: true,
      setHeaders: (res) => {
        securityHeaders(res);
        res.setHeader('Cache-Control', 'no-cache');
      },
    });
  r.use('/assets', serve(bundleDir));
  r.get(['/', '/index.html', '/icon.svg'], serve(htmlDir, { index: 'index.html' }));

  r.post('/api/login', express.json({ limit: '4kb' }), (req, res) => {
    const body = LoginBody.safeParse(req.body);
    if (!body.success) {
      res.status(400).json(jsonRpcErrorBody(-32602, 'Send {"token": "<the hub token>"} as JSON. Run "pincer token" to print it.'));
      return;
    }
    if (!tokensEqual(body.data.token.trim(), settings.get('AUTH_TOKEN'))) {
      res.status(401).json(jsonRpcErrorBody(-32001, 'That is not the token. Run "pincer token" to print it.'));
      return;
    }
    let session: { id: string; key: string; cookieName: string };
    try {
      session = sessions.create();
    } catch (err) {
      // A read-only or vanished pincer.db cannot hold the session: say so instead of a bare 500.
      res.status(503).json(jsonRpcErrorBody(-32000, `Could not start a dashboard session: ${(err as Error).message}. Check that pincer.db in the data directory is writable.`));
      return;
    }
    res.setHeader('Set-Cookie', sessions.setCookie(session));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, key: session.key });
  });
  /** Whether this browser is signed in, answered without a 401 so a fresh page logs no error. */
  r.get('/api/session', (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ signedIn: sessions.authenticated(req.headers) !== undefined });
  });
  r.post('/api/logout', (req, res) => {
    // Neither the session nor the browser's cookie is touched without the key: a cookie alone proves nothing.
    const clear = sessions.clearCookie(req.headers);
    if (!sessions.revokeFrom(req.headers) || !clear) {
      res.status(401).json({ success: false, error: { code: 'UNAUTHORIZED', message: 'Sign-out needs the session: the cookie and its key (the X-Pincer-Session-Key header the dashboard sends).' } });
      return;
    }
    res.setHeader('Set-Cookie', clear);
    res.json({ success: true });
  });
  return r;
}
