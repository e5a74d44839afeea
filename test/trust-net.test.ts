import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { tempHome, waitFor, WAIT_MS } from './helpers/env.js';
import { openRawPipe } from './helpers/raw-pipe.js';
import { signInWithCode } from './helpers/dashboard-client.js';
import { signInLink } from './helpers/browser.js';

// Written as the attacks: what one local client or web page can do to
// another client's session or to the hub's sockets, and what must hold against it.

async function openSession(hub: HubProcess): Promise<Record<string, string>> {
  const init = await fetch(`${hub.url}/mcp`, {
    method: 'POST',
    headers: hub.headers({ Accept: 'application/json, text/event-stream' }),
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  assert.equal(init.status, 200);
  await init.text();
  const headers = hub.headers({ Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': init.headers.get('mcp-session-id')!, 'MCP-Protocol-Version': '2025-11-25' });
  const note = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  assert.equal(note.status, 202);
  return headers;
}

/** A Bash call that says it runs (`<gate>.started`), waits until `gate` exists, then prints `word`. */
const gated = (id: number, gate: string, word: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'Bash', arguments: { command: `touch '${gate}.started'; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo ${word}` } } });
const quick = (id: number, word: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'Bash', arguments: { command: `echo ${word}` } } });

test('the same JSON-RPC id twice in flight: /mcp refuses the second with an error naming the id, the first gets its own answer, the pipe and the WebSocket answer both', { timeout: 90_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    // Streamable HTTP: one session, id 7 in flight, id 7 again.
    const headers = await openSession(hub);
    const gate = path.join(h.home, 'gate-http');
    const first = fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(gated(7, gate, 'first')) }).then((r) => r.text());
    // The first is in flight once its Bash runs.
    await waitFor(() => fs.existsSync(`${gate}.started`), 'the first call to run');
    const second = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(quick(7, 'second')), signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(second.status, 400);
    const refused = (await second.json()) as { id: unknown; error: { message: string } };
    assert.equal(refused.id, 7);
    assert.match(refused.error.message, /id 7 is still in flight/);
    fs.writeFileSync(gate, '');
    const firstText = await first;
    assert.match(firstText, /first/);
    assert.doesNotMatch(firstText, /second/);
    // Once answered, the id is free again.
    const again = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(quick(7, 'third')) });
    assert.match(await again.text(), /third/);

    // The bridge's pipe: both are answered (the SDK answers each request it was given).
    const attempt = await openRawPipe(hub.url, { authorization: `Bearer ${hub.token}` });
    if (!('pipe' in attempt)) throw new Error(`the pipe was refused: ${attempt.status} ${attempt.body}`);
    const pipe = attempt.pipe;
    pipe.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    await pipe.response(0);
    pipe.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const pipeGate = path.join(h.home, 'gate-pipe');
    pipe.send(gated(7, pipeGate, 'first'));
    pipe.send(quick(7, 'second'));
    await pipe.next((m) => m.id === 7 && JSON.stringify(m).includes('second'), 'the second answer');
    fs.writeFileSync(pipeGate, '');
    await pipe.next((m) => m.id === 7 && JSON.stringify(m).includes('first'), 'the first answer');
    pipe.socket.destroy();

    // WebSocket: the same.
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/mcp/ws`, { headers: { Authorization: `Bearer ${hub.token}` } });
    const seen: string[] = [];
    ws.on('message', (d) => seen.push(d.toString()));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const wsGate = path.join(h.home, 'gate-ws');
    ws.send(JSON.stringify(gated(7, wsGate, 'first')));
    ws.send(JSON.stringify(quick(7, 'second')));
    const until = (word: string) => waitFor(() => seen.some((m) => m.includes(`"id":7`) && m.includes(word)), `the WebSocket answer "${word}" (seen so far: ${seen.join('\n')})`);
    await until('second');
    fs.writeFileSync(wsGate, '');
    await until('first');
    ws.close();
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('oversized uploads all read their 413, 8 at once on each of /mcp, /api/mcp/jsonrpc, /messages and REST, declared or chunked: never EPIPE', { timeout: 120_000 }, async () => {
  const h = tempHome();
  const limit = 64 * 1024;
  const hub = await startHubProcess(h.home, { MAX_BODY_BYTES: String(limit) });
  try {
    // Far more than the kernel buffers between two loopback sockets hold: a hub that closes early makes the sender's writes fail.
    const size = 8 * 1024 * 1024;
    const big = Buffer.alloc(size, 0x20);
    big.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Bash","arguments":{"command":"echo x"}},"pad":"');
    const chunked = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < size; i += 256 * 1024) controller.enqueue(big.subarray(i, i + 256 * 1024));
          controller.close();
        },
      });
    const routes = ['/mcp', '/api/mcp/jsonrpc', '/messages?sessionId=none', '/api/mcp/tools/call'];
    const outcomes: string[] = [];
    await Promise.all(
      routes.flatMap((route) =>
        Array.from({ length: 8 }, async (_, i) => {
          const declared = i % 2 === 0;
          try {
            const r = await fetch(`${hub.url}${route}`, {
              method: 'POST',
              headers: hub.headers({ Accept: 'application/json, text/event-stream' }),
              body: declared ? big : chunked(),
              ...(declared ? {} : { duplex: 'half' }),
              signal: AbortSignal.timeout(60_000),
            } as RequestInit);
            const text = await r.text();
            outcomes.push(r.status === 413 && /larger than MAX_BODY_BYTES/.test(text) ? 'read 413' : `${route} ${declared ? 'declared' : 'chunked'}: ${r.status} ${text.slice(0, 200)}`);
          } catch (err) {
            const cause = (err as { cause?: { code?: string; message?: string } }).cause;
            outcomes.push(`${route} ${declared ? 'declared' : 'chunked'}: ${(err as Error).message} (${cause?.code ?? cause?.message ?? ''})`);
          }
        }),
      ),
    );
    assert.deepEqual(outcomes.filter((o) => o !== 'read 413'), []);
    assert.equal(outcomes.length, 32);
    // The hub is well and serves the next call.
    const call = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'Bash', arguments: { command: 'echo after' } }) });
    assert.equal(call.status, 200);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('sign-out needs the session\'s credential: a guessed or stale one ends nothing; the dashboard\'s own signs it out', { timeout: 60_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const url = await signInLink(hub.url, hub.token);
    const session = (await signInWithCode(hub.url, /#signin=(.+)$/.exec(url)![1]!))!;
    const signedIn = async () => (await session.fetch('/api/overview')).status === 200;
    assert.equal(await signedIn(), true);
    const [sid] = (await session.headers())['X-Pincer-Session']!.split('.');
    for (const headers of [{}, { 'X-Pincer-Session': sid! }, { 'X-Pincer-Session': `${sid}.guessed` }] as Record<string, string>[]) {
      const out = await fetch(`${hub.url}/api/dashboard/logout`, { method: 'POST', headers });
      assert.equal(out.status, 401);
      assert.match(await out.text(), /X-Pincer-Session/i);
      assert.equal(await signedIn(), true, 'the session survived');
    }
    const out = await fetch(`${hub.url}/api/dashboard/logout`, { method: 'POST', headers: await session.headers() });
    assert.equal(out.status, 200);
    assert.equal(await signedIn(), false);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('4 200 keep-alive sockets, each holding half of its second request, do not starve real MCP calls', { timeout: 180_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const sockets: import('node:net').Socket[] = [];
  const net = await import('node:net');
  try {
    const first = `GET /api/mcp/health HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nConnection: keep-alive\r\n\r\n`;
    const half = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nContent-Type: application/json\r\n`;
    // One attacker socket: a whole first request, its answer read, then half of the next one, held.
    const attacker = () =>
      new Promise<void>((resolve) => {
        const s = net.connect(hub.port, '127.0.0.1');
        sockets.push(s);
        // A socket the hub never answered is left as it is (one attacker fewer), at the latest after WAIT_MS.
        const t = setTimeout(resolve, WAIT_MS);
        s.on('error', () => undefined);
        s.on('close', () => {
          clearTimeout(t);
          resolve();
        });
        let seen = '';
        s.on('data', (d: Buffer) => {
          seen += d.toString('latin1');
          if (seen.includes('"status":"healthy"')) {
            seen = '';
            s.write(half);
            clearTimeout(t);
            resolve();
          }
        });
        s.write(first);
      });
    for (let i = 0; i < 4200; i += 200) await Promise.all(Array.from({ length: 200 }, attacker));
    const open = sockets.filter((s) => !s.destroyed).length;
    // Real clients: each opens its own connection and must get its answer.
    const headers = hub.headers({ Accept: 'application/json, text/event-stream' });
    const results = await Promise.all(
      Array.from({ length: 11 }, async (_, i) => {
        const r = await fetch(`${hub.url}/mcp`, { method: 'POST', headers: { ...headers, Connection: 'close' }, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }), signal: AbortSignal.timeout(WAIT_MS) }).catch((err: Error) => err);
        if (r instanceof Error) return `failed: ${r.message}`;
        return r.status === 200 || r.status === 400 ? 'answered' : `HTTP ${r.status}`;
      }),
    );
    assert.deepEqual(results.filter((r) => r !== 'answered'), [], `with ${open} attacker sockets still open`);
    // And a real tool call through the REST surface.
    const call = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: { ...hub.headers(), Connection: 'close' }, body: JSON.stringify({ name: 'Bash', arguments: { command: 'echo served' } }), signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(call.status, 200);
    assert.match(await call.text(), /served/);
  } finally {
    for (const s of sockets) s.destroy();
    await hub.stop();
    h.cleanup();
  }
});

test('X-Pincer-Cwd on POST /api/mcp/jsonrpc: the project narrows that caller, as on /mcp, and its commands run in its folder', { timeout: 60_000 }, async () => {
  const h = tempHome();
  const repo = path.join(h.home, 'a cloned repo');
  fs.mkdirSync(path.join(repo, '.pincer'), { recursive: true });
  fs.writeFileSync(path.join(repo, '.pincer', 'pincer-env.txt'), 'TOOL_WEBSEARCH=false\nBASH_OUTPUT_LIMIT=1000\n');
  const hub = await startHubProcess(h.home);
  try {
    const rpc = async (body: object, extra: Record<string, string> = {}) => {
      const r = await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(extra), body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }) });
      assert.equal(r.status, 200);
      return (await r.json()) as { result: { tools?: { name: string }[]; structuredContent?: { dropped_chars: number; output: string } } };
    };
    const inRepo = { 'X-Pincer-Cwd': encodeURIComponent(repo) };
    const names = async (extra?: Record<string, string>) => (await rpc({ method: 'tools/list' }, extra)).result.tools!.map((t) => t.name);
    assert.ok(!(await names(inRepo)).includes('WebSearch'), 'the project turned WebSearch off for its caller');
    assert.ok((await names()).includes('WebSearch'), 'a caller elsewhere keeps it');
    const long = { method: 'tools/call', params: { name: 'Bash', arguments: { command: `head -c 5000 /dev/zero | tr '\\0' x` } } };
    assert.ok((await rpc(long, inRepo)).result.structuredContent!.dropped_chars > 0, 'BASH_OUTPUT_LIMIT from the project applies');
    assert.equal((await rpc(long)).result.structuredContent!.dropped_chars, 0, 'not to other callers');
    const pwd = await rpc({ method: 'tools/call', params: { name: 'Bash', arguments: { command: 'pwd' } } }, inRepo);
    assert.equal(pwd.result.structuredContent!.output.trim(), fs.realpathSync(repo));
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
