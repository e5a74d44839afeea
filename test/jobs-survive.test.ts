import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connectV2, textOf, bgRead } from './helpers/clients.js';
import { tempHome, waitFor, pidAlive } from './helpers/env.js';

test('a job outlives a SIGKILLed pincer; the next pincer lists it, reads it and records its real exit code', async () => {
  const h = tempHome();
  const gate = path.join(h.home, 'gate');
  try {
    const first = await connectV2({ home: h.home });
    const start = await first.client.callTool({
      name: 'BackgroundBash',
      arguments: { command: `echo before; while [ ! -e ${gate} ]; do sleep 0.1; done; echo after; exit 42` },
    });
    const id = (start.structuredContent as { task_id: number; pid: number }).task_id;
    const jobPid = (start.structuredContent as { pid: number }).pid;
    const first1 = await first.client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 5000 } });
    assert.match(textOf(first1), /before/);

    const pincerPid = first.transport.pid!;
    process.kill(pincerPid, 'SIGKILL');
    await waitFor(() => !pidAlive(pincerPid), 'pincer to die');
    await first.client.close().catch(() => undefined);
    assert.ok(pidAlive(jobPid), 'the job is still running after pincer was killed');

    const second = await connectV2({ home: h.home });
    try {
      const list = await second.client.callTool({ name: 'ListBgTasks', arguments: {} });
      const row = (list.structuredContent as { tasks: { task_id: number; status: string }[] }).tasks.find((t) => t.task_id === id);
      assert.equal(row?.status, 'running');
      fs.writeFileSync(gate, '');
      let out = '';
      const done = await waitFor(async () => {
        const r = await second.client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 2000 } });
        const s = bgRead(r);
        out += s.output;
        return s.status !== 'running' ? s : undefined;
      }, 'the job to finish');
      assert.equal(done.status, 'exited 42');
      assert.equal(done.exit_code, 42);
      assert.equal(out, 'after\n', 'the read position survived the restart: only new output');
    } finally {
      await second.client.close();
    }
  } finally {
    h.cleanup();
  }
});

test('a job that dies without recording an exit code is reported as lost', async () => {
  const h = tempHome();
  try {
    const { client } = await connectV2({ home: h.home });
    try {
      const start = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'sleep 300' } });
      const { task_id: id, pid } = start.structuredContent as { task_id: number; pid: number };
      process.kill(-pid, 'SIGKILL');
      const status = await waitFor(async () => {
        const r = await client.callTool({ name: 'ListBgTasks', arguments: {} });
        const row = (r.structuredContent as { tasks: { task_id: number; status: string }[] }).tasks.find((t) => t.task_id === id)!;
        return row.status === 'lost' ? row.status : undefined;
      }, 'the job to be marked lost');
      assert.equal(status, 'lost');
    } finally {
      await client.close();
    }
  } finally {
    h.cleanup();
  }
});

test('the concurrent job limit is a clear error', async () => {
  const h = tempHome();
  try {
    const { client } = await connectV2({ home: h.home, env: { JOB_MAX_CONCURRENT: '1' } });
    try {
      const a = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'sleep 300' } });
      const b = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'sleep 300' } });
      assert.equal(b.isError, true);
      assert.match(textOf(b), /1 jobs are already running \(JOB_MAX_CONCURRENT\)/);
      await client.callTool({ name: 'KillBgTask', arguments: { task_id: (a.structuredContent as { task_id: number }).task_id } });
    } finally {
      await client.close();
    }
  } finally {
    h.cleanup();
  }
});

test('output past JOB_LOG_MAX_BYTES is dropped with a note, without stopping the job', async () => {
  const h = tempHome();
  try {
    const { client } = await connectV2({ home: h.home, env: { JOB_LOG_MAX_BYTES: '2048' } });
    try {
      const start = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'head -c 100000 /dev/zero | tr "\\0" y; echo; echo tail-marker >&2; exit 3' } });
      const id = (start.structuredContent as { task_id: number }).task_id;
      let text = '';
      let total = 0;
      await waitFor(async () => {
        const r = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 1000 } });
        const s = bgRead(r);
        total += s.output.length;
        text = textOf(r);
        return s.status !== 'running';
      }, 'the job to end');
      assert.equal(total, 2048);
      assert.match(text, /exited 3/);
      assert.match(text, /output beyond 2048 bytes was dropped/);
    } finally {
      await client.close();
    }
  } finally {
    h.cleanup();
  }
});
