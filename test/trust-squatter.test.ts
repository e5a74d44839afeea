import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RawStdio } from './helpers/raw-stdio.js';
import { tempHome, waitFor, PINCER_BIN, pincerEnv, pidAlive, WAIT_MS } from './helpers/env.js';
import { readHubJson, startHubProcess, stopHubOf, tokenOf } from './helpers/hub.js';
import { proveHub } from '../main/cli/hub-client.js';
import { pincerPaths } from '../main/core/paths.js';
import { boundProof } from '../main/core/hub-proof.js';
import { osFreePort } from './helpers/ports.js';
import { SHARES_PORT } from '../main/hub/listen.js';

// Written as the attack: another local process binds the hub's port the moment
// the hub lets go of it (stop, handover, crash with its pid reused). Whatever it answers, no Pincer
// process may send it the token, a cookie or a client's messages, and the client is told who holds the port.

const SQUATTER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'helpers', 'squatter.js');
const MARKER = 'client-secret-marker-5f1e';

interface Squatter {
  child: ChildProcess;
  pid: number;
  /** Whether it has bound the port by now. */
  bound(): boolean;
  /** Whether hub.json still existed when the port became free. */
  hubFileWhenBound: boolean;
  received(): string;
  stop(): void;
}

/** Starts a squatter spinning on the port; with `untilBound`, settles once it has it. */
async function squat(port: number, home: string, untilBound = true): Promise<Squatter> {
  const record = path.join(home, '..', `${path.basename(home)}-squatter.bin`);
  const child = spawn(process.execPath, [SQUATTER, String(port), home, record], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  // One that never bound must not bind later and outlive the test (it would hold the port, and this process with it).
  const line = untilBound ? await waitFor(() => /bound (\d+) hub\.json=(yes|no)/.exec(out), 'the squatter to bind the port').catch((err: unknown) => (child.kill('SIGKILL'), Promise.reject(err))) : undefined;
  return {
    child,
    pid: line ? Number(line[1]) : child.pid!,
    bound: () => /bound \d+/.test(out),
    hubFileWhenBound: line?.[2] === 'yes',
    received: () => (fs.existsSync(record) ? fs.readFileSync(record, 'latin1') : ''),
    stop: () => {
      child.kill('SIGKILL');
      fs.rmSync(record, { force: true });
    },
  };
}

/** Nothing but a health probe with a challenge: no token, no cookie, no client identity, no client message. */
function assertNothingSecret(received: string, token: string): void {
  assert.ok(!received.includes(token), 'the squatter received the token');
  assert.doesNotMatch(received, /authorization|cookie|x-pincer-session-key/i, 'the squatter received credentials');
  assert.doesNotMatch(received, /x-pincer-client|x-pincer-cwd/i, "the squatter received the client's identity");
  assert.ok(!received.includes(MARKER), "the squatter received the client's message");
  assert.doesNotMatch(received, /\/mcp\/pipe|upgrade/i, 'the squatter was asked to open a pipe');
  for (const line of received.split('\r\n').filter((l) => /^[A-Z]+ \//.test(l))) assert.match(line, /^GET \/api\/mcp\/health\?challenge=[A-Za-z0-9_-]+ HTTP\/1\.1$/, `the squatter got "${line}"`);
}

/** Gone, or a zombie: the hub is the bridge's child, and a stopped bridge cannot reap it. */
function exited(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return !pidAlive(pid);
  }
}

async function bridgeWithHub(home: string, port: number): Promise<{ bridge: RawStdio; hubPid: number }> {
  // info: the bridge's "lost the hub" line tells the test when to send the next call.
  const bridge = new RawStdio(home, ['stdio'], { HTTP_PORT: String(port), PINCER_LOG_LEVEL: 'info' });
  await bridge.initialize();
  bridge.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo up' } } });
  assert.match(JSON.stringify(await bridge.response(1)), /up/);
  const hubPid = readHubJson(home)!.pid;
  return { bridge, hubPid };
}

/** After the bridge noticed that its hub is gone, a tools/call: answered with an error, never relayed to the squatter. */
async function callAfterLoss(home: string, bridge: RawStdio, id: number): Promise<string> {
  const log = path.join(home, 'logs', 'bridge.log');
  await waitFor(() => fs.existsSync(log) && /lost the hub/.test(fs.readFileSync(log, 'utf8')), 'the bridge to notice the hub is gone');
  bridge.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'Bash', arguments: { command: `echo ${MARKER}` } } });
  const r = await bridge.response(id);
  assert.ok(r.error, `expected an error, got ${JSON.stringify(r)}`);
  return (r.error as { message: string }).message;
}

test('crash, pid reused, port squatted: the bridge sends the squatter nothing but a challenge, and the client learns who holds the port', { timeout: 120_000 }, async () => {
  const h = tempHome();
  const port = await osFreePort();
  const { bridge, hubPid } = await bridgeWithHub(h.home, port);
  let squatter: Squatter | undefined;
  try {
    const token = tokenOf(h.home);
    // The bridge is held still while the hub dies and the squatter moves in, so it cannot win the race by luck.
    process.kill(bridge.child.pid!, 'SIGSTOP');
    process.kill(hubPid, 'SIGKILL');
    await waitFor(() => exited(hubPid), 'the hub to die');
    squatter = await squat(port, h.home);
    // hub.json outlives a crash; the squatter has the hub's pid (a reused pid), and it is alive.
    const recorded = JSON.parse(fs.readFileSync(path.join(h.home, 'hub.json'), 'utf8'));
    fs.writeFileSync(path.join(h.home, 'hub.json'), JSON.stringify({ ...recorded, pid: squatter.pid }));
    process.kill(bridge.child.pid!, 'SIGCONT');

    const message = await callAfterLoss(h.home, bridge, 2);
    assert.match(message, new RegExp(`port ${port} is held by (pid ${squatter.pid}\\b|.*\\(pid ${squatter.pid}\\)).*which is not Pincer`));
    assertNothingSecret(squatter.received(), token);
    assert.match(squatter.received(), /GET \/api\/mcp\/health\?challenge=/, 'the squatter was asked to prove itself');

    // `pincer status` and `connect --http` say the same and send nothing either.
    const status = spawnSync(process.execPath, [PINCER_BIN, 'status'], { env: pincerEnv(h.home), encoding: 'utf8', timeout: WAIT_MS });
    assert.match(status.stdout, new RegExp(`port ${port} is held by (pid ${squatter.pid}\\b|.*\\(pid ${squatter.pid}\\)).*which is not Pincer`));
    const connect = spawnSync(process.execPath, [PINCER_BIN, 'connect', 'cursor', '--http'], { env: pincerEnv(h.home), encoding: 'utf8', timeout: WAIT_MS });
    assert.equal(connect.status, 1, connect.stdout + connect.stderr);
    assert.match(connect.stderr, new RegExp(`port ${port} is held by (pid ${squatter.pid}\\b|.*\\(pid ${squatter.pid}\\)).*which is not Pincer`));
    assert.ok(!fs.existsSync(path.join(h.home, '.cursor', 'mcp.json')), 'no client config names the squatter');
    assertNothingSecret(squatter.received(), token);
  } finally {
    squatter?.stop();
    process.kill(bridge.child.pid!, 'SIGCONT');
    bridge.child.kill('SIGKILL');
    await stopHubOf(h.home).catch(() => undefined);
    h.cleanup();
  }
});

for (const how of ['stop', 'handover'] as const) {
  test(`${how}: ${how === 'handover' && SHARES_PORT ? 'the port is never free, so a squatter spinning on it never gets it, and the bridge goes on with the new hub' : 'hub.json is gone before the port is free, and a squatter on it gets nothing from the bridge'}`, { timeout: 120_000 }, async () => {
    const h = tempHome();
    const port = await osFreePort();
    const { bridge, hubPid } = await bridgeWithHub(h.home, port);
    let squatter: Squatter | undefined;
    let newcomer: ChildProcess | undefined;
    try {
      const token = tokenOf(h.home);
      process.kill(bridge.child.pid!, 'SIGSTOP');
      // Where a newcomer listens beside the hub it takes over (listen.ts SHARES_PORT), the port is never free.
      const gapless = how === 'handover' && SHARES_PORT;
      const squatting = squat(port, h.home, !gapless);
      if (how === 'stop') process.kill(hubPid, 'SIGTERM');
      else newcomer = spawn(process.execPath, [PINCER_BIN, 'serve', '--quiet', '--takeover'], { env: pincerEnv(h.home, { HTTP_PORT: String(port) }), stdio: 'ignore' });
      squatter = await squatting;
      if (gapless) {
        await waitFor(() => readHubJson(h.home)?.pid === newcomer!.pid && exited(hubPid), 'the newcomer to take over');
        assert.equal(squatter.bound(), false, 'the squatter got the port in the handover');
        process.kill(bridge.child.pid!, 'SIGCONT');
        // The bridge moves to the new hub, on the same port, and its client's next call is served there.
        bridge.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: `echo ${MARKER}` } } });
        assert.match(JSON.stringify(await bridge.response(2, WAIT_MS)), new RegExp(MARKER));
        assert.equal(squatter.bound(), false);
        assert.equal(squatter.received(), '', 'the squatter was sent something');
        return;
      }
      assert.equal(squatter.hubFileWhenBound, false, 'hub.json still named the port when another process could bind it');
      await waitFor(() => exited(hubPid), 'the old hub to exit');
      process.kill(bridge.child.pid!, 'SIGCONT');

      const message = await callAfterLoss(h.home, bridge, 2);
      assert.match(message, new RegExp(`port ${port}\\b.*(held|in use) by (pid ${squatter.pid}\\b|.*\\(pid ${squatter.pid}\\))`));
      assertNothingSecret(squatter.received(), token);
    } finally {
      squatter?.stop();
      newcomer?.kill('SIGKILL');
      process.kill(bridge.child.pid!, 'SIGCONT');
      bridge.child.kill('SIGKILL');
      await stopHubOf(h.home).catch(() => undefined);
      h.cleanup();
    }
  });
}

/** A pincer command run without blocking this process, which serves the relay and the fake hub itself. */
function pincerRun(home: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PINCER_BIN, ...args], { env: pincerEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** A local program on a port of its own that relays every health probe to the real hub and keeps whatever else it is sent. */
async function relayTo(hubPort: number): Promise<{ port: number; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
    if (!req.url?.startsWith('/api/mcp/health')) {
      res.writeHead(404).end();
      return;
    }
    http.get({ host: '127.0.0.1', port: hubPort, path: req.url }, (up) => {
      res.writeHead(up.statusCode ?? 502, { 'Content-Type': 'application/json' });
      up.pipe(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, requests, close: () => new Promise((r) => server.close(() => r())) };
}

/** What a relay or a fake hub may have been sent: health probes and nothing of the client. */
function onlyProbes(requests: string[], token: string): void {
  for (const r of requests) {
    assert.match(r, /^GET \/api\/mcp\/health(\?challenge=[A-Za-z0-9_-]+)? /, `it was sent "${r.slice(0, 200)}"`);
    assert.ok(!r.includes(token), 'it received the token');
    assert.doesNotMatch(r, /authorization|cookie|x-pincer/i, 'it received credentials or the client identity');
  }
}

test('a program on another port relaying the challenge to the real hub gets a proof bound to the hub\'s own address: bridge, status and connect send it nothing', { timeout: 120_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const relay = await relayTo(hub.port);
  try {
    const paths = pincerPaths(h.home);
    const real = readHubJson(h.home)!;
    // Proven where it really listens; through the relay the same hub's answer proves nothing.
    assert.equal((await proveHub(paths, { ...real, port: hub.port, url: hub.url } as never)).kind, 'proven');
    const relayed = await proveHub(paths, { ...real, port: relay.port, url: `http://127.0.0.1:${relay.port}` } as never);
    assert.equal(relayed.kind, 'impostor');
    // hub.json now names the relay (left over from a hub that listened there, say).
    const recorded = JSON.parse(fs.readFileSync(path.join(h.home, 'hub.json'), 'utf8'));
    fs.writeFileSync(path.join(h.home, 'hub.json'), JSON.stringify({ ...recorded, port: relay.port, url: `http://127.0.0.1:${relay.port}` }));
    const held = new RegExp(`port ${relay.port} is held by .*which is not Pincer`);
    const status = await pincerRun(h.home, ['status']);
    assert.match(status.stdout, held);
    const connect = await pincerRun(h.home, ['connect', 'cursor', '--http']);
    assert.equal(connect.status, 1, connect.stdout + connect.stderr);
    assert.match(connect.stderr, held);
    assert.ok(!fs.existsSync(path.join(h.home, '.cursor', 'mcp.json')), 'no client config names the relay');
    const bridge = new RawStdio(h.home, ['stdio']);
    try {
      bridge.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command: `echo ${MARKER}` } } });
      const r = await bridge.response(1);
      assert.match(JSON.stringify(r.error ?? r), held);
    } finally {
      bridge.child.kill('SIGKILL');
    }
    assert.ok(relay.requests.length >= 3, 'the relay was asked to prove itself');
    onlyProbes(relay.requests, hub.token);
  } finally {
    await relay.close();
    await hub.stop();
    h.cleanup();
  }
});

test('the hub\'s proof names the address it was reached at; an answer without that proof proves nothing, and status and connect send it nothing', { timeout: 60_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const secret = Buffer.from(fs.readFileSync(path.join(h.home, 'hub-secret'), 'utf8').trim(), 'hex');
  const recorded = JSON.parse(fs.readFileSync(path.join(h.home, 'hub.json'), 'utf8'));
  try {
    const challenge = 'current-pincer-challenge-0123456789';
    const body = (await (await fetch(`${hub.url}/api/mcp/health?challenge=${challenge}`)).json()) as { hub: { pid: number; bound: string; at: string } };
    assert.equal(body.hub.at, `127.0.0.1:${hub.port}`);
    assert.equal(body.hub.bound, boundProof(secret, challenge, body.hub.pid, `127.0.0.1:${hub.port}`));
  } finally {
    await hub.stop();
  }
  // Something that answers as a hub would, with a pid and a role, but no proof for this connection's address (a relay that dropped it).
  const requests: string[] = [];
  const fake = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
    const c = new URL(req.url ?? '/', 'http://x').searchParams.get('challenge');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ success: true, status: 'healthy', name: 'pincer', version: '0.0.9', ...(c && { hub: { pid: process.pid, role: 'desktop', proof: 'x'.repeat(43) } }) }));
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const port = (fake.address() as AddressInfo).port;
  try {
    fs.writeFileSync(path.join(h.home, 'hub.json'), JSON.stringify({ ...recorded, pid: process.pid, port, url: `http://127.0.0.1:${port}`, version: '0.0.9', role: 'desktop' }));
    const proof = await proveHub(pincerPaths(h.home), { ...recorded, pid: process.pid, port, url: `http://127.0.0.1:${port}` } as never);
    assert.equal(proof.kind, 'impostor');
    const held = new RegExp(`port ${port} is held by .*which is not Pincer`);
    const connect = await pincerRun(h.home, ['connect', 'cursor', '--http']);
    assert.equal(connect.status, 1, connect.stdout + connect.stderr);
    assert.match(connect.stderr, held);
    assert.ok(!fs.existsSync(path.join(h.home, '.cursor', 'mcp.json')));
    const status = await pincerRun(h.home, ['status']);
    assert.match(status.stdout, held);
    onlyProbes(requests, tokenOf(h.home));
  } finally {
    await new Promise((r) => fake.close(r));
    h.cleanup();
  }
});
