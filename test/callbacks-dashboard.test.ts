import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHubProcess } from './helpers/hub.js';
import { tempHome, quietFor, waitFor } from './helpers/env.js';

test('the dashboard cancels a callback through the same service as SetCallback: it stops firing and the tool sees it gone', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const headers = hub.headers({ 'X-Pincer-Client': 'cb-dashboard' });
  const tool = async (args: Record<string, unknown>) => (await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers, body: JSON.stringify({ name: 'SetCallback', arguments: args }) })).json();
  const view = async () => (await (await fetch(`${hub.url}/api/callbacks`, { headers })).json()) as { callbacks: { id: number }[]; recent: { id: number }[] };
  try {
    const set = await tool({ action: 'set', message: 'ping', delay_seconds: 1, repeat_count: -1 });
    assert.equal(set.isError, false, JSON.stringify(set));
    const slot = (set.structuredContent as { callbacks: { callback_id: number }[] }).callbacks[0]!.callback_id;
    await waitFor(async () => (await view()).recent.length >= 1, 'a first fire');
    const cancel = await fetch(`${hub.url}/api/callbacks/${slot}/cancel`, { method: 'POST', headers });
    assert.equal(cancel.status, 200);
    const fires = (await view()).recent.length;
    assert.deepEqual((await view()).callbacks, []);
    const again = await tool({ action: 'cancel', callback_id: slot });
    assert.deepEqual({ isError: again.isError, reason: again.error?.reason }, { isError: true, reason: 'NOT_FOUND' });
    const twice = await fetch(`${hub.url}/api/callbacks/${slot}/cancel`, { method: 'POST', headers });
    assert.equal(twice.status, 404);
    // Two more periods: a cancelled callback never fires again.
    await quietFor(2500, 'a fire of the cancelled callback');
    assert.equal((await view()).recent.length, fires);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test("the dashboard's kill answers KillBgTask's refusals with their codes: no such job 404, a finished one 409", async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const none = await fetch(`${hub.url}/api/jobs/999999/kill`, { method: 'POST', headers: hub.headers() });
    assert.equal(none.status, 404);
    assert.equal((await none.json()).error.code, 'NOT_FOUND');
    const started = await (await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'BackgroundBash', arguments: { command: 'true' } }) })).json();
    const id = (started.structuredContent as { task_id: number }).task_id;
    await waitFor(async () => ((await (await fetch(`${hub.url}/api/jobs`, { headers: hub.headers() })).json()) as { jobs: { id: number; status: string }[] }).jobs.some((j) => j.id === id && j.status !== 'running' && j.status !== 'starting'), 'the job to end');
    const ended = await fetch(`${hub.url}/api/jobs/${id}/kill`, { method: 'POST', headers: hub.headers() });
    assert.equal(ended.status, 409);
    assert.equal((await ended.json()).error.code, 'CONFLICT');
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
