import crypto from 'node:crypto';

/**
 * Where a hub serves its dashboard: an origin of its own, made for this hub process —
 * `http://<32 random hex>.pincer.localhost:<port>`. Browsers own an origin's storage, service workers
 * and HTTP cache per origin, and whoever binds a port serves every origin on it while the hub is away:
 * on a fixed origin (`http://127.0.0.1:7717`) a program holding the port for a moment could leave a
 * service worker that answers the dashboard's address for a day (measured in Chromium: with its
 * script cached, update checks never reach the hub). An origin that no later hub uses leaves that
 * program nothing to come back to. Chromium and Firefox resolve `*.localhost` to loopback themselves
 * (WebKit does not: Safari uses the IP address, README), trying `::1` first — so this origin is used
 * only when the hub also holds `[::1]` on its port, or the machine has no `::1` (hub.ts): otherwise
 * another user's program on `[::1]:<port>` would be the one the browser reached.
 */
export function dashboardHost(): string {
  return `${crypto.randomBytes(16).toString('hex')}.pincer.localhost`;
}

export function originOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
