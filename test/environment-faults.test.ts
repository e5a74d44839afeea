import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PINCER_BIN, pincerEnv, tempHome, waitFor, pidAlive } from './helpers/env.js';
import { readHubJson, tokenOf } from './helpers/hub.js';

/*
 * Faults of the environment, as an attacker or a broken machine makes them: the
 * hub's stderr on a full disk, its stdout a closed pipe, its log folder unusable, its log file on
 * a full disk, errors nothing caught. Logging degrades; serving goes on. /dev/full is Linux's.
 */
const linuxOnly = process.platform === 'linux' ? false : '/dev/full is Linux-only';

interface Hub {
  child: ChildProcess;
  url: string;
  token: string;
  stop(): Promise<void>;
}

async function spawnHub(home: string, stdio: ['ignore', 'pipe' | 'ignore' | number, 'pipe' | number], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Hub & { stderr(): string }> {
  const child = spawn(process.execPath, [...nodeArgs, PINCER_BIN, 'serve'], { env: pincerEnv(home, { HTTP_PORT: 'auto', PINCER_LOG_LEVEL: 'debug', ...env }), cwd: home, stdio });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  // A closed pipe: the hub's banner and anything else it prints meets EPIPE.
  child.stdout?.destroy();
  const info = await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`pincer serve exited ${child.exitCode}: ${err}`);
    const j = readHubJson(home);
    return j && j.pid === child.pid ? j : undefined;
  }, 'the hub to write hub.json');
  return {
    child,
    url: info.url,
    token: tokenOf(home),
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null || !child.pid) return;
      child.kill('SIGTERM');
      await waitFor(() => child.exitCode !== null || !pidAlive(child.pid!), 'the hub to exit');
    },
  };
}

/** `n` tool calls over plain JSON-RPC POST, one after another; each must succeed. */
async function calls(hub: Hub, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${hub.url}/api/mcp/jsonrpc`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: i % 2 ? 'ListBgTasks' : 'TaskManager', arguments: i % 2 ? {} : { action: 'list' } } }),
    });
    assert.equal(r.status, 200, `call ${i}`);
    const body = (await r.json()) as { result?: { isError?: boolean } };
    assert.ok(body.result && !body.result.isError, `call ${i}: ${JSON.stringify(body)}`);
  }
}

function logLines(home: string, file = 'hub.log'): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(home, 'logs', file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('faults of the environment are survived', () => {
  test('a hub whose stderr is a full disk (/dev/full) and whose stdout is a closed pipe answers 100 calls, logging to its file', { skip: linuxOnly }, async () => {
    const h = tempHome();
    const full = fs.openSync('/dev/full', 'w');
    let hub: Hub | undefined;
    try {
      hub = await spawnHub(h.home, ['ignore', 'pipe', full]);
      await calls(hub, 100);
      assert.equal(hub.child.exitCode, null, 'the hub is still running');
      const lines = logLines(h.home);
      assert.ok(lines.length > 0);
      for (const l of lines) assert.deepEqual([typeof l.time, typeof l.level, typeof l.scope, typeof l.msg, l.pid], ['string', 'string', 'string', 'string', hub.child.pid]);
    } finally {
      await hub?.stop();
      fs.closeSync(full);
      h.cleanup();
    }
  });

  test('a hub whose log folder cannot be made (logs is a file) serves, and says on stderr that it logs there only', async () => {
    const h = tempHome();
    fs.writeFileSync(path.join(h.home, 'logs'), 'not a folder');
    let hub: (Hub & { stderr(): string }) | undefined;
    try {
      hub = await spawnHub(h.home, ['ignore', 'ignore', 'pipe']);
      await calls(hub, 20);
      assert.equal(hub.child.exitCode, null);
      assert.match(hub.stderr(), /the log file cannot be written \(.*logs[\\/]hub\.log: (ENOTDIR|EEXIST)\); logging to stderr only/);
      assert.equal(fs.readFileSync(path.join(h.home, 'logs'), 'utf8'), 'not a folder');
    } finally {
      await hub?.stop();
      h.cleanup();
    }
  });

  test('a hub whose log file is on a full disk (logs/hub.log → /dev/full) serves', { skip: linuxOnly }, async () => {
    const h = tempHome();
    fs.mkdirSync(path.join(h.home, 'logs'));
    fs.symlinkSync('/dev/full', path.join(h.home, 'logs', 'hub.log'));
    let hub: (Hub & { stderr(): string }) | undefined;
    try {
      hub = await spawnHub(h.home, ['ignore', 'ignore', 'pipe']);
      await calls(hub, 20);
      assert.match(hub.stderr(), /the log file cannot be written \(.*hub\.log: ENOSPC\)/);
    } finally {
      await hub?.stop();
      h.cleanup();
    }
  });

  test('an error nothing caught is logged with its stack, as JSON, and the hub goes on serving', async () => {
    const h = tempHome();
    // Throws from a timer and rejects a promise nobody awaits, once the hub is up.
    const boom = path.join(h.home, 'boom.mjs');
    fs.writeFileSync(boom, "setTimeout(() => { throw new Error('boom from a timer'); }, 1500).unref();\nsetTimeout(() => { void Promise.reject(new RangeError('rejected and forgotten')); }, 1600).unref();\n");
    let hub: Hub | undefined;
    try {
      hub = await spawnHub(h.home, ['ignore', 'ignore', 'pipe'], {}, ['--import', boom]);
      const errors = await waitFor(() => {
        const found = logLines(h.home).filter((l) => l.level === 'error' && /^uncaught/.test(String(l.msg)));
        return found.length >= 2 ? found : undefined;
      }, 'both errors in hub.log');
      const thrown = errors.find((l) => (l.err as { message?: string }).message === 'boom from a timer')!;
      assert.equal(thrown.msg, 'uncaught exception; still serving');
      assert.match((thrown.err as { stack: string }).stack, /Error: boom from a timer\n\s+at .*boom\.mjs/);
      const rejected = errors.find((l) => (l.err as { name?: string }).name === 'RangeError')!;
      assert.equal(rejected.msg, 'uncaught rejection; still serving');
      await calls(hub, 10);
      assert.equal(hub.child.exitCode, null);
    } finally {
      await hub?.stop();
      h.cleanup();
    }
  });
});
