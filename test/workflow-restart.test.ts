import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { connectV2, textOf } from './helpers/clients.js';
import { readHubJson, tokenOf, startHubProcess } from './helpers/hub.js';
import { tempHome, waitFor, pidAlive, sleep } from './helpers/env.js';

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
    // The callback becomes due (2 s) while no Pincer runs.
    await sleep(3500);

    const db = new Database(path.join(h.home, 'pincer.db'), { readonly: true });
    const fires = () => db.prepare('SELECT fire_number, late FROM callback_fires ORDER BY id').all() as { fire_number: number; late: number }[];
    assert.deepEqual(fires(), [], 'nothing fired while Pincer was down');

    const restarted = await startHubProcess(h.home);
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      await waitFor(() => fires().length >= 1, 'the overdue fire');
      await sleep(700);
      assert.deepEqual(fires(), [{ fire_number: 1, late: 1 }], 'the missed fire fires once, marked late');
      await waitFor(() => fires().length === 2, 'the next fire, re-armed from the late one', 10_000);
      assert.deepEqual(fires()[1], { fire_number: 2, late: 0 });

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
    if (info && pidAlive(info.pid)) process.kill(info.pid, 'SIGTERM');
    await sleep(200);
    fs.rmSync(h.home, { recursive: true, force: true });
  }
});
