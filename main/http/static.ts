import express from 'express';
import path from 'node:path';
import fs from 'node:fs';
import { PACKAGE_ROOT } from '../core/version.js';
import { tokensEqual, jsonRpcErrorBody } from './security.js';
import { sessionCookie } from './dashboard-api.js';
import type { Settings } from '../core/settings/settings.js';

/** The dashboard's own CSP: nothing but this origin, no inline script, no framing. */
export const DASHBOARD_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * The dashboard's files (they hold nothing secret, so no token is needed to
 * load the login page) and the login that turns the token into a cookie.
 */
export function dashboardStatic(settings: Settings): express.Router {
  const r = express.Router();
  const htmlDir = path.join(PACKAGE_ROOT, 'renderer');
  const jsDir = path.join(PACKAGE_ROOT, 'dist', 'renderer');
  const headers = (res: express.Response) => {
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
  };
  r.get(['/', '/index.html'], (_req, res) => {
    headers(res);
    res.type('html').send(fs.readFileSync(path.join(htmlDir, 'index.html')));
  });
  r.get('/style.css', (_req, res) => {
    headers(res);
    res.type('css').send(fs.readFileSync(path.join(htmlDir, 'style.css')));
  });
  r.get('/icon.svg', (_req, res) => {
    headers(res);
    res.type('image/svg+xml').send(fs.readFileSync(path.join(htmlDir, 'icon.svg')));
  });
  r.get(/^\/js\/([a-z0-9-]+)\.js$/, (req, res) => {
    const file = path.join(jsDir, `${(req.params as unknown as string[])[0]}.js`);
    if (!fs.existsSync(file)) {
      res.status(404).end();
      return;
    }
    headers(res);
    res.type('js').send(fs.readFileSync(file));
  });
  r.post('/api/login', express.json({ limit: '4kb' }), (req, res) => {
    const token = (req.body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string' || !tokensEqual(token.trim(), settings.get('AUTH_TOKEN'))) {
      res.status(401).json(jsonRpcErrorBody(-32001, 'That is not the token. Run "pincer token" to print it.'));
      return;
    }
    res.setHeader('Set-Cookie', sessionCookie(token.trim()));
    res.json({ success: true });
  });
  r.post('/api/logout', (_req, res) => {
    res.setHeader('Set-Cookie', 'pincer_token=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
    res.json({ success: true });
  });
  return r;
}
