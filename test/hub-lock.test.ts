import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PINCER_BIN, pincerEnv, tempHome, waitFor, pidAlive, WAIT_MS } from './helpers/env.js';
import { startHubProcess, readHubJson } from './helpers/hub.js';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'helpers', 'lock-worker.js');

function pincer(home: string, args: string[]) {
  return spawnSync(process.execPath, [PINCER_BIN, ...args], { env: pincerEnv(home), encoding: 'utf8', timeout: WAIT_MS });
}

/** A process that has nothing to do with Pincer, as one that reused a dead hub's pid would be. */
function unrelatedSleeper(): ChildProcess {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  assert.ok(child.pid);
  return child;
}

test('pid reuse: stop, status and serve check that the recorded pid is really this home\'s hub, and never signal a stranger', async () => {
  const h = tempHome();
  const sleeper = unrelatedSleeper();
  try {
    const crashed = await startHubProcess(h.home);
    const recorded = readHubJson(h.home)!;
    crashed.child.kill('SIGKILL');
    await waitFor(() => crashed.child.exitCode !== null || crashed.child.signalCode !== null, 'the hub to die');
    // The dead hub's pid now belongs to an unrelated sleeping process (in hub.json and in the old-style lock file).
    fs.writeFileSync(path.join(h.home, 'hub.json'), JSON.stringify({ ...recorded, pid: sleeper.pid }));
    fs.writeFileSync(path.join(h.home, 'hub.lock'), String(sleeper.pid));

    const status = pincer(h.home, ['status']);
    assert.equal(status.status, 1, status.stdout + status.stderr);
    assert.match(status.stdout, new RegExp(`No Pincer hub runs for .*hub\\.json is left over from pid ${sleeper.pid}, now a different process`));

    const stop = pincer(h.home, ['stop']);
    assert.equal(stop.status, 0, stop.stderr);
    assert.match(stop.stdout, new RegExp(`No Pincer hub is running .*named pid ${sleeper.pid}, which is not its hub .*left alone`));
    assert.ok(pidAlive(sleeper.pid!), 'the unrelated process was not signalled');
    assert.equal(sleeper.exitCode, null);

    // A crashed hub and a reused pid do not block the next start.
    const next = await startHubProcess(h.home);
    try {
      assert.equal(readHubJson(h.home)!.pid, next.child.pid);
      const ok = pincer(h.home, ['status']);
      assert.equal(ok.status, 0, ok.stdout);
      assert.match(ok.stdout, new RegExp(`Pincer hub .* at ${next.url} \\(pid ${next.child.pid}, headless`));
      const stopped = pincer(h.home, ['stop']);
      assert.equal(stopped.status, 0, stopped.stderr);
      assert.match(stopped.stdout, new RegExp(`Stopped the Pincer hub \\(pid ${next.child.pid}`));
      await waitFor(() => next.child.exitCode !== null, 'the verified hub to exit after pincer stop');
    } finally {
      await next.stop();
    }
    assert.ok(pidAlive(sleeper.pid!), 'still alive at the end');
  } finally {
    sleeper.kill('SIGKILL');
    h.cleanup();
  }
});

test("another home's hub at the recorded address is not this home's hub: stop leaves it running", async () => {
  const a = tempHome();
  const b = tempHome();
  const hubB = await startHubProcess(b.home);
  try {
    // Home A once ran a hub (so it has its own hub-secret), and its hub.json now points at B's live hub.
    const hubA = await startHubProcess(a.home);
    await hubA.stop();
    fs.copyFileSync(path.join(b.home, 'hub.json'), path.join(a.home, 'hub.json'));
    const stop = pincer(a.home, ['stop']);
    assert.equal(stop.status, 0, stop.stderr);
    assert.match(stop.stdout, /not its hub \(what answers there is not the hub of this data folder\)/);
    assert.ok((await fetch(`${hubB.url}/api/mcp/health`)).ok, "B's hub still answers");
    assert.equal(hubB.child.exitCode, null);
    const status = pincer(a.home, ['status']);
    assert.equal(status.status, 1);
  } finally {
    await hubB.stop();
    a.cleanup();
    b.cleanup();
  }
});

test('the health endpoint proves identity only to a challenge and leaks no secret', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const plain = (await (await fetch(`${hub.url}/api/mcp/health`)).json()) as Record<string, unknown>;
    assert.equal(plain.hub, undefined, 'no identity without a challenge');
    const secret = fs.readFileSync(path.join(h.home, 'hub-secret'), 'utf8').trim();
    const answered = await (await fetch(`${hub.url}/api/mcp/health?challenge=${'a'.repeat(32)}`)).text();
    assert.ok(!answered.includes(secret) && !answered.includes(hub.token), 'neither the secret nor the token is in the answer');
    assert.match(answered, new RegExp(`"pid":${hub.child.pid}`));
    const bad = (await (await fetch(`${hub.url}/api/mcp/health?challenge=${encodeURIComponent('<script>')}`)).json()) as Record<string, unknown>;
    assert.equal(bad.hub, undefined, 'a malformed challenge gets no proof');
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('simultaneous takeover of a stale lock: 100 rounds, exactly one winner each', { timeout: 600_000 }, async () => {
  const h = tempHome();
  const CONTENDERS = 4;
  const workers = new Set<ChildProcess>();
  const spawnWorker = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      const w = fork(WORKER, [h.home], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      workers.add(w);
      w.once('message', () => resolve(w));
      w.once('error', reject);
    });
  try {
    const pool = await Promise.all(Array.from({ length: CONTENDERS }, spawnWorker));
    const started = Date.now();
    for (let round = 0; round < 100; round++) {
      // Every other round the lock file holds something that is not SQLite's (a dead pid as text).
      if (round % 2 === 1) fs.writeFileSync(path.join(h.home, 'hub.lock'), '999999');
      const results = await Promise.all(
        pool.map(
          (w) =>
            new Promise<{ pid: number; won: boolean }>((resolve) => {
              w.once('message', (m) => resolve(m as { pid: number; won: boolean }));
              w.send('go');
            }),
        ),
      );
      const winners = results.filter((r) => r.won);
      assert.equal(winners.length, 1, `round ${round}: ${winners.length} winners`);
      // The winner crashes: its lock is now stale, for the next round to take over.
      const winnerAt = pool.findIndex((w) => w.pid === winners[0]!.pid);
      const dead = pool[winnerAt]!;
      dead.kill('SIGKILL');
      await new Promise((r) => (dead.exitCode !== null || dead.signalCode !== null ? r(undefined) : dead.once('exit', r)));
      workers.delete(dead);
      pool[winnerAt] = await spawnWorker();
    }
    // How long 100 rounds take is the machine's business (400 processes start): said, not bounded.
    console.log(`# 100 rounds in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    for (const w of workers) w.kill('SIGKILL');
    h.cleanup();
  }
});
