import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * A process that is not Pincer and takes a hub's port the moment it is free:
 * `node squatter.js <port> <home> <record-file>`. It retries binding every
 * millisecond (for up to 30 s), then prints "bound <pid> hub.json=<yes|no>"
 * (whether the hub's hub.json still existed when the port became free) and
 * appends every byte any client sends it to the record file. It answers every
 * HTTP request the way a hub's health route would, with a forged proof, to
 * lure a client into trusting it.
 */
const [portText, home, record] = process.argv.slice(2);
const port = Number(portText);
// Its own end, should the test that started it not stop it: past any test's generous waits.
const until = Date.now() + 180_000;

const server = net.createServer((socket) => {
  let pending = '';
  socket.on('data', (chunk: Buffer) => {
    fs.appendFileSync(record!, chunk);
    pending += chunk.toString('latin1');
    let end;
    while ((end = pending.indexOf('\r\n\r\n')) >= 0) {
      pending = pending.slice(end + 4);
      const body = JSON.stringify({ success: true, status: 'healthy', name: 'pincer', hub: { pid: process.pid, role: 'headless', proof: 'forged-proof-forged-proof-forged-proof-xx' } });
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body}`);
    }
  });
  socket.on('error', () => undefined);
});

function tryBind(): void {
  server.listen(port, '127.0.0.1');
}
server.on('error', () => {
  if (Date.now() > until) process.exit(2);
  setTimeout(tryBind, 1);
});
server.once('listening', () => {
  const hubFile = fs.existsSync(path.join(home!, 'hub.json'));
  process.stdout.write(`bound ${process.pid} hub.json=${hubFile ? 'yes' : 'no'}\n`);
});
fs.writeFileSync(record!, '');
tryBind();
