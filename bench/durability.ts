import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { table, type Row } from './lib.js';
import { startHub, httpClient, time } from './harness.js';
import { openStore } from '../main/store/db.js';
import { TodosRepo } from '../main/store/todos.js';

const N = Number(process.env.BENCH_CALLS ?? 200);

/** One write transaction (a task row) in pincer.db with the given synchronous mode, per commit, in ms. */
function commits(mode: 'NORMAL' | 'FULL'): number[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-bench-durability-'));
  try {
    const { db } = openStore(path.join(dir, 'pincer.db'));
    db.pragma(`synchronous = ${mode}`);
    const repo = new TodosRepo(db);
    const samples: number[] = [];
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      repo.create(`task ${i}`);
      samples.push(performance.now() - t0);
    }
    db.close();
    return samples;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What synchronous=FULL costs (so that an acknowledged write survives a power cut): a commit waits for the WAL to reach the disk. Measured at
 * the store (one task row, NORMAL against FULL, same disk) and through the hub (a tool call that
 * writes, TaskManager create, against one that only reads, ListBgTasks, on the same hub).
 */
export async function benchDurability(): Promise<string[]> {
  const store: Row[] = [
    { name: 'commit, synchronous=FULL (now)', samples: commits('FULL') },
    { name: 'commit, synchronous=NORMAL (before)', samples: commits('NORMAL') },
  ];
  const hub = await startHub();
  const a = await httpClient(hub.url, hub.token);
  const calls: Row[] = [
    { name: 'TaskManager create (writes, FULL)', samples: [] },
    { name: 'ListBgTasks (reads only)', samples: [] },
  ];
  for (let i = 0; i < N; i++) {
    calls[0]!.samples.push(await time(() => a.client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: `bench ${i}` } })));
    calls[1]!.samples.push(await time(() => a.client.callTool({ name: 'ListBgTasks', arguments: {} })));
  }
  await a.close();
  await hub.stop();
  return [table('Durability: one write transaction in pincer.db', store), table('Durability: a writing tool call over Streamable HTTP', calls)];
}
