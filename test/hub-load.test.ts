import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, rssOf } from './helpers/hub.js';
import { tempHome, waitFor, pidAlive } from './helpers/env.js';
import { textOf } from './helpers/clients.js';

/** The hub's health as the token sees it (an unauthenticated caller is told liveness only). */
async function health(url: string, token: string): Promise<{ sessions: number }> {
  const h = (await (await fetch(`${url}/api/mcp/health`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { sessions?: unknown };
  assert.equal(typeof h.sessions, 'number', 'health gives the token the session count');
  return h as { sessions: number };
}

async function session(url: string, token: string, i: number): Promise<string> {
  const client = new Client({ name: `load-${i}`, version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  const r = await client.callTool({ name: 'Bash', arguments: { command: `echo session-${i}` } });
  const list = await client.callTool({ name: 'ListBgTasks', arguments: {} });
  assert.notEqual(list.isError, true);
  await transport.terminateSession();
  await client.close();
  return textOf(r);
}

test('50 concurrent sessions all get their own answers; afterwards sessions and memory return to where they were', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    // Warm up once so the baseline includes lazily loaded code.
    await session(hub.url, hub.token, -1);
    await waitFor(async () => (await health(hub.url, hub.token)).sessions === 0, 'the warm-up session to close');
    const before = { sessions: (await health(hub.url, hub.token)).sessions, rss: rssOf(hub.child.pid!) };
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => session(hub.url, hub.token, i)));
      answers.forEach((a, i) => assert.equal(a, `session-${i}`));
    }
    await waitFor(async () => (await health(hub.url, hub.token)).sessions === before.sessions, 'the session count to return to its baseline');
    // What the sessions took is given back: RSS comes within 48 MB of the baseline (at once on an idle machine).
    await waitFor(() => rssOf(hub.child.pid!) - before.rss < 48 * 1024 * 1024, `the hub's RSS to come within 48 MB of its baseline (${(before.rss / 1048576).toFixed(1)} MB) after 100 sessions`);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('idle sessions are expired after SESSION_IDLE_S', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { SESSION_IDLE_S: '1' });
  try {
    const client = new Client({ name: 'idle', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } });
    await client.connect(transport);
    const sid = transport.sessionId!;
    // Close the standalone GET stream so the session has nothing open.
    await transport.close();
    await waitFor(async () => (await health(hub.url, hub.token)).sessions === 0, 'the idle session to be closed');
    const res = await fetch(`${hub.url}/mcp`, { method: 'POST', headers: hub.headers({ 'Mcp-Session-Id': sid, Accept: 'application/json, text/event-stream' }), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.equal(res.status, 404);
    assert.match((await res.json()).error.message, /expired or the hub restarted/);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('SIGTERM shuts the hub down cleanly: lock released, hub.json removed, background jobs keep running', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const started = await (await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'BackgroundBash', arguments: { command: 'sleep 300' } }) })).json();
  const pid = started.structuredContent.pid as number;
  const running = path.join(h.home, 'inflight-started');
  const inflight = fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'Bash', arguments: { command: `touch ${running}; sleep 30` } } }) }).then((r) => r.status, () => -1);
  await waitFor(() => fs.existsSync(running), 'the call to be in flight');
  await hub.stop('SIGTERM');
  assert.equal(hub.child.exitCode, 0);
  assert.equal(fs.existsSync(path.join(h.home, 'hub.json')), false);
  // hub.lock stays on disk (an OS lock on it is what counts): the next hub can take it at once.
  const { tryHubLock } = await import('../main/hub/lock.js');
  const { pincerPaths } = await import('../main/core/paths.js');
  const lock = tryHubLock(pincerPaths(h.home));
  assert.ok(lock, 'the lock is free');
  lock.release();
  assert.ok(pidAlive(pid), 'the background job outlived the hub');
  await inflight;
  process.kill(-pid, 'SIGKILL');
  h.cleanup();
});
