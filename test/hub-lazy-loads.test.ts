import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, tokenOf } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';

// What a hub serving 2025-era sessions keeps out of memory (bench/RESULTS.md: idle hub, idle sessions): Node's
// bundled undici (loaded by the Request/Headers/fetch globals), perf_hooks (the `performance` global),
// the `ws` package until a WebSocket arrives and express until a route of its app (dashboard, REST,
// HTTP+SSE) is asked for — not by the health route every bridge asks first. The same checks then see each of them load when its real user comes, so they
// cannot pass by not looking.
const here = path.dirname(fileURLToPath(import.meta.url));
const DUMP = path.resolve(here, '..', '..', 'test', 'fixtures', 'preload', 'dump-loads.cjs');
const UNDICI = 'internal/deps/undici/undici';
const PERF_HOOKS = 'NativeModule perf_hooks';
const WS = `${path.sep}node_modules${path.sep}ws${path.sep}`;
const EXPRESS = `${path.sep}node_modules${path.sep}express${path.sep}`;

async function loadsOf(pid: number, file: string): Promise<string> {
  fs.rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  await waitFor(() => fs.existsSync(file), 'the hub to write what it loaded');
  return fs.readFileSync(file, 'utf8');
}

test('a hub serving 2025-era Streamable HTTP sessions loads neither undici, perf_hooks, ws nor express; a 2026-07-28 request, a WebSocket and a REST route load them', { skip: process.platform === 'win32' ? 'SIGUSR2' : false }, async () => {
  const h = tempHome();
  const file = path.join(h.home, 'loads.txt');
  const hub = await startHubProcess(h.home, { NODE_OPTIONS: `--require ${DUMP}`, PINCER_TEST_LOADS_FILE: file }, { probe: false });
  const token = tokenOf(h.home);
  const clients: Client[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const client = new Client({ name: 'lazy-loads', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients.push(client);
    }
    const listed = await clients[0]!.callTool({ name: 'ListBgTasks', arguments: {} });
    assert.equal(listed.isError, undefined);
    const quiet = await loadsOf(hub.child.pid!, file);
    assert.ok(quiet.includes('NativeModule http'), 'the dump lists what is loaded');
    assert.ok(!quiet.includes(UNDICI), 'undici stays unloaded while only 2025-era sessions are served');
    assert.ok(!quiet.includes(PERF_HOOKS), 'perf_hooks stays unloaded');
    assert.ok(!quiet.includes(WS), 'ws stays unloaded until a WebSocket arrives');
    assert.ok(!quiet.includes(EXPRESS), 'express stays unloaded while clients only use /mcp');

    const health = await fetch(`${hub.url}/api/mcp/health`);
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { status: string }).status, 'healthy');
    assert.ok(!(await loadsOf(hub.child.pid!, file)).includes(EXPRESS), 'the health route (every bridge asks it) does not load express');
    const tools = await fetch(`${hub.url}/api/mcp/tools`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(tools.status, 200);
    assert.ok(((await tools.json()) as { tools: unknown[] }).tools.length > 0);
    assert.ok((await loadsOf(hub.child.pid!, file)).includes(EXPRESS), 'the first request for a route of the app loads express');

    const modern = new Client({ name: 'lazy-loads-modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(modern);
    assert.equal((await modern.callTool({ name: 'ListBgTasks', arguments: {} })).isError, undefined);
    assert.ok((await loadsOf(hub.child.pid!, file)).includes(UNDICI), 'a 2026-07-28 request goes through the web Request the SDK handler takes');

    const ws = new WebSocket(`${hub.url.replace('http', 'ws')}/mcp/ws`, { headers: { Authorization: `Bearer ${token}` } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.close();
    assert.ok((await loadsOf(hub.child.pid!, file)).includes(WS), 'the first WebSocket loads ws');
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await hub.stop();
    h.cleanup();
  }
});
