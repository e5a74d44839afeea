import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { PINCER_BIN, pincerEnv, tempHome, waitFor, quietFor, pidAlive } from './helpers/env.js';
import { startHubProcess, readHubJson } from './helpers/hub.js';

/** Until the hub process has ended (it looks every 2 s and needs two looks in a row). */
const ended = (hub: { child: { exitCode: number | null } }) => waitFor(() => hub.child.exitCode !== null, 'the hub to stop on its own');

test('a hub whose data folder is deleted says why and stops on its own, instead of serving on where no one can find it', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    fs.rmSync(h.home, { recursive: true, force: true });
    await ended(hub);
    assert.equal(hub.child.exitCode, 1);
    assert.match(hub.stderr(), new RegExp(`stopped the hub \\(pid ${hub.child.pid}\\): its data folder ${h.home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was deleted, so nothing could reach it any more`));
    assert.equal(fs.existsSync(h.home), false, 'stopping did not make the folder again');
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a hub whose hub.json or hub.lock is deleted for good stops on its own; one whose hub.json is rewritten naming it serves on', async () => {
  for (const file of ['hub.json', 'hub.lock']) {
    const h = tempHome();
    const hub = await startHubProcess(h.home);
    try {
      fs.rmSync(path.join(h.home, file));
      await ended(hub);
      assert.equal(hub.child.exitCode, 1, file);
      assert.match(hub.stderr(), new RegExp(`${file.replace('.', '\\.')} was deleted, so nothing could reach it any more`));
      assert.match(fs.readFileSync(path.join(h.home, 'logs', 'hub.log'), 'utf8'), new RegExp(`stopping: .*${file.replace('.', '\\.')} was deleted`), 'the log says why too');
    } finally {
      await hub.stop();
      h.cleanup();
    }
  }
  // Written again atomically, still naming this hub (a moment's state as any writer leaves it): not a loss.
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const file = path.join(h.home, 'hub.json');
    const info = readHubJson(h.home)!;
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ ...info, started: new Date().toISOString() }));
    fs.renameSync(`${file}.tmp`, file);
    await quietFor(5000, 'the hub stopping: its watch looks every 2 s');
    assert.equal(hub.child.exitCode, null, hub.stderr());
    assert.ok((await fetch(`${hub.url}/api/mcp/health`)).ok);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a handover rewrites hub.json and the lock changes hands: neither hub takes that for a lost folder', async () => {
  const h = tempHome();
  const first = await startHubProcess(h.home);
  let second: ReturnType<typeof spawn> | undefined;
  try {
    // Plain `pincer serve` takes over a headless hub.
    second = spawn(process.execPath, [PINCER_BIN, 'serve', '--quiet'], { env: pincerEnv(h.home, { HTTP_PORT: 'auto' }), stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    second.stderr!.on('data', (d: Buffer) => (err += d));
    const next = await waitFor(() => {
      const j = readHubJson(h.home);
      return j && j.pid === second!.pid ? j : undefined;
    }, 'the second hub to take over');
    await waitFor(() => first.child.exitCode !== null, 'the first hub to hand over and exit');
    assert.equal(first.child.exitCode, 0, first.stderr());
    assert.doesNotMatch(first.stderr(), /nothing could reach it/);
    // Two looks of the new hub's watch and more: it serves on.
    await quietFor(5000, 'the new hub stopping');
    assert.equal(second.exitCode, null, err);
    assert.ok((await fetch(`${next.url}/api/mcp/health`)).ok);
    assert.doesNotMatch(err, /nothing could reach it/);
  } finally {
    if (second?.pid && second.exitCode === null) {
      second.kill('SIGTERM');
      await waitFor(() => second!.exitCode !== null || !pidAlive(second!.pid!), 'the second hub to exit');
    }
    await first.stop();
    h.cleanup();
  }
});
