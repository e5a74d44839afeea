import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempHome, waitFor } from './helpers/env.js';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { textOf } from './helpers/clients.js';
import { RawStdio } from './helpers/raw-stdio.js';
import Database from 'better-sqlite3';
import path from 'node:path';

/**
 * AskUserQuestion as a task of the tasks extension (SEP-2663): input_required with the question's form,
 * answered by the client (tasks/update) or the person at the dashboard — whichever comes first — and
 * durable: the question lives in pincer.db, so a task waiting on it is carried on by the next hub.
 */

const TASKS = 'io.modelcontextprotocol/tasks';
const Loose = z.looseObject({});
type Loose = z.infer<typeof Loose>;

const QUESTIONS = JSON.stringify([{ question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'Postgres' }] }]);

/** What a test drives: the official v2 client (2026-07-28) or the v1 SDK client (2025-11-25 session), each declaring the extension. */
interface Driver {
  request(method: string, params: Record<string, unknown>): Promise<Loose>;
  close(): Promise<void>;
}

async function v2Driver(hub: HubProcess, opts: { elicitation?: boolean } = {}): Promise<Driver> {
  const client = new Client(
    { name: 'tasks-v2', version: '1' },
    { capabilities: { ...(opts.elicitation === false ? {} : { elicitation: { form: {} } }), extensions: { [TASKS]: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
  return {
    // The v2 SDK client (2.4) refuses a `resultType: "task"` answer to tools/call (UNSUPPORTED_RESULT_TYPE): that one
    // request goes out as the same 2026-07-28 request the client would send; the task methods go through the client.
    request: (method, params) => (method === 'tools/call' ? rawCall(hub, params, opts.elicitation !== false) : client.request({ method, params }, Loose)),
    close: () => client.close(),
  };
}

async function rawCall(hub: HubProcess, params: Record<string, unknown>, elicitation: boolean): Promise<Loose> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-v2', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { ...(elicitation ? { elicitation: { form: {} } } : {}), extensions: { [TASKS]: {} } },
  };
  const headers = hub.headers({ Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': String(params.name) });
  const r = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta } }) });
  const text = await r.text();
  const body = JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as { result?: Loose; error?: { code: number; message: string } };
  if (!body.result) throw Object.assign(new Error(body.error?.message ?? text), { code: body.error?.code });
  return body.result;
}

async function v1Driver(hub: HubProcess): Promise<Driver> {
  const client = new V1Client({ name: 'tasks-v1', version: '1' }, { capabilities: { extensions: { [TASKS]: {} } } });
  await client.connect(new V1HttpTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
  return { request: (method, params) => client.request({ method, params } as never, Loose), close: () => client.close() };
}

async function ask(d: Driver): Promise<string> {
  const created = await d.request('tools/call', { name: 'AskUserQuestion', arguments: { questions_json: QUESTIONS } });
  assert.equal(created.resultType, 'task', `a client of the tasks extension gets a task: ${JSON.stringify(created)}`);
  assert.ok(!('inputRequests' in created) && !('result' in created), 'CreateTaskResult carries neither inputRequests nor a result');
  return String(created.taskId);
}

const get = (d: Driver, taskId: string) => d.request('tasks/get', { taskId });

async function settledTask(d: Driver, taskId: string): Promise<Loose> {
  return waitFor(async () => {
    const t = await get(d, taskId);
    return ['completed', 'failed', 'cancelled'].includes(String(t.status)) ? t : undefined;
  }, `task ${taskId} to end`);
}

/** Waits for the question's form in tasks/get; the question id, from the dashboard's list. */
async function waitingForm(d: Driver, hub: HubProcess, taskId: string): Promise<{ task: Loose; questionId: number }> {
  const task = await waitFor(async () => {
    const t = await get(d, taskId);
    return t.status === 'input_required' ? t : undefined;
  }, 'the task to wait for input');
  const requests = task.inputRequests as Record<string, { method: string; params: { mode: string; message: string; requestedSchema: { properties: Record<string, unknown> } } }>;
  assert.deepEqual(Object.keys(requests), ['ask']);
  assert.match(String(task.statusMessage), /^Waiting for the person to answer question \d+ in the client or the Pincer dashboard\.$/);
  assert.equal(requests.ask!.method, 'elicitation/create');
  assert.equal(requests.ask!.params.message, 'Which database?');
  assert.deepEqual(Object.keys(requests.ask!.params.requestedSchema.properties), ['q1', 'q1_other']);
  const pending = (await dashboard(hub, 'GET', '/api/questions')).body as { pending: { id: number; questions: { question: string }[] }[] };
  const q = pending.pending.at(-1);
  assert.ok(q, 'the dashboard shows the question too');
  return { task, questionId: q.id };
}

async function dashboard(hub: HubProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(`${hub.url}${path}`, { method, headers: hub.headers(), ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: r.status, body: await r.json() };
}

/** An empty acknowledgement (the v2 client lifts resultType off and adds the server's _meta). */
function assertAck(r: Loose): void {
  assert.ok(Object.keys(r).every((k) => k === 'resultType' || k === '_meta') && (r.resultType ?? 'complete') === 'complete', `an empty ack: ${JSON.stringify(r)}`);
}

const answerFromDashboard = (hub: HubProcess, id: number, selected: string) => dashboard(hub, 'POST', `/api/questions/${id}/answer`, { answers: [{ question: 'Which database?', selected }] });
const clientAnswer = (choice: string) => ({ ask: { action: 'accept', content: { q1: choice } } });

function resultOf(task: Loose): { text: string; structured: { status: string; question_id: number; answers: { selected: string }[] } } {
  const result = task.result as { structuredContent: { status: string; question_id: number; answers: { selected: string }[] } };
  return { text: textOf(result), structured: result.structuredContent };
}

test('AskUserQuestion as a task: answered by tasks/update or from the dashboard, whichever comes first; cancel cancels the question; a 2025-era session gets no task', { timeout: 120_000 }, async () => {
  const h = tempHome();
  // A plain call says "still open" after ASK_REPLY_S; a task waits on.
  const hub = await startHubProcess(h.home, { ASK_REPLY_S: '1' });
  const clients: Driver[] = [];
  try {
    {
      const d = await v2Driver(hub);
      clients.push(d);

      // The client answers: the task completes with AskUserQuestion's usual result; the dashboard then sees it settled.
      const byClient = await ask(d);
      const { questionId } = await waitingForm(d, hub, byClient);
      assertAck(await d.request('tasks/update', { taskId: byClient, inputResponses: clientAnswer('Postgres') }));
      const done = resultOf(await settledTask(d, byClient));
      assert.match(done.text, /The person answered:\n- Which database\?\n {2}→ Postgres/);
      assert.deepEqual([done.structured.status, done.structured.question_id, done.structured.answers[0]!.selected], ['answered', questionId, 'Postgres']);
      const late = await answerFromDashboard(hub, questionId, 'SQLite');
      assert.equal(late.status, 409);
      assert.match(JSON.stringify(late.body), /already answered/);

      // The person answers at the dashboard first: the task completes with that answer; the client's late answer is ignored (the usual ack).
      const byPerson = await ask(d);
      const second = await waitingForm(d, hub, byPerson);
      assert.equal((await answerFromDashboard(hub, second.questionId, 'SQLite')).status, 200);
      const fromDashboard = resultOf(await settledTask(d, byPerson));
      assert.deepEqual([fromDashboard.structured.status, fromDashboard.structured.answers[0]!.selected], ['answered', 'SQLite']);
      assertAck(await d.request('tasks/update', { taskId: byPerson, inputResponses: clientAnswer('Postgres') }));
      assert.equal(resultOf(await get(d, byPerson)).structured.answers[0]!.selected, 'SQLite');

      // A malformed answer to the outstanding form is the client's error (-32602), and the question stays open.
      const cancelled = await ask(d);
      const third = await waitingForm(d, hub, cancelled);
      await assert.rejects(d.request('tasks/update', { taskId: cancelled, inputResponses: { ask: { action: 'maybe' } } }), (err: { code?: number; message?: string }) => err.code === -32602 && /inputResponses\.ask must answer the form/.test(err.message ?? ''));
      assert.equal((await get(d, cancelled)).status, 'input_required');
      // Cancel: the task and its question are cancelled; the dashboard can no longer answer it.
      assertAck(await d.request('tasks/cancel', { taskId: cancelled }));
      assert.equal((await settledTask(d, cancelled)).status, 'cancelled');
      const history = (await dashboard(hub, 'GET', '/api/questions')).body as { pending: { id: number }[]; history: { id: number; status: string }[] };
      assert.equal(history.history.find((q) => q.id === third.questionId)?.status, 'cancelled');
      assert.ok(!history.pending.some((q) => q.id === third.questionId));
      assert.equal((await answerFromDashboard(hub, third.questionId, 'SQLite')).status, 409);
    }

    // The extension belongs to 2026-07-28's per-request capabilities: a 2025-11-25 session that lists it in
    // initialize (the MCP Inspector does, on every connection) gets AskUserQuestion as a plain call.
    const legacy = await v1Driver(hub);
    clients.push(legacy);
    const plain = await legacy.request('tools/call', { name: 'AskUserQuestion', arguments: { questions_json: QUESTIONS } });
    assert.ok(!('taskId' in plain), JSON.stringify(plain));
    assert.match(textOf(plain), /Nobody has answered question \d+ yet/);
    await assert.rejects(legacy.request('tasks/get', { taskId: 'x' }), (err: { code?: number }) => err.code === -32021);

    // A client of the extension that cannot show a form: the task works on (no inputRequests it could not answer) and the dashboard answers.
    const formless = await v2Driver(hub, { elicitation: false });
    clients.push(formless);
    const id = await ask(formless);
    const working = await waitFor(async () => {
      const t = await get(formless, id);
      return typeof t.statusMessage === 'string' && t.statusMessage.includes('dashboard') ? t : undefined;
    }, 'the task to say it waits for the dashboard');
    assert.equal(working.status, 'working');
    assert.ok(!('inputRequests' in working));
    const pending = (await dashboard(hub, 'GET', '/api/questions')).body as { pending: { id: number }[] };
    assert.equal((await answerFromDashboard(hub, pending.pending.at(-1)!.id, 'Postgres')).status, 200);
    assert.equal(resultOf(await settledTask(formless, id)).structured.answers[0]!.selected, 'Postgres');
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await hub.stop();
    h.cleanup();
  }
});

test('an AskUserQuestion task survives a hub restart and a handover: the next hub carries it on, and it is answered by tasks/update or the dashboard', { timeout: 120_000 }, async () => {
  const h = tempHome();
  let hub = await startHubProcess(h.home);
  let d: Driver | undefined;
  try {
    d = await v2Driver(hub);
    const viaUpdate = await ask(d);
    const first = await waitingForm(d, hub, viaUpdate);
    const viaDashboard = await ask(d);
    const second = await waitingForm(d, hub, viaDashboard);
    await d.close();
    // A stop (SIGTERM: the hub closes in order) for the first restart, a crash (SIGKILL) for the second.
    await hub.stop();
    hub = await startHubProcess(h.home);
    d = await v2Driver(hub);
    const carried = await get(d, viaUpdate);
    assert.equal(carried.status, 'input_required', `not failed as lost with the hub: ${JSON.stringify(carried)}`);
    assert.deepEqual(Object.keys(carried.inputRequests as object), ['ask']);
    await d.request('tasks/update', { taskId: viaUpdate, inputResponses: clientAnswer('SQLite') });
    const answered = resultOf(await settledTask(d, viaUpdate));
    assert.deepEqual([answered.structured.status, answered.structured.question_id, answered.structured.answers[0]!.selected], ['answered', first.questionId, 'SQLite']);

    await d.close();
    await hub.stop('SIGKILL');
    hub = await startHubProcess(h.home);
    d = await v2Driver(hub);
    assert.equal((await get(d, viaDashboard)).status, 'input_required');
    assert.equal((await answerFromDashboard(hub, second.questionId, 'Postgres')).status, 200);
    const fromDashboard = resultOf(await settledTask(d, viaDashboard));
    assert.match(fromDashboard.text, /→ Postgres/);
    // The first task's result is still served after the second restart.
    assert.equal(resultOf(await get(d, viaUpdate)).structured.answers[0]!.selected, 'SQLite');
    // The dashboard's task list shows both completed, and a waiting one with what it waits for.
    const waiting = await ask(d);
    const third = await waitingForm(d, hub, waiting);
    const view = (await dashboard(hub, 'GET', '/api/mcp-tasks')).body as { tasks: { id: string; status: string; message: string | null; waiting_for: string[] }[] };
    assert.deepEqual([viaUpdate, viaDashboard].map((t) => view.tasks.find((x) => x.id === t)?.status), ['completed', 'completed']);
    const listed = view.tasks.find((x) => x.id === waiting);
    assert.deepEqual([listed?.status, listed?.waiting_for, listed?.message], ['input_required', ['ask'], `Waiting for the person to answer question ${third.questionId} in the client or the Pincer dashboard.`]);

    // A handover: another `pincer serve` takes this headless hub over while the question waits; the new hub carries the task on.
    await d.close();
    const taker = await startHubProcess(h.home);
    await waitFor(() => hub.child.exitCode !== null, 'the old hub to hand over and exit');
    hub = taker;
    d = await v2Driver(hub);
    assert.equal((await get(d, waiting)).status, 'input_required');
    await d.request('tasks/update', { taskId: waiting, inputResponses: clientAnswer('Postgres') });
    assert.equal(resultOf(await settledTask(d, waiting)).structured.answers[0]!.selected, 'Postgres');
  } finally {
    await d?.close().catch(() => undefined);
    await hub.stop();
    h.cleanup();
  }
});

test('a pincer stdio --standalone started beside the hub leaves the waiting task of the hub alone', { timeout: 120_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  let d: Driver | undefined;
  let standalone: RawStdio | undefined;
  try {
    d = await v2Driver(hub);
    const taskId = await ask(d);
    const { questionId } = await waitingForm(d, hub, taskId);
    const ownerOf = (): string => {
      const db = new Database(path.join(h.home, 'pincer.db'), { readonly: true });
      try {
        return String((db.prepare('SELECT owner FROM mcp_tasks WHERE id = ?').get(taskId) as { owner: string }).owner);
      } finally {
        db.close();
      }
    };
    const hubOwner = ownerOf();
    assert.match(hubOwner, new RegExp(` ${hub.child.pid} \\S+ hub$`), 'the task names the hub process that runs it');
    // The standalone process builds its own runtime on the same pincer.db, and serves a call.
    standalone = new RawStdio(h.home, ['stdio', '--standalone']);
    await standalone.initialize();
    standalone.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo standalone-up' } } });
    assert.match(JSON.stringify(await standalone.response(1)), /standalone-up/);
    // Still the hub's: waiting, and answered through the hub.
    assert.equal((await get(d, taskId)).status, 'input_required', 'the standalone process did not fail the task of the hub');
    assert.equal(ownerOf(), hubOwner, 'the standalone process did not take the task of the hub over');
    standalone.close();
    standalone = undefined;
    assert.equal((await answerFromDashboard(hub, questionId, 'SQLite')).status, 200);
    assert.equal(resultOf(await settledTask(d, taskId)).structured.answers[0]!.selected, 'SQLite');
  } finally {
    standalone?.close();
    await d?.close().catch(() => undefined);
    await hub.stop();
    h.cleanup();
  }
});
