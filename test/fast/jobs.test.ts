import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { bgRead, textOf } from '../helpers/clients.js';
import { pidAlive, waitFor } from '../helpers/env.js';
import { inProcess } from '../helpers/in-process.js';

// The background-job tools' logic on real jobs (a real supervisor process each), called in-process
// (ReadBgOutput's answer is read as test/helpers/clients.ts bgRead reads it).
// A job waits on a gate file the test creates, so no step depends on how fast the machine is.

type Job = { task_id: number; status: string; exit_code: number | null; pid: number };
const sc = (r: unknown) => (r as { structuredContent: Job & { tasks?: Job[] } }).structuredContent;

test('BackgroundBash starts a job; ReadBgOutput returns only what is new, waits for it with wait_ms and reports the exit; ListBgTasks lists it', async (t) => {
  const p = await inProcess({}, t);
  const { client } = await p.connect();
  const gate = path.join(p.home, 'gate');
  const started = await client.callTool({ name: 'BackgroundBash', arguments: { command: `echo one; while [ ! -e ${gate} ]; do sleep 0.05; done; echo two; exit 3` } });
  const id = sc(started).task_id;
  assert.match(textOf(started), new RegExp(`^Started background task ${id} \\(pid \\d+\\) in .*Read its output with ReadBgOutput \\{"task_id": ${id}\\}`));
  const read = (wait_ms = 5000) => client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms } });

  const first = await waitFor(async () => {
    const r = bgRead(await read());
    return r.output ? r : undefined;
  }, 'the first line of the job');
  assert.equal(first.output, 'one\n');
  assert.equal(first.status, 'running');
  assert.equal(bgRead(await read(0)).output, '', 'nothing new since the last read');

  fs.writeFileSync(gate, '');
  let rest = '';
  const ended = await waitFor(async () => {
    const r = await read();
    rest += bgRead(r).output;
    return bgRead(r).status === 'running' ? undefined : r;
  }, 'the job to end');
  assert.equal(rest, 'two\n');
  assert.deepEqual([bgRead(ended).status, bgRead(ended).exit_code], ['exited 3', 3]);
  assert.match(textOf(ended), new RegExp(`^Task ${id} \\[exited 3\\]`));

  const listed = await client.callTool({ name: 'ListBgTasks', arguments: {} });
  assert.deepEqual(sc(listed).tasks?.map((job) => [job.task_id, job.status]), [[id, 'exited 3']]);
  assert.match(textOf(listed), /^Background task: all 1; 0 running\./);
});

test('KillBgTask stops a running job and its shell; an unknown id is an error naming it and what to do', async (t) => {
  const p = await inProcess({}, t);
  const { client } = await p.connect();
  const job = sc(await client.callTool({ name: 'BackgroundBash', arguments: { command: 'sleep 300' } }));
  const killed = await client.callTool({ name: 'KillBgTask', arguments: { task_id: job.task_id } });
  assert.equal(sc(killed).status, 'killed');
  assert.match(textOf(killed), new RegExp(`^Killed task ${job.task_id} \\(sleep 300\\) and every process it started: terminated`));
  await waitFor(() => !pidAlive(job.pid), `the job's shell (pid ${job.pid}) to be gone`);
  assert.equal(sc(await client.callTool({ name: 'ListBgTasks', arguments: {} })).tasks?.[0]?.status, 'killed');
  for (const tool of ['KillBgTask', 'ReadBgOutput']) {
    const r = await client.callTool({ name: tool, arguments: { task_id: 999 } });
    assert.equal(r.isError, true);
    assert.equal(textOf(r), `${tool}: there is no background task 999. ListBgTasks shows the ids of all tasks.`);
  }
});
