import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { McpServer } from '@modelcontextprotocol/server';
import { SessionTable } from '../main/access/mcp-sessions.js';
import { EventBus } from '../main/calls/event-bus.js';
import { startHubProcess } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';

/** A session record as the table keeps one; the server is only asked who its client is. */
function session(id: string, closed: string[]) {
  const server = { server: { getClientVersion: () => ({ name: 'abandoned', version: '1' }) } } as unknown as McpServer;
  return { id, transport: 'streamable-http' as const, server, close: async () => void closed.push(id) };
}

test('at MAX_SESSIONS the session idle the longest gives way: first one never used after it opened, never one with a stream', () => {
  const closed: string[] = [];
  const table = new SessionTable(new EventBus(), { maxSessions: () => 3, maxStreams: () => 10, idleMs: () => 1_800_000 });
  const t0 = Date.now();
  for (const id of ['used', 'unused', 'streaming']) table.open(session(id, closed));
  table.touch('used');
  const done = table.openStream('streaming');
  // Full, and nothing has been idle long enough to give way.
  assert.equal(table.hasRoom(t0 + 1_000), false);
  // The one never used after it opened goes first, once idle 5 s.
  assert.equal(table.hasRoom(t0 + 6_000), true);
  assert.deepEqual(closed, ['unused']);
  table.open(session('new', closed));
  table.touch('new');
  // An idle session that was used gives way after a minute; the one holding a stream never does.
  assert.equal(table.hasRoom(t0 + 30_000), false);
  assert.equal(table.hasRoom(t0 + 61_000), true);
  assert.deepEqual(closed, ['unused', 'used']);
  assert.ok(table.get('streaming'));
  done();
});

test('the idle sweep closes a session that never came back after its handshake long before SESSION_IDLE_S', async () => {
  const closed: string[] = [];
  const table = new SessionTable(new EventBus(), { maxSessions: () => 10, maxStreams: () => 10, idleMs: () => 1_800_000 });
  table.open(session('abandoned', closed));
  table.open(session('in-use', closed));
  table.touch('in-use');
  assert.equal(await table.sweep(Date.now() + 6 * 60_000), 1);
  assert.deepEqual(closed, ['abandoned']);
});

test('a hub whose every session was opened and abandoned lets a new client in (no 503 for 30 minutes)', { timeout: 120_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { MAX_SESSIONS: '3' });
  const initialize = (name: string) =>
    fetch(`${hub.url}/mcp`, {
      method: 'POST',
      headers: hub.headers({ Accept: 'application/json, text/event-stream' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1' } } }),
    });
  try {
    const abandoned: string[] = [];
    let lastOpened = 0;
    for (let i = 0; i < 3; i++) {
      const res = await initialize(`abandoned-${i}`);
      assert.equal(res.status, 200);
      abandoned.push(res.headers.get('mcp-session-id')!);
      await res.text();
      lastOpened = Date.now();
    }
    const refused = await initialize('too-soon');
    assert.equal(refused.status, 503, 'at the cap, sessions only just opened keep their place');
    await refused.text();
    // Once they have been idle a few seconds (5 s unused), the longest idle gives way to the next client.
    await waitFor(() => Date.now() - lastOpened > 5_500, 'the abandoned sessions to have been idle 5.5 s');
    const admitted = await initialize('newcomer');
    assert.equal(admitted.status, 200);
    const sid = admitted.headers.get('mcp-session-id')!;
    await admitted.text();
    const list = await fetch(`${hub.url}/mcp`, { method: 'POST', headers: hub.headers({ Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' }), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    assert.equal(list.status, 200);
    await list.text();
    const evicted = await fetch(`${hub.url}/mcp`, { method: 'POST', headers: hub.headers({ Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': abandoned[0]!, 'MCP-Protocol-Version': '2025-11-25' }), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    assert.equal(evicted.status, 404, 'the longest idle of the abandoned sessions gave way');
    await evicted.text();
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
