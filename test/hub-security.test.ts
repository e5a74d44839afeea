import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import WebSocket from 'ws';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { tempHome, WAIT_MS } from './helpers/env.js';

/** A raw request, so that Host and Origin can be anything a browser or attacker would send. */
function raw(port: number, opts: { method?: string; path: string; headers: Record<string, string>; body?: string | Buffer }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers, setHost: !('Host' in opts.headers) }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve({ status: -1, body: String(err) }) : reject(err)));
    if (opts.body) req.end(opts.body);
    else req.end();
  });
}

describe('the hub refuses what a hostile page or process sends, before any tool runs', () => {
  const h = tempHome();
  let hub: HubProcess;
  let marker: string;
  const attack = () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command: `touch ${marker}` } } });

  before(async () => {
    hub = await startHubProcess(h.home);
    marker = path.join(h.home, 'pwned');
  });
  after(async () => {
    await hub.stop();
    h.cleanup();
  });

  test('no token or a wrong token: 401 with a JSON-RPC error body, on every endpoint but health', async () => {
    for (const [method, p] of [['POST', '/mcp'], ['POST', '/api/mcp/jsonrpc'], ['POST', '/api/mcp/jsonrpc/shell'], ['GET', '/sse'], ['GET', '/api/mcp/tools'], ['POST', '/api/mcp/tools/call'], ['GET', '/api/mcp/connect']] as const) {
      for (const auth of [{}, { Authorization: "Bearer wrong" }, { Authorization: `Bearer ${hub.token}x` }, { Authorization: hub.token }] as Record<string, string>[]) {
        const r = await raw(hub.port, { method, path: p, headers: { 'Content-Type': 'application/json', ...auth }, body: method === 'POST' ? attack() : undefined });
        assert.equal(r.status, 401, `${method} ${p} with ${JSON.stringify(auth)}`);
        const body = JSON.parse(r.body);
        assert.equal(body.jsonrpc, '2.0');
        assert.equal(body.error.code, -32001);
        assert.match(body.error.message, /Unauthorized/);
      }
    }
    const health = await raw(hub.port, { path: '/api/mcp/health', headers: {} });
    assert.equal(health.status, 200);
  });

  test('a foreign Origin is 403, even with the right token', async () => {
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${hub.port + 1}`, 'https://localhost']) {
      const r = await raw(hub.port, { method: 'POST', path: '/api/mcp/jsonrpc', headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json', Origin: origin }, body: attack() });
      assert.equal(r.status, 403, origin);
      assert.match(JSON.parse(r.body).error.message, /origin .* not allowed/);
    }
    const own = await raw(hub.port, { path: '/api/mcp/tools', headers: { Authorization: `Bearer ${hub.token}`, Origin: `http://127.0.0.1:${hub.port}` } });
    assert.equal(own.status, 200, "the hub's own origin (the dashboard) is allowed");
    assert.equal(own.body.includes('Access-Control-Allow-Origin'), false);
  });

  test('a non-local Host (DNS rebinding) is rejected', async () => {
    for (const host of ['evil.example', `evil.example:${hub.port}`, '192.168.1.10']) {
      const r = await raw(hub.port, { method: 'POST', path: '/api/mcp/jsonrpc', headers: { Host: host, Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json' }, body: attack() });
      assert.equal(r.status, 421, host);
    }
    const health = await raw(hub.port, { path: '/api/mcp/health', headers: { Host: 'evil.example' } });
    assert.equal(health.status, 421);
  });

  test('a 20 MB body is 413', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 0x20);
    const r = await raw(hub.port, { method: 'POST', path: '/api/mcp/jsonrpc', headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json', 'Content-Length': String(big.length) }, body: big });
    assert.ok(r.status === 413 || r.status === -1, `got ${r.status}`);
    if (r.status === 413) assert.match(JSON.parse(r.body).error.message, /larger than MAX_BODY_BYTES/);
    const chunked = await new Promise<number>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: hub.port, method: 'POST', path: '/mcp', headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', () => resolve(-1));
      for (let i = 0; i < 20; i++) req.write(Buffer.alloc(1024 * 1024, 0x20));
      req.end();
    });
    assert.ok(chunked === 413 || chunked === -1, `chunked upload got ${chunked}`);
  });

  test('WebSocket upgrades obey the same rules', async () => {
    const tryWs = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/mcp/ws`, { headers });
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
        ws.on('error', () => resolve(-1));
      });
    assert.equal(await tryWs({}), 401);
    assert.equal(await tryWs({ Authorization: `Bearer ${hub.token}`, Origin: 'http://evil.example' }), 403);
    assert.equal(await tryWs({ Authorization: `Bearer ${hub.token}` }), 101);
  });

  test('none of the refused requests reached a tool', async () => {
    assert.equal(fs.existsSync(marker), false);
    const list = await (await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'ListBgTasks', arguments: {} }) })).json();
    assert.deepEqual(list.structuredContent.tasks, []);
    const health = await (await fetch(`${hub.url}/api/mcp/health`)).json();
    assert.equal(health.status, 'healthy');
  });
});

test('paused serving: tool calls answer "serving is paused", tools/list is empty, health still works', async () => {
  const h = tempHome();
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), 'TOOLS=false\n');
  const hub = await startHubProcess(h.home);
  try {
    const call = await (await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'true' } } }) })).json();
    // One decision, one message, on every surface: a tool result the model can read.
    assert.equal(call.result.isError, true);
    assert.match(call.result.content[0].text, /serving is paused/);
    const list = await (await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })).json();
    assert.deepEqual(list.result.tools, []);
    const rest = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'Bash', arguments: { command: 'true' } }) });
    assert.equal(rest.status, 503);
    assert.equal((await rest.json()).error.code, 'SERVING_PAUSED');
    const health = await (await fetch(`${hub.url}/api/mcp/health`, { headers: hub.headers() })).json();
    assert.equal(health.paused, true);
    assert.equal(health.toolsCount, 0);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('binding to a non-loopback address needs HTTP_ALLOW_REMOTE', async () => {
  const h = tempHome();
  try {
    await assert.rejects(startHubProcess(h.home, { HTTP_HOST: '0.0.0.0' }), /HTTP_ALLOW_REMOTE=true/);
  } finally {
    h.cleanup();
  }
});

test('a second hub that may not take over (a bridge\'s) says where the first runs and exits non-zero', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const { spawnSync } = await import('node:child_process');
    const { PINCER_BIN, pincerEnv } = await import('./helpers/env.js');
    const second = spawnSync(process.execPath, [PINCER_BIN, 'serve', '--if-none'], { env: pincerEnv(h.home, { HTTP_PORT: 'auto' }), encoding: 'utf8', timeout: WAIT_MS });
    assert.notEqual(second.status, 0);
    assert.match(second.stderr, new RegExp(`already runs for this data directory at ${hub.url.replace(/[.]/g, '\\.')} \\(pid ${hub.child.pid}\\)`));
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a taken fixed port is a clear error naming the port and the program that holds it', async () => {
  const h = tempHome();
  const blocker = http.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as { port: number }).port;
  try {
    // The holder is this test process: named by its program and script, not by its main thread ("MainThread").
    const err = await startHubProcess(h.home, { HTTP_PORT: String(port) }).then(() => undefined, (e: Error) => e);
    assert.match(err?.message ?? '', new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*HTTP_PORT=auto`));
    if (process.platform === 'linux') {
      assert.match(err!.message, new RegExp(`in use by node (\\S+\\.js )?\\(pid ${process.pid}\\)`));
      assert.doesNotMatch(err!.message, /MainThread/);
    }
  } finally {
    blocker.close();
    h.cleanup();
  }
});
