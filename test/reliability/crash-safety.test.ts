import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startHubProcess, type HubProcess } from '../helpers/hub.js';
import { tempHome, waitFor, WAIT_MS } from '../helpers/env.js';
import { rng } from '../helpers/fuzz.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 5);

async function call(hub: HubProcess, name: string, args: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name, arguments: args }), signal: AbortSignal.timeout(WAIT_MS) });
    const body = (await res.json()) as { success: boolean; structuredContent?: Record<string, unknown> };
    return body.success ? (body.structuredContent ?? {}) : undefined;
  } catch {
    return undefined; // The hub died mid-request: not acknowledged, so not promised.
  }
}

test(`SIGKILL the hub at random moments while clients write (${ROUNDS} rounds): the database stays whole and every acknowledged write is there`, async () => {
  const h = tempHome();
  const r = rng(7);
  const acked = { tasks: new Set<string>(), jobs: new Set<number>(), callbacks: 0 };
  const jobPids: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const hub = await startHubProcess(h.home, { CALLBACK_MAX: '8' });
      let stop = false;
      let n = 0;
      let acks = 0;
      const writer = async (kind: number) => {
        while (!stop) {
          const i = `${round}-${kind}-${n++}`;
          if (kind === 0) {
            const ok = await call(hub, 'TaskManager', { action: 'create', text: `task ${i}` });
            if (ok) {
              acks++;
              acked.tasks.add(`task ${i}`);
            }
          } else if (kind === 1) {
            const ok = await call(hub, 'BackgroundBash', { command: `echo job ${i}` });
            if (ok) {
              acks++;
              acked.jobs.add(ok.task_id as number);
              jobPids.push(ok.pid as number);
            }
          } else {
            const ok = await call(hub, 'SetCallback', { message: `cb ${i}`, delay_seconds: 3600 });
            if (ok) {
              acks++;
              acked.callbacks++;
            } else await call(hub, 'SetCallback', { action: 'cancel' });
          }
        }
      };
      const writers = [0, 0, 1, 2].map((k) => writer(k));
      // A random moment in the stream of writes (counted, not timed: a loaded machine writes fewer per second).
      const target = 1 + Math.floor(r() * 25);
      await waitFor(() => acks >= target, `${target} acknowledged writes`);
      process.kill(hub.child.pid!, 'SIGKILL');
      stop = true;
      await Promise.all(writers);
      await hub.stop();
    }
    const db = new Database(path.join(h.home, 'pincer.db'));
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const names = new Set((db.prepare('SELECT name FROM tasks').all() as { name: string }[]).map((t) => t.name));
      const missing = [...acked.tasks].filter((t) => !names.has(t));
      assert.deepEqual(missing, [], 'every task a client saw acknowledged is in the database');
      const jobs = new Set((db.prepare('SELECT id FROM jobs').all() as { id: number }[]).map((j) => j.id));
      assert.deepEqual([...acked.jobs].filter((j) => !jobs.has(j)), []);
      const cbs = (db.prepare('SELECT COUNT(*) AS n FROM callbacks').get() as { n: number }).n;
      assert.ok(cbs >= acked.callbacks, `callbacks: ${cbs} rows for ${acked.callbacks} acknowledged`);
      assert.ok(acked.tasks.size > ROUNDS, `the writers got work done (${acked.tasks.size} tasks)`);
    } finally {
      db.close();
    }
    // A new hub opens the same database and serves.
    const last = await startHubProcess(h.home);
    assert.ok((await call(last, 'TaskManager', { action: 'list' })) !== undefined);
    await last.stop();
  } finally {
    for (const pid of jobPids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Finished long ago.
      }
    }
    h.cleanup();
  }
});
