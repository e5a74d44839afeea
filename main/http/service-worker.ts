import type { RequestListener } from 'node:http';

/**
 * What the hub clears on an origin that is not its dashboard's (or, without one of its own, on the
 * dashboard's page itself): a service worker, storage or cached pages another program left there while
 * it held the port. Chromium honours it on navigations, redirects and worker script fetches that reach the hub.
 */
export const CLEAR_SITE_DATA = '"cache", "storage"';

/**
 * A service worker that removes itself: the answer to every service worker script fetch (the browser
 * marks them `Service-Worker: script`; it checks a worker's script for updates about a second after
 * each navigation the worker answered). Pincer registers no worker, so any worker on a hub origin is
 * another program's, left while it held the port: the first update check that reaches the hub replaces
 * it with this one, which unregisters and reloads the pages it held — and Clear-Site-Data removes it
 * and the origin's storage too. (A worker whose script the browser keeps in its HTTP cache checks the
 * cache, not the hub, for up to a day: that is why the dashboard has an origin per hub process,
 * http/dashboard/origin.ts.)
 */
const KILL_SWITCH = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.registration.unregister().then(() => self.clients.matchAll()).then((cs) => cs.forEach((c) => c.navigate(c.url)))));
`;

export function serviceWorkerGuard(next: RequestListener): RequestListener {
  return (req, res) => {
    if (req.headers['service-worker'] !== 'script') return next(req, res);
    res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store', 'Clear-Site-Data': CLEAR_SITE_DATA, 'Content-Length': Buffer.byteLength(KILL_SWITCH) });
    res.end(KILL_SWITCH);
    req.resume();
  };
}
