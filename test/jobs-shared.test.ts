import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectV2, textOf, bgRead } from './helpers/clients.js';
import { tempHome } from './helpers/env.js';

type Task = { task_id: number; status: string; command: string };
type Listed = { tasks: Task[] };

/**
 * Two Pincer processes on one data folder. ListBgTasks is served from memory while the jobs table
 * cannot have changed; whatever the other process writes must show in the very next call.
 */
test('jobs started, read and killed by another process show at once in a process that listed them before', async () => {
  const h = tempHome();
  const a = await connectV2({ home: h.home });
  const b = await connectV2({ home: h.home });
  const list = async (): Promise<Task[]> => ((await a.client.callTool({ name: 'ListBgTasks', arguments: {} })).structuredContent as Listed).tasks;
  try {
    // A has looked (twice: the second answer comes from what it kept).
    assert.deepEqual(await list(), []);
    assert.deepEqual(await list(), []);

    const started = await b.client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo one; sleep 300' } });
    const id = (started.structuredContent as { task_id: number }).task_id;
    const seen = await list();
    assert.deepEqual(
      seen.map((t) => [t.task_id, t.status, t.command]),
      [[id, 'running', 'echo one; sleep 300']],
      'a job B started is listed by A on its next call',
    );

    // B reads the output first: A's read starts where B's ended (the offset lives in the shared row).
    const readB = await b.client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 5000 } });
    assert.match(textOf(readB), /one/);
    const readA = await a.client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id } });
    assert.equal(bgRead(readA).output, '', 'A does not read again what B already read');

    const killed = await b.client.callTool({ name: 'KillBgTask', arguments: { task_id: id } });
    assert.ok(!killed.isError, textOf(killed));
    assert.deepEqual((await list()).map((t) => [t.task_id, t.status]), [[id, 'killed']], 'the kill B recorded is listed by A on its next call');

    // And the other way round: A's own change is seen by A itself at once and by B.
    const second = await a.client.callTool({ name: 'BackgroundBash', arguments: { command: 'exit 3' } });
    const id2 = (second.structuredContent as { task_id: number }).task_id;
    // Newest first.
    assert.deepEqual((await list()).map((t) => t.task_id), [id2, id]);
    const fromB = ((await b.client.callTool({ name: 'ListBgTasks', arguments: {} })).structuredContent as Listed).tasks;
    assert.deepEqual(fromB.map((t) => t.task_id), [id2, id]);
  } finally {
    await a.client.close();
    await b.client.close();
    h.cleanup();
  }
});

test('commands run with the environment Pincer was started with, in Bash and in background jobs', async () => {
  const h = tempHome();
  const { client } = await connectV2({ home: h.home, env: { PINCER_TEST_MARK: 'mark with spaces = and =' } });
  try {
    const echo = 'printf "[%s]" "$PINCER_TEST_MARK"';
    for (let i = 0; i < 2; i++) {
      const r = await client.callTool({ name: 'Bash', arguments: { command: echo } });
      assert.equal((r.structuredContent as { output: string }).output, '[mark with spaces = and =]');
    }
    const started = await client.callTool({ name: 'BackgroundBash', arguments: { command: echo } });
    const id = (started.structuredContent as { task_id: number }).task_id;
    const read = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 5000 } });
    assert.equal(bgRead(read).output, '[mark with spaces = and =]');
  } finally {
    await client.close();
    h.cleanup();
  }
});
