import express from 'express';
import path from 'node:path';
import { PACKAGE_ROOT } from '../core/version.js';
import { DASHBOARD_HOST, hostnameOf } from '../access/security.js';
import { CLEAR_SITE_DATA } from './service-worker.js';

/** The dashboard's own CSP: nothing but this origin, no inline script or style, no framing. */
export const DASHBOARD_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";


function securityHeaders(res: express.Response): void {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  // No page of another program on this origin may script the dashboard's window: not as its opener, not as its frame.
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
}

export interface DashboardPlace {
  /** The dashboard's own origin, `http://<label>.pincer.localhost:<port>` (http/dashboard/origin.ts), or the hub's URL without one. */
  url: () => string;
}

/**
 * The dashboard's files: they hold nothing secret, so no token is needed to load the page. The
 * page itself is served only at the dashboard's own origin; any other name of the hub (its IP
 * address, `localhost`, an earlier hub's dashboard origin) is sent there, clearing what another
 * program may have left on the origin it came from. The bundle is served by express.static with
 * ETags: a reload revalidates (304) instead of downloading it again.
 */
export function dashboardStatic(place: DashboardPlace): express.Router {
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
  r.get('/icon.svg', serve(htmlDir));
  const page = serve(htmlDir, { index: 'index.html' });
  r.get(['/', '/index.html'], (req, res, next) => {
    const home = new URL(place.url());
    const here = hostnameOf(req.headers.host ?? '');
    // `?here`: a browser that cannot reach `*.localhost` names (Safari) asked for the hub's own address (dashboard-link.ts).
    if (here !== home.hostname.toLowerCase() && req.query.here === undefined) {
      securityHeaders(res);
      res.setHeader('Clear-Site-Data', CLEAR_SITE_DATA);
      res.setHeader('Cache-Control', 'no-store');
      return res.redirect(307, `${home.origin}${req.originalUrl}`);
    }
    // Not this hub process's own origin: another program may have left something there while it held the port.
    if (!DASHBOARD_HOST.test(here)) res.setHeader('Clear-Site-Data', CLEAR_SITE_DATA);
    page(req, res, next);
  });
  return r;
}
