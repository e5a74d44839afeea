import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startHubProcess } from '../helpers/hub.js';
import { tempHome, sleep } from '../helpers/env.js';

/** A request that must come back: the hub keeps serving others whatever the hostile sockets do. */
async function served(url: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${url}/api/mcp/tools/call`, { method: 'POST', headers, body: JSON.stringify({ name: 'ListBgTasks', arguments: {} }), signal: AbortSignal.timeout(10_000) });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { success: boolean }).success, true);
}

test('slowloris headers, slow bodies, half-open connections and oversized headers leave the hub serving others', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const sockets: net.Socket[] = [];
  const open = () => {
    const s = net.connect(hub.port, '127.0.0.1');
    s.on('error', () => undefined);
    sockets.push(s);
    return s;
  };
  try {
    // Half-open: connect, say nothing.
    for (let i = 0; i < 100; i++) open();
    // Slowloris: headers a few bytes at a time, never finished.
    const slow = Array.from({ length: 50 }, () => {
      const s = open();
      s.write(`GET /api/mcp/health HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\n`);
      return s;
    });
    const drip = setInterval(() => slow.forEach((s) => s.write('X-a: b\r\n')), 500);
    // Slow bodies: a declared body that trickles in.
    const bodies = Array.from({ length: 20 }, () => {
      const s = open();
      s.write(`POST /api/mcp/jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nAuthorization: Bearer ${hub.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
      return s;
    });
    const trickle = setInterval(() => bodies.forEach((s) => s.write(' ')), 300);
    for (let i = 0; i < 10; i++) {
      await served(hub.url, hub.headers());
      await sleep(200);
    }
    // Oversized headers: refused with 431, not a crash.
    const big = await new Promise<string>((resolve) => {
      const s = open();
      let out = '';
      s.on('data', (d) => (out += d));
      s.on('close', () => resolve(out));
      s.write(`GET /api/mcp/health HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    });
    assert.match(big, /^HTTP\/1\.1 431/);
    clearInterval(drip);
    clearInterval(trickle);
    await served(hub.url, hub.headers());
    assert.equal(hub.child.exitCode, null);
  } finally {
    for (const s of sockets) s.destroy();
    await hub.stop();
    h.cleanup();
  }
});
