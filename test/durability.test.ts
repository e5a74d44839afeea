/**
 * An acknowledged write survives power loss. A power cut cannot be staged here, so the
 * test watches what power loss depends on: the system calls. For each kind of record the hub keeps
 * (job, task, plan, callback, question), between the write and the moment the caller could answer
 * "done", pincer.db's write-ahead log must be flushed to the disk (fsync/fdatasync). With
 * synchronous=NORMAL it is not: the last commits live only in the page cache until a checkpoint.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, tempHome } from './helpers/env.js';
import { notHere, onlyOn, onPath, skipUnless } from './helpers/prerequisites.js';

const strace = process.platform === 'linux' ? onPath(['strace']) : undefined;
const skip = notHere(onlyOn(['linux'], 'fsync is traced with strace')) || skipUnless(strace ? undefined : 'strace (apt-get install strace)');

// Each record written through the store's own repositories, between markers on stdout.
const WRITER = `
const dist = process.argv[2];
const { openStore } = await import(dist + '/main/store/db.js');
const { JobsRepo } = await import(dist + '/main/store/jobs.js');
const { TodosRepo } = await import(dist + '/main/store/todos.js');
const { PlansRepo } = await import(dist + '/main/store/plans.js');
const { CallbacksRepo } = await import(dist + '/main/store/callbacks.js');
const { QuestionsRepo } = await import(dist + '/main/store/questions.js');
const { db } = openStore(process.argv[3]);
const writes = {
  job: () => new JobsRepo(db).insert({ command: 'true', cwd: '/', logPath: (id) => '/tmp/' + id + '.log', exitPath: (id) => '/tmp/' + id + '.exit' }),
  task: () => new TodosRepo(db).create('survives a power cut'),
  plan: () => new PlansRepo(db).enter('a goal'),
  callback: () => new CallbacksRepo(db).insert({ message: 'later', delayS: 60, repeatTotal: 1, max: 20 }),
  question: () => new QuestionsRepo(db).insert({ questions: [{ question: 'ok?' }], purpose: 'test' }),
};
for (const [name, write] of Object.entries(writes)) {
  process.stdout.write('BEGIN ' + name + '\\n');
  write();
  process.stdout.write('ACK ' + name + '\\n');
}
db.close();
`;

test('every acknowledged write of a job, task, plan, callback or question is flushed to disk before it is acknowledged', { skip }, () => {
  const h = tempHome();
  try {
    const script = path.join(h.home, 'writer.mjs');
    fs.writeFileSync(script, WRITER);
    const trace = path.join(h.home, 'trace.txt');
    const db = path.join(h.home, 'pincer.db');
    const r = spawnSync(strace!, ['-f', '-y', '-e', 'trace=write,pwrite64,fsync,fdatasync', '-o', trace, process.execPath, script, path.join(ROOT, 'dist'), db], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const lines = fs.readFileSync(trace, 'utf8').split('\n');
    for (const name of ['job', 'task', 'plan', 'callback', 'question']) {
      const begin = lines.findIndex((l) => l.includes(`"BEGIN ${name}\\n"`));
      const ack = lines.findIndex((l) => l.includes(`"ACK ${name}\\n"`));
      assert.ok(begin >= 0 && ack > begin, `markers for ${name}`);
      const between = lines.slice(begin + 1, ack);
      const lastWalWrite = between.findLastIndex((l) => /pwrite64\(\d+<[^>]*pincer\.db-wal>/.test(l));
      assert.ok(lastWalWrite >= 0, `the ${name} was written to the WAL: ${between.join('\n')}`);
      const flushed = between.slice(lastWalWrite + 1).some((l) => /f(data)?sync\(\d+<[^>]*pincer\.db-wal>\)\s+= 0/.test(l));
      assert.ok(flushed, `the ${name}'s commit reached the disk before it was acknowledged:\n${between.join('\n')}`);
    }
  } finally {
    h.cleanup();
  }
});
