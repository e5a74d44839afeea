import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempHome, waitFor } from './helpers/env.js';
import { startHubProcess, type HubProcess } from './helpers/hub.js';

const TASKS = 'io.modelcontextprotocol/tasks';

/** One 2026-07-28 request, with or without the tasks extension in its envelope. */
async function rpc(hub: HubProcess, method: string, params: Record<string, unknown>, opts: { tasks?: boolean; name?: string } = {}): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': opts.tasks === false ? {} : { extensions: { [TASKS]: {} } },
  };
  const headers: Record<string, string> = { ...hub.headers(), Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': method };
  if (opts.name) headers['Mcp-Name'] = opts.name;
  const r = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }) });
  const text = await r.text();
  return JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

const call = (hub: HubProcess, name: string, args: Record<string, unknown>, tasks = true) => rpc(hub, 'tools/call', { name, arguments: args }, { tasks, name });
const get = (hub: HubProcess, taskId: string, tasks = true) => rpc(hub, 'tasks/get', { taskId }, { tasks, name: taskId });

test('tasks are durable: a finished task is answered after a restart, one whose work died with the hub is failed with a clear error', async () => {
  const h = tempHome();
  fs.mkdirSync(path.join(h.home, 'plugins'), { recursive: true, mode: 0o700 });
  fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'conformance-plugin.mjs'), path.join(h.home, 'plugins', 'conformance-plugin.mjs'));
  let hub = await startHubProcess(h.home);
  try {
    // Without the extension: the tool runs synchronously, and the task methods say what is missing.
    const sync = await call(hub, 'slow_compute', { seconds: 0 }, false);
    assert.equal(sync.result?.resultType, 'complete');
    assert.equal((await get(hub, 'x', false)).error?.code, -32021);
    assert.equal((await call(hub, 'failing_job', {}, false)).error?.code, -32021);

    const quick = await call(hub, 'slow_compute', { seconds: 0 });
    assert.equal(quick.result?.resultType, 'task');
    const quickId = String(quick.result!.taskId);
    const done = await waitFor(async () => {
      const t = (await get(hub, quickId)).result;
      return t?.status === 'completed' ? t : undefined;
    }, 'the quick task to complete');
    assert.deepEqual((done.result as { content: unknown }).content, [{ type: 'text', text: 'Computed after 0 s' }]);

    const long = await call(hub, 'slow_compute', { seconds: 60 });
    const longId = String(long.result!.taskId);
    assert.equal((await get(hub, longId)).result?.status, 'working');
    assert.equal((await get(hub, 'no-such-task')).error?.code, -32602);

    await hub.stop();
    hub = await startHubProcess(h.home);
    const after = (await get(hub, quickId)).result!;
    assert.equal(after.status, 'completed');
    assert.deepEqual((after.result as { content: unknown }).content, [{ type: 'text', text: 'Computed after 0 s' }]);
    const lost = (await get(hub, longId)).result!;
    assert.equal(lost.status, 'failed');
    assert.match((lost.error as { message: string }).message, /hub that ran this task stopped .* Call the tool again/);

    // Cancel: acknowledged, then observed as cancelled; a second cancel is the same empty ack.
    const c = String((await call(hub, 'slow_compute', { seconds: 60 })).result!.taskId);
    const ack = async () => {
      const { _meta: _, ...rest } = (await rpc(hub, 'tasks/cancel', { taskId: c }, { name: c })).result ?? {};
      return rest;
    };
    assert.deepEqual(await ack(), { resultType: 'complete' });
    assert.equal((await get(hub, c)).result?.status, 'cancelled');
    assert.deepEqual(await ack(), { resultType: 'complete' });

    // The dashboard lists them beside the jobs.
    const view = (await (await fetch(`${hub.url}/api/mcp-tasks`, { headers: hub.headers() })).json()) as { tasks: { id: string; status: string; tool: string }[] };
    assert.deepEqual(
      [quickId, longId, c].map((id) => view.tasks.find((t) => t.id === id)?.status),
      ['completed', 'failed', 'cancelled'],
    );
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
