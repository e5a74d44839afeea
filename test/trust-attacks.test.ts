import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, tokenOf } from './helpers/hub.js';
import { tempHome, sleep, quietFor, settles, waitFor, PINCER_BIN, pincerEnv, WAIT_MS } from './helpers/env.js';
import { connectV2, textOf } from './helpers/clients.js';

// The trust boundary, written as the attacks: each test is one way in or one way down that must stay shut.

/** Sends raw bytes and resolves with everything the hub answered until it closed the socket (or WAIT_MS ran out: `closed` says which). */
function rawExchange(port: number, payload: string, waitMs = WAIT_MS): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let text = '';
    const t = setTimeout(() => {
      s.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    s.on('data', (d) => (text += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(t);
      resolve({ text, closed: true });
    });
    s.write(payload);
  });
}

test('a malformed cookie on the WebSocket upgrade (and on HTTP) is refused, and the hub keeps running', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    for (const cookie of ['pincer_token=%', 'pincer_token=%E0%A4%A', 'pincer_token', '=;;==%', `pincer_token=${'%'.repeat(5000)}`]) {
      const r = await rawExchange(hub.port, `GET /mcp/ws HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: ${cookie}\r\n\r\n`);
      assert.match(r.text, /^HTTP\/1\.1 (400|401)/, `upgrade with cookie ${cookie.slice(0, 30)} answered ${r.text.slice(0, 40)}`);
      const http = await fetch(`${hub.url}/api/overview`, { headers: { Cookie: cookie } });
      assert.ok(http.status === 400 || http.status === 401, `HTTP with cookie ${cookie.slice(0, 30)} answered ${http.status}`);
    }
    assert.equal(hub.child.exitCode, null, 'the hub is still running');
    const health = await fetch(`${hub.url}/api/mcp/health`);
    assert.equal(health.status, 200);
    const call = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'ListBgTasks', arguments: {} }) });
    assert.equal(call.status, 200);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('pincer token rotate closes the WebSocket, the event stream and the MCP session opened with the old token', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const oldToken = hub.token;
  try {
    // A WebSocket that can run Bash.
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/mcp/ws`, { headers: { Authorization: `Bearer ${oldToken}` } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const wsClosed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    const answer = new Promise<string>((resolve) => ws.once('message', (d) => resolve(d.toString())));
    ws.send(JSON.stringify({ type: 'call_tool', requestId: 'r1', name: 'Bash', arguments: { command: 'echo before-rotation' } }));
    assert.match(await answer, /before-rotation/);

    // The live event stream.
    const events = await fetch(`${hub.url}/api/mcp/connect`, { headers: { Authorization: `Bearer ${oldToken}` } });
    assert.equal(events.status, 200);
    const reader = events.body!.getReader();
    const streamEnded = (async () => {
      for (;;) {
        const { done } = await reader.read();
        if (done) return true;
      }
    })();

    // A Streamable HTTP session of the official client.
    const client = new Client({ name: 'rotation-test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${oldToken}` } } });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    assert.ok(sessionId);

    const rotate = spawnSync(process.execPath, [PINCER_BIN, 'token', 'rotate'], { env: pincerEnv(h.home), encoding: 'utf8' });
    assert.equal(rotate.status, 0, rotate.stderr);
    const newToken = await waitFor(() => {
      const t = tokenOf(h.home);
      return t !== oldToken ? t : undefined;
    }, 'the new token in the settings file');

    assert.equal(await settles(wsClosed, 'the hub to close the WebSocket'), 4001, 'the WebSocket is closed by the hub');
    assert.equal(await settles(streamEnded, 'the hub to end the event stream'), true, 'the event stream is ended by the hub');
    // The old session is gone whatever token comes with it; the old token opens nothing new.
    const reuse = await fetch(`${hub.url}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${newToken}`, 'Mcp-Session-Id': sessionId, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }) });
    assert.equal(reuse.status, 404);
    const old = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: { Authorization: `Bearer ${oldToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Bash', arguments: { command: 'echo old' } }) });
    assert.equal(old.status, 401);
    const refused = await new Promise<string>((resolve) => {
      const again = new WebSocket(`ws://127.0.0.1:${hub.port}/mcp/ws`, { headers: { Authorization: `Bearer ${oldToken}` } });
      again.once('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
      again.once('open', () => resolve('open'));
      again.once('error', () => undefined);
    });
    assert.equal(refused, '401');
    await client.close().catch(() => undefined);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a thousand half-open sockets from one local process do not keep a real client from its tools/call (it is served while they are held open)', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const sockets: net.Socket[] = [];
  let closed = 0;
  try {
    for (let i = 0; i < 1000; i++) {
      const s = net.connect(hub.port, '127.0.0.1');
      s.on('error', () => undefined);
      s.on('close', () => closed++);
      sockets.push(s);
      // Half of them start a request and never finish it.
      if (i % 2) s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\n`);
      if (i % 100 === 99) await sleep(10);
    }
    await quietFor(300, 'the burst accepted by the hub meanwhile; accepted later, it would only let the client in more easily');
    const client = new Client({ name: 'flood-victim', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } });
    const started = Date.now();
    await client.connect(transport);
    const result = await client.callTool({ name: 'Bash', arguments: { command: 'echo served' } });
    const closedByThen = closed;
    assert.match(textOf(result), /served/);
    // Served because the hub serves others beside such sockets, not because it waited them out (headersTimeout
    // closes them after 15 s): most of them are still open. How long it took is the bench's business, not a bound here.
    assert.ok(closedByThen < sockets.length / 2, `the real client was served only after ${closedByThen} of the ${sockets.length} sockets had been closed`);
    console.log(`# the real client was served in ${Date.now() - started} ms beside ${sockets.length - closedByThen} open half-open sockets`);
    await client.close();
  } finally {
    for (const s of sockets) s.destroy();
    await hub.stop();
    h.cleanup();
  }
});

test('an unauthenticated upload gets its 401 and the connection is closed without reading the body', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const r = await rawExchange(hub.port, `POST /api/mcp/jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\n\r\n{"jsonrpc":`);
    assert.match(r.text, /^HTTP\/1\.1 401/);
    assert.equal(r.closed, true, 'the hub closed the connection instead of waiting for 3 MB');
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a pincer.db deleted under the running hub is noticed: calls fail with a clear message, nothing is acknowledged into the void', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const call = async (args: Record<string, unknown>) =>
    (await (await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'TaskManager', arguments: args }) })).json()) as { isError: boolean; content: { text: string }[]; error?: { code: string; message: string } };
  try {
    const created = await call({ action: 'create', text: 'before the deletion' });
    assert.equal(created.isError, false);
    for (const f of ['pincer.db', 'pincer.db-wal', 'pincer.db-shm']) fs.rmSync(path.join(h.home, f), { force: true });
    const after = await call({ action: 'create', text: 'after the deletion' });
    assert.equal(after.isError, true);
    assert.equal(after.error?.code, 'STORE_UNAVAILABLE');
    assert.match(after.error!.message, /pincer\.db was deleted while Pincer was running.*Restart Pincer/);
    assert.equal(hub.child.exitCode, null, 'the hub still runs and says so on health');
    assert.equal((await fetch(`${hub.url}/api/mcp/health`)).status, 200);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a pincer.db replaced or deleted under a standalone pincer: a read answers from the file that was opened, the next write is refused with the reason, and so is every call after it', async () => {
  for (const how of ['replaced', 'deleted'] as const) {
    const h = tempHome();
    const { client } = await connectV2({ home: h.home });
    try {
      // Writes in a row with the file in place: each looks it up first.
      for (let i = 0; i < 3; i++) assert.ok(!(await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: `before ${i}` } })).isError);
      const db = path.join(h.home, 'pincer.db');
      if (how === 'replaced') {
        fs.copyFileSync(db, path.join(h.home, 'copy.db'));
        fs.renameSync(path.join(h.home, 'copy.db'), db);
      } else {
        fs.rmSync(db);
      }
      const reason = new RegExp(`pincer\\.db was ${how === 'replaced' ? 'replaced by another file' : 'deleted'} while Pincer was running.*Restart Pincer`);
      // Reading looks nothing up: it answers what the opened file holds (nothing is written, nothing lost).
      const read = await client.callTool({ name: 'TaskManager', arguments: { action: 'list' } });
      assert.ok(!read.isError, textOf(read));
      assert.match(textOf(read), /before 2/);
      const after = await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: 'after' } });
      assert.equal(after.isError, true, how);
      assert.match(textOf(after), reason);
      const later = await client.callTool({ name: 'ListBgTasks', arguments: {} });
      assert.equal(later.isError, true, 'once found, every call says so');
      assert.match(textOf(later), reason);
    } finally {
      await client.close();
      h.cleanup();
    }
  }
});

test('a pincer.db deleted under an idle standalone pincer is found by its check every second: a later call, a read, says so', async () => {
  const h = tempHome();
  const { client } = await connectV2({ home: h.home });
  try {
    assert.ok(!(await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: 'kept' } })).isError);
    fs.rmSync(path.join(h.home, 'pincer.db'));
    // Reads never look at the file themselves: only the periodic check can make one say so.
    const read = await waitFor(async () => {
      const r = await client.callTool({ name: 'ListBgTasks', arguments: {} });
      return r.isError ? r : undefined;
    }, 'a read to report the deleted database');
    assert.equal(read.isError, true);
    assert.match(textOf(read), /pincer\.db was deleted while Pincer was running.*Restart Pincer/);
  } finally {
    await client.close();
    h.cleanup();
  }
});

test('a Bash call that finished while Pincer was suspended past its timeout reports its real exit', async () => {
  const h = tempHome();
  const { client, transport } = await connectV2({ home: h.home });
  try {
    const started = path.join(h.home, 'started');
    const done = path.join(h.home, 'done');
    const pending = client.callTool({ name: 'Bash', arguments: { command: `touch ${started}; sleep 0.3; echo finished-in-time; touch ${done}`, timeout: 1000 } });
    await waitFor(() => fs.existsSync(started), 'the command to start');
    const pid = transport.pid!;
    process.kill(pid, 'SIGSTOP');
    const stoppedAt = Date.now();
    // The command ends, and the call's timeout passes, while Pincer is held.
    await waitFor(() => fs.existsSync(done) && Date.now() - stoppedAt > 2000, 'the command to finish and its call\'s 1 s timeout to pass while Pincer is stopped');
    process.kill(pid, 'SIGCONT');
    const result = (await pending) as { structuredContent: { exit_code: number | null; timed_out: boolean } };
    assert.match(textOf(result), /finished-in-time/);
    assert.equal(result.structuredContent.timed_out, false);
    assert.equal(result.structuredContent.exit_code, 0);
  } finally {
    await client.close();
    h.cleanup();
  }
});

test('200 sessions open at once: no MaxListenersExceededWarning, and all of them close cleanly', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { PINCER_LOG_LEVEL: 'info' });
  const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];
  let heard = 0;
  try {
    for (let i = 0; i < 200; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const client = new Client({ name: `many-${i}`, version: '1' });
          client.setNotificationHandler('notifications/tools/list_changed', () => void heard++);
          const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } });
          await client.connect(transport);
          clients.push({ client, transport });
        }),
      );
    }
    // A change every session hears of.
    fs.appendFileSync(path.join(h.home, 'pincer-env.txt'), 'TOOL_WEBSEARCH=false\n');
    await waitFor(() => heard >= 200, 'every session to hear tools/list_changed');
    // Counts are told to the token only (an unauthenticated caller learns liveness and the identity proof).
    assert.equal((await (await fetch(`${hub.url}/api/mcp/health`, { headers: { Authorization: `Bearer ${hub.token}` } })).json()).sessions, 200);
    assert.doesNotMatch(hub.stderr(), /MaxListenersExceededWarning/);
    // Each client ends its session (DELETE /mcp), as a well-behaved client does on exit.
    await Promise.all(clients.splice(0).map(async (c) => {
      await c.transport.terminateSession();
      await c.client.close();
    }));
    await waitFor(async () => (await (await fetch(`${hub.url}/api/mcp/health`, { headers: { Authorization: `Bearer ${hub.token}` } })).json()).sessions === 0, 'every session to close');
  } finally {
    await Promise.all(clients.map((c) => c.client.close().catch(() => undefined)));
    await hub.stop();
    h.cleanup();
  }
});

