import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { connectV2, textOf } from './helpers/clients.js';
import { startHubProcess, stopHubOf, readHubJson, tokenOf } from './helpers/hub.js';
import { tempHome, pincerEnv, PINCER_BIN, ROOT, waitFor, pidAlive, quietFor, WAIT_MS } from './helpers/env.js';
import { RawStdio } from './helpers/raw-stdio.js';
import { notHere, onlyOn, skipUnless } from './helpers/prerequisites.js';
import { boundProof } from '../main/core/hub-proof.js';

const BRIDGE = { args: ['stdio'], env: { HTTP_PORT: 'auto' } };
/** What "a relay, not a server" must never load (its RSS target, bench/RESULTS.md). */
const FORBIDDEN_PACKAGES = ['@modelcontextprotocol/', 'zod', 'express', 'better-sqlite3', 'ws', 'undici'];
const FORBIDDEN_SOURCES = ['/dist/main/mcp/', '/dist/main/tools/', '/dist/main/store/', '/dist/main/http/', '/dist/main/core/settings/settings.js', '/dist/main/core/settings/schema.js'];
const RECORDER = pathToFileURL(path.join(ROOT, 'dist', 'test', 'helpers', 'module-recorder.js')).href;

/**
 * The static server description (names and constants, no SDK) the bridge answers server/discover from, and
 * the protocol generations it lists (protocol-era.ts imports nothing).
 */
const ALLOWED_SOURCES = ['/dist/main/mcp/server-info.js', '/dist/main/mcp/protocol-era.js'];

function forbiddenIn(urls: string[]): string[] {
  return urls.filter((u) => !ALLOWED_SOURCES.some((a) => u.endsWith(a)) && (FORBIDDEN_PACKAGES.some((p) => u.includes(`/node_modules/${p}`)) || FORBIDDEN_SOURCES.some((s) => u.includes(s))));
}

test('the bridge, relaying real calls, loads neither the SDK, zod, express, SQLite nor the tools', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const log = path.join(h.home, 'modules.txt');
  try {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', RECORDER, PINCER_BIN, 'stdio'],
      env: pincerEnv(h.home, { PINCER_MODULE_LOG: log }),
      cwd: h.home,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'weight', version: '1' });
    await client.connect(transport);
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'Bash'));
    assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo relayed' } })), 'relayed');
    const bridgePid = transport.pid!;
    await client.close();
    await waitFor(() => !pidAlive(bridgePid), 'the bridge to exit');
    assert.ok(fs.existsSync(log), 'the bridge exited and wrote its module list');
    const loaded = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
    assert.ok(loaded.some((u) => u.endsWith('/dist/main/cli/bridge/hub-pipe.js')), 'the recorder saw the bridge modules');
    assert.deepEqual(forbiddenIn(loaded), []);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

/** Static and dynamic import specifiers of one built module, read with the TypeScript parser. */
function importsOf(file: string): { staticSpecs: string[]; dynamicSpecs: string[] } {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const staticSpecs: string[] = [];
  const dynamicSpecs: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) staticSpecs.push(node.moduleSpecifier.text);
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) dynamicSpecs.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { staticSpecs, dynamicSpecs };
}

test("the bridge entry's import graph (static imports of pincer.js, every import from bridge.js on) reaches none of them either", () => {
  const files = new Set<string>();
  const packages = new Set<string>();
  const walk = (file: string, followDynamic: boolean) => {
    if (files.has(file)) return;
    files.add(file);
    const { staticSpecs, dynamicSpecs } = importsOf(file);
    for (const spec of followDynamic ? [...staticSpecs, ...dynamicSpecs] : staticSpecs) {
      if (spec.startsWith('.')) walk(path.resolve(path.dirname(file), spec), followDynamic);
      else packages.add(spec);
    }
  };
  walk(path.join(ROOT, 'dist', 'main', 'cli', 'pincer.js'), false);
  walk(path.join(ROOT, 'dist', 'main', 'cli', 'bridge.js'), true);
  assert.ok(files.has(path.join(ROOT, 'dist', 'main', 'cli', 'bridge', 'hub-pipe.js')), 'the walk reached the bridge modules');
  const bare = [...packages].filter((p) => !p.startsWith('node:'));
  assert.deepEqual(bare, [], 'the bridge loads no package at all: builtins and its own modules');
  assert.deepEqual(forbiddenIn([...files]), []);
});

test('pincer with no arguments and stdin not a terminal serves stdio', async () => {
  const h = tempHome();
  try {
    const { client } = await connectV2({ home: h.home, args: [], env: { HTTP_PORT: 'auto' } });
    try {
      assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo no-args' } })), 'no-args');
    } finally {
      await client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

// util-linux's `script` gives pincer a terminal as stdin; macOS's BSD script takes other flags, Windows has none.
const noScript = notHere(onlyOn(['linux'], "util-linux's script")) || skipUnless(spawnSync('script', ['--version']).error ? 'util-linux "script" (to give pincer a terminal as stdin) is not installed' : undefined);

test('pincer with no arguments at a terminal prints help on stderr only, and starts nothing', { skip: noScript }, () => {
  const h = tempHome();
  try {
    const out = path.join(h.home, 'out.txt');
    const err = path.join(h.home, 'err.txt');
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const r = spawnSync('script', ['-qec', `${quote(process.execPath)} ${quote(PINCER_BIN)} >${quote(out)} 2>${quote(err)}`, '/dev/null'], { env: pincerEnv(h.home), timeout: WAIT_MS });
    assert.equal(r.status, 0);
    assert.equal(fs.readFileSync(out, 'utf8'), '', 'nothing on stdout');
    assert.match(fs.readFileSync(err, 'utf8'), /Usage:\n {2}pincer/);
    assert.ok(!fs.existsSync(path.join(h.home, 'hub.json')), 'no hub was started');
  } finally {
    h.cleanup();
  }
});

// How soon is a benchmark's question; here the answer must be the hub's own reason, not the bridge's
// start timeout, which is what a client saw before the bridge read the hub's reason.
test("a port taken by another program reaches the client with the hub's reason, not a start timeout", async () => {
  const h = tempHome();
  const squatter = net.createServer();
  await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
  const port = (squatter.address() as net.AddressInfo).port;
  try {
    const failure = await connectV2({ home: h.home, args: ['stdio'], env: { HTTP_PORT: String(port) } }).then(
      async ({ client }) => {
        await client.close();
        return undefined;
      },
      (e: Error) => e,
    );
    assert.ok(failure, 'initialize fails');
    assert.match(failure.message, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
    assert.match(failure.message, /HTTP_PORT/, 'and says what to do');
    assert.doesNotMatch(failure.message, /did not (start|answer)|timed? ?out/i, 'the reason, not a timeout');
  } finally {
    squatter.close();
    // A bridge still closing may start a hub once the port is free: stop it too (stopHubOf waits for one starting).
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test("every pipe the bridge opens carries its fixed client id and its working folder (its health probes carry neither), over one connection for the session; each bridge has its own id (both protocol generations)", async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const seen: { client?: string; cwd?: string; method: string }[] = [];
  const target = new URL(hub.url);
  const record = (req: http.IncomingMessage) =>
    seen.push({ client: req.headers['x-pincer-client'] as string | undefined, cwd: req.headers['x-pincer-cwd'] as string | undefined, method: `${req.headers.upgrade ? 'UPGRADE' : req.method} ${req.url}` });
  // A recording proxy in front of the real hub, put where the bridges look for the hub. The hub's proof
  // covers the address it was reached at (its own), so the proxy — a fixture that holds the folder's
  // hub-secret, as no stranger could — proves its own address in its place.
  const secret = Buffer.from(fs.readFileSync(path.join(h.home, 'hub-secret'), 'utf8').trim(), 'hex');
  const proxy = http.createServer((req, res) => {
    record(req);
    const challenge = new URL(req.url ?? '/', 'http://x').searchParams.get('challenge');
    const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (r) => {
      if (!challenge) {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
        return;
      }
      let text = '';
      r.on('data', (d: Buffer) => (text += d.toString()));
      r.on('end', () => {
        const body = JSON.parse(text) as { hub: { pid: number; bound?: string; at?: string } };
        const at = `127.0.0.1:${port}`;
        body.hub = { ...body.hub, bound: boundProof(secret, challenge, body.hub.pid, at), at };
        res.writeHead(r.statusCode!, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  // The bridge's pipe: the upgrade request is recorded, then bytes are copied both ways untouched.
  proxy.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    record(req);
    const upstream = net.connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`, ...Object.entries({ ...req.headers, host: target.host }).map(([k, v]) => `${k}: ${String(v)}`)];
      upstream.write(lines.join('\r\n') + '\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const port = (proxy.address() as net.AddressInfo).port;
  const hubJson = path.join(h.home, 'hub.json');
  fs.writeFileSync(hubJson, JSON.stringify({ ...JSON.parse(fs.readFileSync(hubJson, 'utf8')), url: `http://127.0.0.1:${port}`, port }));
  const project = path.join(h.home, 'a project é');
  fs.mkdirSync(project);
  try {
    const legacy = await connectV2({ home: h.home, ...BRIDGE, cwd: project });
    assert.equal(textOf(await legacy.client.callTool({ name: 'Bash', arguments: { command: 'echo one' } })), 'one');
    assert.equal(textOf(await legacy.client.callTool({ name: 'Bash', arguments: { command: 'echo two' } })), 'two');
    const legacyPid = legacy.transport.pid!;
    await legacy.client.close();
    await waitFor(() => !pidAlive(legacyPid), 'the first bridge to exit');
    const legacyRequests = seen.splice(0);
    const modern = await connectV2({ home: h.home, ...BRIDGE, cwd: h.home, modern: true });
    assert.equal(modern.client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.equal(textOf(await modern.client.callTool({ name: 'Bash', arguments: { command: 'echo three' } })), 'three');
    const modernPid = modern.transport.pid!;
    await modern.client.close();
    await waitFor(() => !pidAlive(modernPid), 'the second bridge to exit');
    const modernRequests = seen.splice(0);

    // One bridge served the 2025-era client, handshake and both calls, over a single connection.
    assert.deepEqual(legacyRequests.filter((r) => r.method.startsWith('UPGRADE')).map((r) => r.method), ['UPGRADE /mcp/pipe'], JSON.stringify(legacyRequests));
    assert.ok(legacyRequests.every((r) => r.method === 'UPGRADE /mcp/pipe' || r.method.startsWith('GET /api/mcp/health')), `only the pipe and health checks: ${JSON.stringify(legacyRequests)}`);
    // The health probe asks an unproven process to prove it is the hub: it carries nothing of the client, so a squatter on the port learns nothing.
    for (const r of [...legacyRequests, ...modernRequests].filter((x) => x.method.startsWith('GET /api/mcp/health'))) assert.deepEqual([r.client, r.cwd], [undefined, undefined], `${r.method} carries nothing of the client`);
    const legacyPipes = legacyRequests.filter((r) => r.method === 'UPGRADE /mcp/pipe');
    const modernPipes = modernRequests.filter((r) => r.method === 'UPGRADE /mcp/pipe');
    const legacyIds = new Set(legacyPipes.map((r) => r.client));
    assert.equal(legacyIds.size, 1, `one id for the life of the bridge: ${JSON.stringify(legacyRequests)}`);
    assert.match([...legacyIds][0] ?? '', /^[0-9a-f-]{16,}$/);
    // The SDK client spawns its server once for the 2026-07-28 discovery probe and once for the session.
    assert.ok(modernRequests.some((r) => r.method === 'UPGRADE /mcp/pipe'));
    assert.ok(modernPipes.every((r) => r.client && !legacyIds.has(r.client)), 'each bridge has its own id');
    for (const [requests, cwd] of [[legacyPipes, project], [modernPipes, h.home]] as const) {
      for (const r of requests) assert.equal(decodeURIComponent(r.cwd ?? ''), fs.realpathSync(cwd), `${r.method} carries the working folder`);
    }
  } finally {
    proxy.close();
    await hub.stop();
    h.cleanup();
  }
});

test('a 2026-07-28 client through the bridge: tools, a tool error, progress and a background job round trip', async () => {
  const h = tempHome();
  try {
    const { client } = await connectV2({ home: h.home, ...BRIDGE, modern: true });
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.ok((await client.listTools()).tools.length >= 10);
      const bad = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: 987654 } });
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /987654/);
      const progress: string[] = [];
      const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo p1; sleep 0.4; echo p2' } }, { onprogress: (p) => progress.push(p.message ?? '') });
      assert.equal(textOf(r), 'p1\np2');
      assert.ok(progress.join('').includes('p1'), 'progress crossed the bridge');
      const started = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo from-the-job' } });
      const id = (started.structuredContent as { task_id: number }).task_id;
      const out = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 3000 } });
      assert.match(textOf(out), /from-the-job/);
    } finally {
      await client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('raw stdio through the bridge: answers arrive after stdin closes, a cancelled request gets no made-up answer, bad lines get JSON-RPC errors', async () => {
  const h = tempHome();
  let raw: RawStdio | undefined;
  try {
    const r = new RawStdio(h.home, ['stdio'], { HTTP_PORT: 'auto' });
    raw = r;
    await r.initialize();
    r.send('{not json');
    r.send('42');
    const started = path.join(h.home, 'started');
    const gate = path.join(h.home, 'gate');
    r.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'Bash', arguments: { command: `touch ${started}; while [ ! -e ${gate} ]; do sleep 0.05; done; echo late` } } });
    await waitFor(() => fs.existsSync(started), 'the call to run');
    r.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'test' } });
    r.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
    assert.deepEqual((await r.response(8)).result, {});
    // Had the cancel been lost, the command would now end and be answered.
    fs.writeFileSync(gate, '');
    await quietFor(800, 'an answer to the cancelled request');
    assert.equal(r.messages.filter((m) => m.id === 7).length, 0, 'nothing answers the cancelled request');
    const errors = r.messages.filter((m) => m.id === null).map((m) => (m.error as { code: number }).code);
    assert.deepEqual(errors.sort((a, b) => a - b), [-32700, -32600]);
    // A script that writes its request and closes its input at once still gets the answer.
    r.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'sleep 0.3; echo after-eof' } } });
    r.child.stdin.end();
    const answer = await r.response(9);
    assert.match(JSON.stringify(answer.result), /after-eof/);
    await waitFor(() => r.child.exitCode !== null, 'the bridge to exit after its input closed');
    assert.equal(r.child.exitCode, 0);
    assert.deepEqual(r.nonJsonLines, [], 'stdout carries protocol messages only');
  } finally {
    if (raw?.child.exitCode === null) raw.child.kill();
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('after "pincer token rotate" the bridge picks up the new token and the next call works', async () => {
  const h = tempHome();
  try {
    const { client } = await connectV2({ home: h.home, ...BRIDGE });
    try {
      assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo old-token' } })), 'old-token');
      const oldToken = tokenOf(h.home);
      const rotate = spawnSync(process.execPath, [PINCER_BIN, 'token', 'rotate'], { env: pincerEnv(h.home), encoding: 'utf8' });
      assert.equal(rotate.status, 0, rotate.stderr);
      // Until the hub has taken the new token, a call may be cut by the revocation itself; wait for it.
      const hubUrl = readHubJson(h.home)!.url;
      await waitFor(async () => (await fetch(`${hubUrl}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${oldToken}`, 'content-type': 'application/json' }, body: '{}' })).status === 401, 'the hub to refuse the old token');
      assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo new-token' } })), 'new-token');
    } finally {
      await client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});
