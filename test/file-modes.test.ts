import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PINCER_BIN, pincerEnv, tempHome, waitFor } from './helpers/env.js';
import { connectV2, textOf } from './helpers/clients.js';
import { readHubJson, stopHubOf, tokenOf } from './helpers/hub.js';

// The attack: a permissive umask, so that anything Pincer creates without an explicit mode is world-readable.
let savedUmask = 0;
before(() => {
  savedUmask = process.umask(0o000);
});
after(() => {
  process.umask(savedUmask);
});

/** Every path under `home` whose mode is wider than 0700 (folders) or 0600 (files). */
function widerThanPrivate(home: string): string[] {
  const wide: string[] = [];
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode & 0o077) wide.push(`${path.relative(home, p) || '.'} ${mode.toString(8)}`);
      for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    } else if (mode & 0o177) wide.push(`${path.relative(home, p)} ${mode.toString(8)}`);
  };
  walk(home);
  return wide;
}

function run(home: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; out: string }> {
  const child = spawn(process.execPath, [PINCER_BIN, ...args], { env: pincerEnv(home, { HTTP_PORT: 'auto', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, out })));
}

/** `pincer serve` started outside its (not yet existing) data folder; resolves once it answers. */
async function serveFresh(home: string): Promise<{ url: string; headers: Record<string, string>; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [PINCER_BIN, 'serve', '--quiet'], { env: pincerEnv(home, { HTTP_PORT: 'auto' }), cwd: path.dirname(home), stdio: 'ignore' });
  const info = await waitFor(() => {
    const j = readHubJson(home);
    return j && j.pid === child.pid ? j : undefined;
  }, 'the hub to start');
  await waitFor(async () => (await fetch(`${info.url}/api/mcp/health`).catch(() => undefined))?.ok, 'the hub to answer');
  return {
    url: info.url,
    headers: { Authorization: `Bearer ${tokenOf(home)}`, 'Content-Type': 'application/json' },
    async stop() {
      child.kill('SIGTERM');
      await waitFor(() => child.exitCode !== null || child.signalCode !== null, 'the hub to stop');
    },
  };
}

/** A data folder that does not exist yet, so the command under test creates it. */
function freshHome(): { home: string; cleanup(): void } {
  const parent = tempHome('pincer-modes-');
  return { home: path.join(parent.home, 'pincer-home'), cleanup: parent.cleanup };
}

function assertPrivate(home: string, what: string, mustHave: string[]): void {
  assert.equal(fs.statSync(home).mode & 0o777, 0o700, `${what}: the data folder is 0700`);
  for (const f of mustHave) assert.ok(fs.existsSync(path.join(home, f)), `${what} created ${f}`);
  assert.deepEqual(widerThanPrivate(home), [], `${what}: everything inside is 0600/0700`);
}

test('pincer serve creates a private home: database, WAL, logs, hub.json, secret, lock', async () => {
  const h = freshHome();
  const hub = await serveFresh(h.home);
  try {
    const r = await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'BackgroundBash', arguments: { command: 'echo private' } } }) });
    assert.equal(r.status, 200);
    await waitFor(() => fs.readdirSync(path.join(h.home, 'jobs')).length > 0, 'the job log');
    assertPrivate(h.home, 'serve', ['pincer.db', 'pincer.db-wal', 'logs/hub.log', 'hub.json', 'hub-secret', 'hub.lock', 'pincer-env.txt']);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('pincer stdio (the bridge and the hub it starts) creates a private home, job logs included', async () => {
  const h = freshHome();
  const { client } = await connectV2({ home: h.home, args: ['stdio'], cwd: path.dirname(h.home), env: { HTTP_PORT: 'auto' } });
  try {
    const job = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo from-a-job' } });
    const id = (job.structuredContent as { task_id: number }).task_id;
    await waitFor(async () => /from-a-job/.test(textOf(await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 1000 } }))), 'the job output');
    assertPrivate(h.home, 'stdio', ['pincer.db', 'logs/bridge.log', 'logs/hub-start.log', `jobs`]);
    assert.ok(fs.readdirSync(path.join(h.home, 'jobs')).length > 0);
  } finally {
    await client.close();
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('pincer stdio --standalone creates a private home', async () => {
  const h = freshHome();
  const { client } = await connectV2({ home: h.home, cwd: path.dirname(h.home) });
  try {
    assert.match(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo ok' } })), /ok/);
    await client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo standalone-job' } });
    assertPrivate(h.home, 'stdio --standalone', ['pincer.db', 'logs/stdio.log']);
  } finally {
    await client.close();
    h.cleanup();
  }
});

for (const args of [['token'], ['token', 'rotate'], ['status'], ['stop'], ['connect', 'cursor']]) {
  test(`pincer ${args.join(' ')} as the first command creates a private home`, async () => {
    const h = freshHome();
    try {
      const r = await run(h.home, args, { HOME: path.dirname(h.home) });
      assert.ok(r.status === 0 || (args[0] === 'status' && r.status === 1), r.out);
      assertPrivate(h.home, args.join(' '), args[0] === 'token' ? ['pincer-env.txt'] : []);
    } finally {
      h.cleanup();
    }
  });
}

test('a home made 0755 with a 0644 database in it (a mkdir and a copy under a 022 umask) is tightened by the next start', async () => {
  const h = freshHome();
  fs.mkdirSync(h.home, { mode: 0o755 });
  fs.chmodSync(h.home, 0o755);
  fs.writeFileSync(path.join(h.home, 'pincer.db'), '', { mode: 0o644 });
  fs.chmodSync(path.join(h.home, 'pincer.db'), 0o644);
  const hub = await serveFresh(h.home);
  try {
    assertPrivate(h.home, 'serve on a wide home', ['pincer.db']);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
