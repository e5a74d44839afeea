import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempHome, waitFor, WAIT_MS } from './helpers/env.js';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { RawStdio } from './helpers/raw-stdio.js';
import { rpc, TASKS, type JsonRpcAnswer } from './helpers/tasks-client.js';
import { textOf } from './helpers/clients.js';

// Tasks belong to the client that started them (ARCHITECTURE §1): another client — by its name and
// version, its X-Pincer-Client, or its own bridge — gets "unknown task" for get, update, cancel and
// listen, and cannot answer the task's questions; the dashboard (the person) sees them all. Limits: the
// running tasks of one client, and the size of a result a task keeps.

const PLUGIN = `
export default { tools: [
  {
    name: 'ask.form', description: 'Asks the client for a word inside a task', execution: { taskSupport: 'optional' },
    async handler(_a, ctx) {
      const r = await ctx.elicit({ message: 'A word?', requestedSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } });
      return 'the word was ' + r.content.word;
    },
  },
  {
    name: 'wait.forever', description: 'Runs until cancelled', execution: { taskSupport: 'optional' },
    handler: (_a, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
  },
  {
    name: 'big.result', description: 'Three megabytes of numbered lines', execution: { taskSupport: 'optional' },
    handler: () => Array.from({ length: 300000 }, (_, i) => 'line ' + String(i).padStart(6, '0')).join('\\n'),
  },
  {
    name: 'big.error', description: 'A protocol error with a megabyte of message', execution: { taskSupport: 'optional' },
    handler() { throw Object.assign(new Error('e'.repeat(1000000)), { code: -32001 }); },
  },
] };
`;

const A = { clientInfo: { name: 'client-a', version: '1' } };
const B = { clientInfo: { name: 'client-b', version: '1' } };
type Opts = Parameters<typeof rpc>[3];

function withPlugin(home: string): void {
  fs.mkdirSync(path.join(home, 'plugins'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(home, 'plugins', 'tasks.mjs'), PLUGIN, { mode: 0o600 });
}

async function startTask(hub: HubProcess, name: string, opts: Opts): Promise<string> {
  const r = await rpc(hub, 'tools/call', { name, arguments: {} }, opts);
  assert.equal(r.result?.resultType, 'task', `${name} answered with a task: ${JSON.stringify(r).slice(0, 300)}`);
  return String(r.result!.taskId);
}

function assertUnknown(r: JsonRpcAnswer, what: string): void {
  assert.equal(r.error?.code, -32602, `${what}: ${JSON.stringify(r)}`);
  assert.match(r.error!.message, /^Unknown task: /, what);
}

/** Opens a task listen over HTTP and collects its messages until `until` holds (or WAIT_MS passes: only a failing test gets there). */
async function listen(hub: HubProcess, taskIds: string[], opts: Opts, until: (messages: Record<string, unknown>[]) => boolean): Promise<Record<string, unknown>[]> {
  const abort = new AbortController();
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': opts!.clientInfo, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } };
  const r = await fetch(`${hub.url}/mcp`, {
    method: 'POST',
    headers: hub.headers({ Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'subscriptions/listen', ...opts!.headers }),
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params: { notifications: { taskIds }, _meta: meta } }),
    signal: abort.signal,
  });
  const messages: Record<string, unknown>[] = [];
  const deadline = setTimeout(() => abort.abort(), WAIT_MS);
  let text = '';
  const reader = r.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString();
      const parts = text.split('\n\n');
      text = parts.pop()!;
      for (const p of parts) for (const line of p.split('\n')) if (line.startsWith('data: ')) messages.push(JSON.parse(line.slice(6)) as Record<string, unknown>);
      if (until(messages)) break;
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(deadline);
    abort.abort();
  }
  return messages;
}

test('another client cannot read, follow, answer or cancel a task, by name, by X-Pincer-Client or through its own bridge; the dashboard sees it', { timeout: 120_000 }, async () => {
  const h = tempHome();
  withPlugin(h.home);
  const hub = await startHubProcess(h.home);
  try {
    const asking = await startTask(hub, 'ask.form', { ...A, elicitation: true });
    await waitFor(async () => (await rpc(hub, 'tasks/get', { taskId: asking }, A)).result?.status === 'input_required', 'the task to ask its client');

    // Client B, by another name: get, answer, cancel and listen all find no such task.
    assertUnknown(await rpc(hub, 'tasks/get', { taskId: asking }, B), 'tasks/get by B');
    assertUnknown(await rpc(hub, 'tasks/update', { taskId: asking, inputResponses: { ask: { action: 'accept', content: { word: 'from-b' } } } }, B), 'tasks/update by B');
    assertUnknown(await rpc(hub, 'tasks/cancel', { taskId: asking }, B), 'tasks/cancel by B');
    const heardByB = await listen(hub, [asking], B, (m) => m.length >= 1);
    assert.deepEqual((heardByB[0]?.params as { notifications?: unknown })?.notifications, { taskIds: [] }, 'B’s listen acknowledges no task');
    assert.ok(!heardByB.some((m) => m.method === 'notifications/tasks'));

    // A sees it waiting, answers it, and hears it complete; B's answer never reached it.
    const request = (await rpc(hub, 'tasks/get', { taskId: asking }, A)).result!;
    assert.equal(request.status, 'input_required');
    const key = Object.keys(request.inputRequests as Record<string, unknown>)[0]!;
    const heardByA = listen(hub, [asking], A, (m) => m.some((x) => x.method === 'notifications/tasks' && (x.params as { status?: string }).status === 'completed'));
    assert.equal((await rpc(hub, 'tasks/update', { taskId: asking, inputResponses: { [key]: { action: 'accept', content: { word: 'from-a' } } } }, A)).error, undefined);
    const done = (await heardByA).find((x) => x.method === 'notifications/tasks' && (x.params as { status?: string }).status === 'completed');
    assert.equal(textOf((done!.params as { result: unknown }).result), 'the word was from-a');

    // Named clients (X-Pincer-Client, what a bridge sends): the same name and version, told apart by the header.
    const named = await startTask(hub, 'wait.forever', { ...A, headers: { 'X-Pincer-Client': 'named-a' } });
    assertUnknown(await rpc(hub, 'tasks/get', { taskId: named }, { ...A, headers: { 'X-Pincer-Client': 'named-b' } }), 'tasks/get by another X-Pincer-Client');
    assertUnknown(await rpc(hub, 'tasks/get', { taskId: named }, A), 'tasks/get by the same name without the header');
    assertUnknown(await rpc(hub, 'tasks/cancel', { taskId: named }, { ...A, headers: { 'X-Pincer-Client': 'named-b' } }), 'tasks/cancel by another X-Pincer-Client');
    assert.equal((await rpc(hub, 'tasks/get', { taskId: named }, { ...A, headers: { 'X-Pincer-Client': 'named-a' } })).result?.status, 'working');

    // Through a real bridge: another bridge's client cannot get or cancel it either.
    const bridge = new RawStdio(h.home, ['stdio']);
    try {
      const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': A.clientInfo, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } };
      for (const [id, method] of [[1, 'tasks/get'], [2, 'tasks/cancel']] as const) {
        bridge.send({ jsonrpc: '2.0', id, method, params: { taskId: named, _meta: envelope } });
        assertUnknown((await bridge.response(id, 30_000)) as JsonRpcAnswer, `${method} through another bridge`);
      }
    } finally {
      bridge.close();
      await waitFor(() => bridge.child.exitCode !== null, 'the bridge to exit').catch(() => bridge.child.kill());
    }
    assert.equal((await rpc(hub, 'tasks/get', { taskId: named }, { ...A, headers: { 'X-Pincer-Client': 'named-a' } })).result?.status, 'working', 'nothing cancelled it');

    // The person sees every task on the dashboard, whoever started it.
    const listed = (await (await fetch(`${hub.url}/api/mcp-tasks`, { headers: hub.headers() })).json()) as { tasks: { id: string; client: string | null }[] };
    assert.deepEqual(
      [asking, named].map((id) => listed.tasks.find((t) => t.id === id)?.client),
      ['client-a', 'client-a'],
    );
    await rpc(hub, 'tasks/cancel', { taskId: named }, { ...A, headers: { 'X-Pincer-Client': 'named-a' } });
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test("a question asked in round trips is answered only by the client it was asked of: another client's retry with its request state asks anew", { timeout: 60_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const questions = JSON.stringify([{ question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'Postgres' }] }]);
    const call = (opts: Opts, extra: Record<string, unknown> = {}) => rpc(hub, 'tools/call', { name: 'AskUserQuestion', arguments: { questions_json: questions }, ...extra }, { ...opts, tasks: false, elicitation: true });
    const first = (await call(A)).result!;
    assert.equal(first.resultType, 'input_required');
    const answer = (choice: string) => ({ ask: { action: 'accept', content: { q1: choice } } });
    // B replays A's sealed state with its own answer: the state is not B's, so B is asked its own question.
    const stolen = (await call(B, { requestState: first.requestState, inputResponses: answer('Postgres') })).result!;
    assert.equal(stolen.resultType, 'input_required', `B did not answer A's question: ${JSON.stringify(stolen).slice(0, 300)}`);
    const pending = (await (await fetch(`${hub.url}/api/questions`, { headers: hub.headers() })).json()) as { pending: { id: number }[] };
    assert.equal(pending.pending.length, 2, "A's question is still open, beside B's own");
    const mine = (await call(A, { requestState: first.requestState, inputResponses: answer('SQLite') })).result!;
    assert.equal(mine.resultType, 'complete');
    assert.match(textOf(mine), /→ SQLite/);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('bounds: 100 running tasks per client (the next call says so; other clients unaffected), a result past 1 MB kept as a file read in parts, a long error cut', { timeout: 180_000 }, async () => {
  const h = tempHome();
  withPlugin(h.home);
  let hub = await startHubProcess(h.home);
  try {
    const mine: string[] = [];
    for (let i = 0; i < 100; i++) mine.push(await startTask(hub, 'wait.forever', A));
    const refused = await rpc(hub, 'tools/call', { name: 'wait.forever', arguments: {} }, A);
    assert.equal(refused.result?.isError, true, JSON.stringify(refused));
    assert.match(textOf(refused.result), /^wait\.forever: Not started: this client already has 100 tasks running, the most one client may have \(100\)\. Wait for some to finish \(tasks\/get\) or cancel those no longer needed \(tasks\/cancel\), then call again\.$/);
    const others = await startTask(hub, 'wait.forever', B);
    await rpc(hub, 'tasks/cancel', { taskId: mine.pop()! }, A);
    mine.push(await startTask(hub, 'wait.forever', A));
    for (const id of [...mine, others]) await rpc(hub, 'tasks/cancel', { taskId: id }, id === others ? B : A);

    // A result past TASK_RESULT_MAX_BYTES: the task keeps its start and where the whole text is.
    const big = await startTask(hub, 'big.result', A);
    const done = await waitFor(async () => {
      const r = (await rpc(hub, 'tasks/get', { taskId: big }, A)).result;
      return r?.status === 'completed' ? r : undefined;
    }, 'the big task to complete');
    const text = textOf(done.result);
    assert.ok(JSON.stringify(done).length < 64 * 1024, `tasks/get answers ${JSON.stringify(done).length} characters`);
    assert.match(text, /^line 000000\nline 000001\n/);
    const m = /\[This result is (\d+) bytes, more than a task keeps \(1048576 bytes\)\. The whole text \((\d+) bytes\) is in (\S+): read it in parts\. It is deleted with the task, 60 minutes after the task ended\.\]$/.exec(text);
    assert.ok(m, text.slice(-400));
    const file = m[3]!;
    assert.equal(path.dirname(file), path.join(h.home, 'task-results'));
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    assert.deepEqual([lines.length, lines[0], lines[299999]], [300000, 'line 000000', 'line 299999']);

    // A protocol error of a megabyte: the task fails with its message cut.
    const failing = await startTask(hub, 'big.error', A);
    const failed = await waitFor(async () => {
      const r = (await rpc(hub, 'tasks/get', { taskId: failing }, A)).result;
      return r?.status === 'failed' ? r : undefined;
    }, 'the failing task to fail');
    const message = (failed.error as { code: number; message: string }).message;
    assert.ok(message.length < 17_000 && message.endsWith('… (cut at 16384 characters)'), message.slice(-80));

    // Files of tasks no longer kept go when a hub starts; the big task's stays while it is kept.
    const stray = path.join(h.home, 'task-results', '00000000-0000-4000-8000-000000000000.txt');
    fs.writeFileSync(stray, 'left from a task that expired', { mode: 0o600 });
    await hub.stop();
    hub = await startHubProcess(h.home);
    assert.equal(fs.existsSync(stray), false, 'the stray result file was deleted');
    assert.equal(fs.existsSync(file), true, "the kept task's file stays");
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
