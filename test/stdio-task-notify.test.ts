import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempHome, waitFor } from './helpers/env.js';
import { readHubJson, startHubProcess } from './helpers/hub.js';
import { RawStdio } from './helpers/raw-stdio.js';
import { rpc, TASKS } from './helpers/tasks-client.js';
import { closeStdioClient, connectV2 } from './helpers/clients.js';

// Task status notifications over stdio (SEP-2663): the SDK's stdio entry drops
// notifications.taskIds from subscriptions/listen, so Pincer serves such a listen itself, on the
// bridge's pipe and in `pincer stdio --standalone` alike. Raw JSON lines: the test sees every
// message in the order the client does.

type Message = { id?: unknown; method?: string; params?: Record<string, unknown> & { _meta?: Record<string, unknown> }; result?: Record<string, unknown>; error?: { code: number; data?: unknown } };
const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';

const envelope = (tasks = true) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'stdio-task-notify', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
});
const request = (id: number | string, method: string, params: Record<string, unknown>, tasks = true) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(tasks) } });

/** A command that runs until `gate` exists, then prints done: the test decides when the task completes. */
const gated = (gate: string) => `while [ ! -e '${gate}' ]; do sleep 0.05; done; echo done`;

async function notifiesOverStdio(raw: RawStdio, home: string): Promise<void> {
  const all = () => raw.messages as Message[];
  const gate = path.join(home, 'gate');
  raw.send(request(1, 'tools/call', { name: 'Bash', arguments: { command: gated(gate), timeout: 60_000 } }));
  const call = (await raw.response(1)) as Message;
  assert.equal(call.result?.resultType, 'task', `Bash past BASH_TASK_AFTER_MS is answered with a task: ${JSON.stringify(call)}`);
  const taskId = (call.result as { taskId?: string }).taskId;
  assert.equal(typeof taskId, 'string');

  raw.send(request(2, 'subscriptions/listen', { notifications: { taskIds: [taskId, 'no-such-task'], toolsListChanged: true } }));
  const ofListen = () => all().filter((m) => m.params?._meta?.[SUBSCRIPTION] === 2);
  await waitFor(() => ofListen().some((m) => m.method === 'notifications/tasks'), 'the task as the listen found it');
  fs.writeFileSync(gate, '');
  const done = await waitFor(() => ofListen().find((m) => m.method === 'notifications/tasks' && m.params?.status === 'completed'), 'notifications/tasks saying the task completed');
  const seen = ofListen();
  assert.equal(seen[0]?.method, 'notifications/subscriptions/acknowledged', 'the acknowledgement comes first');
  assert.deepEqual(seen[0]?.params?.notifications, { taskIds: [taskId], toolsListChanged: true }, 'it lists the known task only');
  const tasks = seen.filter((m) => m.method === 'notifications/tasks');
  assert.equal(tasks[0]?.params?.status, 'working', 'the task as it was when the listen opened comes first');
  assert.ok(tasks.every((m) => m.params?.taskId === taskId), 'an unknown task id is not listened to');
  assert.equal(done.params?.taskId, taskId);
  assert.equal((done.params?.result as { content: { text: string }[] }).content[0]?.text, 'done', 'the full task, with its result, as tasks/get shows it');
  const get = (await (raw.send(request(3, 'tasks/get', { taskId })), raw.response(3))) as Message;
  const { _meta: _n, ...notified } = done.params ?? {};
  const { _meta: _g, resultType: _r, ...shown } = get.result ?? {};
  assert.deepEqual(notified, shown, 'the same task tasks/get answers');

  // The client ends the listen with notifications/cancelled: the same id can then listen again (acknowledged anew).
  raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
  raw.send(request(2, 'subscriptions/listen', { notifications: { taskIds: [taskId] } }));
  await waitFor(() => ofListen().filter((m) => m.method === 'notifications/subscriptions/acknowledged').length === 2, 'a second acknowledgement for the re-opened listen');
  assert.ok(!all().some((m) => m.id === 2 && 'error' in m), 'no error for re-using the cancelled listen id');

  // Without the extension declared on the request: -32021 naming it.
  raw.send(request(4, 'subscriptions/listen', { notifications: { taskIds: [taskId] } }, false));
  const refused = (await raw.response(4)) as Message;
  assert.equal(refused.error?.code, -32021);
  assert.deepEqual((refused.error?.data as { requiredCapabilities: unknown }).requiredCapabilities, { extensions: { [TASKS]: {} } });

  // A listen without taskIds stays the SDK's own (acknowledged, stamped with its id).
  raw.send(request(5, 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
  await waitFor(() => all().some((m) => m.method === 'notifications/subscriptions/acknowledged' && m.params?._meta?.[SUBSCRIPTION] === 5), 'the SDK router acknowledging a plain listen');
}

test('pincer stdio (bridge + hub): subscriptions/listen with taskIds gets notifications/tasks for a Bash task, working then completed', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { BASH_TASK_AFTER_MS: '300' });
  const raw = new RawStdio(h.home, ['stdio']);
  try {
    await notifiesOverStdio(raw, h.home);
    assert.equal(readHubJson(h.home)?.pid, hub.child.pid, "served by the test's hub through the bridge");
  } finally {
    raw.close();
    // The bridge goes first: one that outlived its hub would start another.
    await waitFor(() => raw.child.exitCode !== null, 'the bridge to exit').catch(() => raw.child.kill());
    await hub.stop();
    h.cleanup();
  }
});

test('pincer stdio --standalone: subscriptions/listen with taskIds gets notifications/tasks for a Bash task, working then completed', async () => {
  const h = tempHome();
  const raw = new RawStdio(h.home, ['stdio', '--standalone'], { BASH_TASK_AFTER_MS: '300' });
  try {
    await notifiesOverStdio(raw, h.home);
  } finally {
    raw.close();
    await waitFor(() => raw.child.exitCode !== null, 'the standalone process to exit').catch(() => raw.child.kill());
    h.cleanup();
  }
});

test("the SDK's own Client over its stdio transport: listen({ taskIds }) through pincer stdio receives its task working then completed", async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { BASH_TASK_AFTER_MS: '300' });
  let c: Awaited<ReturnType<typeof connectV2>> | undefined;
  try {
    c = await connectV2({ home: h.home, args: ['stdio'], modern: true, capabilities: { extensions: { [TASKS]: {} } } });
    const client = c.client;
    const seen: Message[] = [];
    client.fallbackNotificationHandler = async (n) => {
      seen.push(n as Message);
    };
    // A task of this client (tasks belong to the client that started them): the v2 client refuses a task
    // answer to tools/call, so that one request goes out raw on the client's own connection, and its answer
    // is taken off the transport before the client sees an id it never sent.
    const transport = c.transport;
    const deliver = transport.onmessage!;
    let call: Message | undefined;
    transport.onmessage = (m) => {
      if ((m as Message).id === 'raw-call') call = m as Message;
      else deliver(m);
    };
    const gate = path.join(h.home, 'gate');
    await transport.send(request('raw-call', 'tools/call', { name: 'Bash', arguments: { command: gated(gate), timeout: 60_000 } }) as Parameters<typeof transport.send>[0]);
    await waitFor(() => call, 'the task answer on the raw request');
    const taskId = call?.result?.taskId;
    assert.equal(typeof taskId, 'string', `Bash answered with a task: ${JSON.stringify(call)}`);
    // Another client of the same hub cannot follow it: its acknowledgement lists no task.
    const other = await rpc(hub, 'tasks/get', { taskId: String(taskId) });
    assert.equal(other.error?.code, -32602, 'another client gets "unknown task"');
    const subscription = await client.listen({ taskIds: [taskId] } as Parameters<typeof client.listen>[0]);
    await waitFor(() => seen.some((n) => n.method === 'notifications/tasks'), 'the task as the listen found it');
    fs.writeFileSync(gate, '');
    const done = await waitFor(() => seen.find((n) => n.method === 'notifications/tasks' && n.params?.status === 'completed'), 'notifications/tasks saying the task completed');
    assert.equal(done.params?.taskId, taskId);
    assert.equal((done.params?.result as { content: { text: string }[] }).content[0]?.text, 'done');
    assert.equal(seen.find((n) => n.method === 'notifications/tasks')?.params?.status, 'working', 'the task as it was when the listen opened comes first');
    await subscription.close();
  } finally {
    await closeStdioClient(c);
    await hub.stop();
    h.cleanup();
  }
});
