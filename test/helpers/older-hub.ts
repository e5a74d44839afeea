// A hub of an older Pincer, as far as a current one can tell: `node older-hub.js <home>` takes the
// data folder's hub lock, listens on a port of its own, writes hub.json, answers the health probe with
// the unbound identity proof only (no `bound`), and hands over on a validly signed request — it
// answers 202, stops listening and lets go of the lock, as an older hub's handover does. It records
// every request line and header into <home>/../<name>-older.log and prints "listening <port>".
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pincerPaths } from '../../main/core/paths.js';
import { tryHubLock } from '../../main/hub/lock.js';
import { writeHubInfo } from '../../main/core/hub-file.js';
import { homeSecret, handoverSigned, HandoverRequest, identityProof } from '../../main/hub/identity.js';

const home = process.argv[2]!;
const paths = pincerPaths(home);
const record = path.join(home, '..', `${path.basename(home)}-older.log`);
const lock = tryHubLock(paths);
if (!lock) process.exit(3);
const secret = homeSecret(paths, true)!;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    fs.appendFileSync(record, `${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}\n`);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/api/mcp/health') {
      const c = url.searchParams.get('challenge');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ success: true, status: 'healthy', name: 'pincer', version: '0.0.9', ...(c && { hub: { pid: process.pid, role: 'headless', proof: identityProof(secret, c, process.pid) } }) }));
      return;
    }
    const asked = url.pathname === '/api/hub/handover' ? HandoverRequest.safeParse(JSON.parse(body || '{}')) : undefined;
    if (asked?.success && handoverSigned(secret, asked.data)) {
      res.writeHead(202, { 'Content-Type': 'application/json', Connection: 'close' });
      res.end('{"accepted":true}');
      server.close(() => {
        fs.rmSync(path.join(home, 'hub.json'), { force: true });
        lock.release();
        process.exit(0);
      });
      server.closeAllConnections();
      return;
    }
    res.writeHead(404).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  const port = (server.address() as { port: number }).port;
  writeHubInfo(paths, { url: `http://127.0.0.1:${port}`, port, pid: process.pid, started: new Date().toISOString(), version: '0.0.9', role: 'headless' });
  process.stdout.write(`listening ${port}\n`);
});
