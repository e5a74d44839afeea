import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { connectV2, textOf } from './helpers/clients.js';
import { readHubJson, tokenOf, startHubProcess } from './helpers/hub.js';
import { tempHome, waitFor, pidAlive } from './helpers/env.js';
import { LATE_AFTER_MS } from '../main/store/callbacks.js';

test('tasks, plan, callbacks and pending questions survive SIGKILL of the hub; a callback due meanwhile fires once, late', async () => {
  const h = tempHome();
  const { client, transport } = await connectV2({ home: h.home, args: ['stdio'], env: { HTTP_PORT: 'auto' } });
  try {
    await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: 'Survive a crash' } });
    await client.callTool({ name: 'TaskManager', arguments: { action: 'add', text: 'step one' } });
    await client.callTool({ name: 'PlanMode', arguments: { action: 'enter', goal: 'Crash-proof plan' } });
    await client.callTool({ name: 'SetCallback', arguments: { message: 'wake up', delay_seconds: 2, repeat_count: 2 } });
    const asking = client
      .callTool({ name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify([{ question: 'Still there?', options: ['yes', 'no'] }]) } })
      .then((r) => textOf(r), (e: Error) => e.message);
    const hub = readHubJson(h.home)!;
    const headers = { Authorization: `Bearer ${tokenOf(h.home)}` };
    await waitFor(async () => (await (await fetch(`${hub.url}/api/questions`, { headers })).json()).pending.length === 1, 'the question to be pending');

    // Kill the bridge first so that it cannot start a new hub, then the hub, both without warning. The hub
    // is frozen first: on a loaded machine it could otherwise see the bridge's pipe close, and cancel the
    // call, before its own SIGKILL lands.
    process.kill(hub.pid, 'SIGSTOP');
    process.kill(transport.pid!, 'SIGKILL');
    process.kill(hub.pid, 'SIGKILL');
    await waitFor(() => !pidAlive(hub.pid), 'the hub to die');
    await asking;
    await client.close().catch(() => undefined);
    const db = new Database(path.join(h.home, 'pincer.db'), { readonly: true });
    // The callback becomes due (2 s) while no Pincer runs, and overdue enough that its fire will be late.
    const due = (db.prepare('SELECT next_fire_at FROM callbacks').get() as { next_fire_at: number }).next_fire_at;
    await waitFor(() => Date.now() > due + LATE_AFTER_MS, 'the callback to be overdue');
    const fires = () => db.prepare('SELECT fire_number, late, scheduled_at, fired_at FROM callback_fires ORDER BY id').all() as { fire_number: number; late: number; scheduled_at: number; fired_at: number }[];
    assert.deepEqual(fires(), [], 'nothing fired while Pincer was down');

    const restarted = await startHubProcess(h.home);
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      await waitFor(() => fires().length >= 2, 'the overdue fire and the next one');
      const [late, next, ...more] = fires().map(({ fire_number, late, scheduled_at, fired_at }) => ({ fire_number, late, scheduled_at, fired_at }));
      assert.deepEqual([late?.fire_number, late?.late, more], [1, 1, []], 'the missed fire fires once, marked late');
      // No catch-up burst: the next fire is re-armed from the late one, on time.
      assert.deepEqual({ fire_number: next?.fire_number, late: next?.late }, { fire_number: 2, late: 0 });
      assert.equal(next!.scheduled_at, late!.fired_at + 2000, 'the next fire is scheduled a period after the late one');

      const call = async (name: string, args: Record<string, unknown>) =>
        (await (await fetch(`${restarted.url}/api/mcp/tools/call`, { method: 'POST', headers: restarted.headers(), body: JSON.stringify({ name, arguments: args }) })).json()) as { content: { text: string }[]; structuredContent: Record<string, unknown> };
      assert.match((await call('TaskManager', { action: 'list' })).content[0]!.text, /▶ Task 1: Survive a crash — 0\/1 done\n  \[ \] 1\. step one/);
      const plan = await call('PlanMode', { action: 'json' });
      assert.equal(plan.structuredContent.active, true);
      assert.equal(plan.structuredContent.goal, 'Crash-proof plan');
      const q = await (await fetch(`${restarted.url}/api/questions`, { headers: restarted.headers() })).json();
      assert.equal(q.pending.length, 1);
      assert.equal(q.pending[0].questions[0].question, 'Still there?');
    } finally {
      db.close();
      await restarted.stop();
    }
  } finally {
    const info = readHubJson(h.home);
    if (info && pidAlive(info.pid)) {
      process.kill(info.pid, 'SIGTERM');
      await waitFor(() => !pidAlive(info.pid), 'the hub to stop');
    }
    fs.rmSync(h.home, { recursive: true, force: true });
  }
});
