import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startHubProcess, stopHubOf, tokenOf } from './helpers/hub.js';
import { connectV2, textOf, closeStdioClient } from './helpers/clients.js';
import { osFreePort } from './helpers/ports.js';
import { tempHome, pincerEnv, PINCER_BIN, waitFor } from './helpers/env.js';
import { openRawPipe, type PipeAttempt, type RawPipe } from './helpers/raw-pipe.js';
import { RawStdio } from './helpers/raw-stdio.js';

// /mcp/pipe, the bridge's channel, as an attacker on this machine would try it:
// every refusal comes with a JSON-RPC error body saying why, and nothing sent
// through it stops the hub or reaches past the checks /mcp makes.

function opened(a: PipeAttempt): RawPipe {
  assert.equal(a.status, 101, `expected 101, got ${a.status}: ${'body' in a ? a.body : ''}`);
  return (a as { pipe: RawPipe }).pipe;
}

function refusal(a: PipeAttempt): { status: number; message: string } {
  assert.notEqual(a.status, 101, 'the hub must refuse');
  const body = JSON.parse((a as { body: string }).body) as { jsonrpc: string; id: null; error: { code: number; message: string } };
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.id, null);
  return { status: a.status, message: body.error.message };
}

test('the pipe is refused without the token, with a wrong one, from a foreign Host or Origin, and for anything but its own upgrade', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const auth = { authorization: `Bearer ${hub.token}` };
    const none = refusal(await openRawPipe(hub.url, {}));
    assert.equal(none.status, 401);
    assert.match(none.message, /Authorization: Bearer/);
    const wrong = refusal(await openRawPipe(hub.url, { authorization: `Bearer ${hub.token}x` }));
    assert.equal(wrong.status, 401);
    assert.match(wrong.message, /token is wrong/);
    const host = refusal(await openRawPipe(hub.url, { ...auth, host: 'evil.example:80' }));
    assert.equal(host.status, 421);
    const origin = refusal(await openRawPipe(hub.url, { ...auth, origin: 'https://evil.example' }));
    assert.equal(origin.status, 403);
    assert.match(origin.message, /evil\.example/);
    // A WebSocket handshake to the pipe, or a POST, is not the pipe's upgrade.
    const ws = refusal(await openRawPipe(hub.url, { ...auth, upgrade: 'websocket' }));
    assert.equal(ws.status, 426);
    assert.match(ws.message, /Upgrade: pincer-jsonrpc/);
    const post = refusal(await openRawPipe(hub.url, auth, 'POST'));
    assert.equal(post.status, 426);
    // A malformed dashboard cookie instead of the token: refused, and the hub does not fall over.
    for (const cookie of ['pincer_token=%', `pincer_session=${'%'.repeat(3000)}`, '=;;==%']) {
      const bad = await openRawPipe(hub.url, { cookie });
      assert.ok(bad.status === 400 || bad.status === 401, `cookie ${cookie.slice(0, 20)} answered ${bad.status}`);
    }
    assert.equal(hub.child.exitCode, null, 'the hub is still running');
    // The refusals did not open anything, and the hub still serves the real thing.
    const ok = opened(await openRawPipe(hub.url, auth));
    const init = await ok.initialize();
    assert.equal((init.result as { serverInfo: { name: string } }).serverInfo.name, 'pincer');
    ok.close();
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('garbage, oversize lines and half-written messages on the pipe get JSON-RPC errors, and the connection and hub carry on', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { MAX_BODY_BYTES: '2048' });
  try {
    const pipe = opened(await openRawPipe(hub.url, { authorization: `Bearer ${hub.token}` }));
    pipe.send('{not json');
    assert.equal(((await pipe.next((m) => m.id === null, 'the parse error')).error as { code: number }).code, -32700);
    pipe.send('42');
    pipe.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(5000)}"}}`);
    pipe.socket.write(Buffer.from([0xff, 0xfe, 0x00, 0x0a]));
    await waitFor(() => pipe.messages.filter((m) => m.id === null).length >= 4, 'an error for each bad line');
    const codes = pipe.messages.filter((m) => m.id === null).map((m) => (m.error as { code: number }).code);
    assert.deepEqual(codes.slice(0, 3), [-32700, -32600, -32600]);
    assert.match(JSON.stringify(pipe.messages[2]), /larger than 2048 bytes/);
    assert.equal(pipe.messages.some((m) => m.id === 1), false, 'the oversize request was discarded, not served');
    // The same connection still serves a whole session afterwards.
    await pipe.initialize();
    pipe.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo still-here' } } });
    assert.match(JSON.stringify((await pipe.response(2)).result), /still-here/);
    // A peer that vanishes mid-line costs the hub nothing.
    const cut = opened(await openRawPipe(hub.url, { authorization: `Bearer ${hub.token}` }));
    cut.socket.write('{"jsonrpc":"2.0","id":1,"method":"tools/ca');
    cut.close();
    const health = await fetch(`${hub.url}/api/mcp/health`);
    assert.equal(health.status, 200);
    pipe.close();
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('pipes count as sessions (transport "bridge", named by their client) against MAX_SESSIONS, and a closed one frees its place', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { MAX_SESSIONS: '2' });
  try {
    const auth = { authorization: `Bearer ${hub.token}` };
    const a = opened(await openRawPipe(hub.url, auth));
    const b = opened(await openRawPipe(hub.url, auth));
    await a.initialize('client-a');
    const full = refusal(await openRawPipe(hub.url, auth));
    assert.equal(full.status, 503);
    assert.match(full.message, /MAX_SESSIONS/);
    const overview = async () => (await (await fetch(`${hub.url}/api/overview`, { headers: auth })).json()) as { sessions: { transport: string; client?: string }[] };
    const rows = (await overview()).sessions;
    assert.equal(rows.length, 2);
    assert.ok(rows.every((r) => r.transport === 'bridge'));
    assert.ok(rows.some((r) => r.client === 'client-a 1'), JSON.stringify(rows));
    b.close();
    await waitFor(async () => (await overview()).sessions.length === 1, 'the closed pipe to leave the session table');
    const c = opened(await openRawPipe(hub.url, auth));
    c.close();
    a.close();
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('rotating the token closes open pipes; the old token opens no new one, the new token does', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const pipe = opened(await openRawPipe(hub.url, { authorization: `Bearer ${hub.token}` }));
    await pipe.initialize();
    const rotate = spawnSync(process.execPath, [PINCER_BIN, 'token', 'rotate'], { env: pincerEnv(h.home), encoding: 'utf8' });
    assert.equal(rotate.status, 0, rotate.stderr);
    await pipe.whenClosed('after the token was rotated');
    await waitFor(async () => (await openRawPipe(hub.url, { authorization: `Bearer ${hub.token}` })).status === 401, 'the old token to be refused');
    const fresh = opened(await openRawPipe(hub.url, { authorization: `Bearer ${tokenOf(h.home)}` }));
    await fresh.initialize();
    fresh.close();
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a flood of pipes that never speak is bounded by MAX_STREAMS and leaves the hub serving', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { MAX_STREAMS: '5' });
  const pipes: RawPipe[] = [];
  try {
    const auth = { authorization: `Bearer ${hub.token}` };
    let refused = 0;
    for (let i = 0; i < 12; i++) {
      const a = await openRawPipe(hub.url, auth);
      if (a.status === 101) pipes.push((a as { pipe: RawPipe }).pipe);
      else refused++;
    }
    assert.equal(pipes.length, 5);
    assert.equal(refused, 7);
    const health = (await (await fetch(`${hub.url}/api/mcp/health`)).json()) as { status: string };
    assert.equal(health.status, 'healthy');
  } finally {
    for (const p of pipes) p.close();
    await hub.stop();
    h.cleanup();
  }
});

test('a raw socket speaking line-JSON without the upgrade gets nothing from the pipe', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const socket = net.connect(hub.port, '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (reply += d));
    const closed = new Promise((r) => socket.on('close', r));
    socket.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Bash","arguments":{"command":"touch ${path.join(h.home, 'pwned')}"}}}\n`);
    await closed;
    assert.match(reply, /^HTTP\/1\.1 400/);
    assert.ok(!fs.existsSync(path.join(h.home, 'pwned')));
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('while the hub hands over, a request on a pipe is refused with the "send it to the next hub" marker; through the bridge it is sent to the next hub and runs once', { timeout: 60_000 }, async () => {
  const h = tempHome();
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `HTTP_PORT=${await osFreePort()}\nBASH_CWD=${h.home}\n`, { mode: 0o600 });
  const { startHub } = await import('../main/hub/hub.js');
  const old = await startHub({ home: h.home, handoverGraceMs: 20_000 });
  let next: Awaited<ReturnType<typeof startHub>> | undefined;
  const bridge = await connectV2({ home: h.home, args: ['stdio'] });
  const ran = path.join(h.home, 'ran.txt');
  try {
    const token = tokenOf(h.home);
    const raw = opened(await openRawPipe(old.url, { authorization: `Bearer ${token}` }));
    await raw.initialize();
    const inFlight = bridge.client.callTool({ name: 'Bash', arguments: { command: 'sleep 1.5; echo slow-done' } });
    await waitFor(() => old.runtime.activity.recent(5).some((c) => c.tool === 'Bash' && c.ms === undefined), 'the slow call to start');
    const taking = startHub({ home: h.home, takeover: 'headless' });
    await waitFor(async () => (await fetch(`${old.url}/api/mcp/health`)).status === 503, 'the old hub to start handing over');
    raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: `echo raw >> ${ran}` } } });
    const refused = (await raw.response(2)).error as { code: number; message: string; data: unknown };
    assert.equal(refused.message, 'Pincer is restarting, send the request again.');
    assert.deepEqual(refused.data, { pincerRetry: true });
    // The same moment through the bridge: the client sees no error, the call runs on the next hub, once.
    const later = bridge.client.callTool({ name: 'Bash', arguments: { command: `echo bridged >> ${ran}; echo sent-on` } });
    assert.equal(textOf(await inFlight), 'slow-done', 'the call in flight finished on the old hub');
    next = await taking;
    assert.equal(textOf(await later), 'sent-on');
    assert.equal(fs.readFileSync(ran, 'utf8'), 'bridged\n', 'the refused raw request never ran; the bridged one ran once');
    await raw.whenClosed('the old hub closed its pipes');
  } finally {
    await closeStdioClient(bridge);
    await next?.close();
    await old.close();
    await stopHubOf(h.home).catch(() => undefined);
    h.cleanup();
  }
});

test("through the bridge, a request larger than the hub's MAX_BODY_BYTES is answered with its own id and a clear error, and the next one is served", async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { MAX_BODY_BYTES: '2048' });
  const raw = new RawStdio(h.home, ['stdio'], { MAX_BODY_BYTES: '2048' });
  try {
    await raw.initialize();
    raw.send({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'Bash', arguments: { command: `echo ${'x'.repeat(5000)}` } } });
    const big = (await raw.response('big')).error as { code: number; message: string };
    assert.equal(big.code, -32600);
    assert.match(big.message, /larger than the hub accepts \(MAX_BODY_BYTES = 2048\)/);
    raw.send({ jsonrpc: '2.0', id: 'small', method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo small' } } });
    assert.match(JSON.stringify((await raw.response('small')).result), /small/);
    assert.deepEqual(raw.nonJsonLines, []);
  } finally {
    raw.close();
    await hub.stop();
    h.cleanup();
  }
});
