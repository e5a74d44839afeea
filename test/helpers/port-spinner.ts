import net from 'node:net';

/**
 * Another user's program that wants a port: `node port-spinner.js <port> <seconds>`, run as another
 * uid. It tries to bind the port on 127.0.0.1 and on ::1 as fast as it can (a new attempt the moment
 * one fails) for <seconds>, prints `spinning` once it has started, and `took v4|v6 <ms since start>`
 * each time it gets one; what it takes it keeps, as a real squatter would. At the end it prints
 * `attempts <n>` and exits.
 */
const [portText, secondsText] = process.argv.slice(2);
const port = Number(portText);
const start = Date.now();
const until = start + Number(secondsText ?? '60') * 1000;
let attempts = 0;
let running = 2;

function spin(family: 'v4' | 'v6', host: string): void {
  const server = net.createServer((socket) => socket.destroy());
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'EAFNOSUPPORT' || Date.now() > until) return done();
    setImmediate(attempt);
  });
  server.on('listening', () => {
    process.stdout.write(`took ${family} ${Date.now() - start}\n`);
    done();
  });
  const attempt = () => {
    attempts++;
    server.listen({ port, host, exclusive: true });
  };
  attempt();
}

function done(): void {
  if (--running === 0) {
    process.stdout.write(`attempts ${attempts}\n`);
    // What it took it keeps until the test ends it.
  }
}

process.stdout.write('spinning\n');
spin('v4', '127.0.0.1');
spin('v6', '::1');
setTimeout(() => process.exit(0), Math.max(0, until - Date.now()) + 30_000).unref();
