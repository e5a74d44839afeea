import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { textOf } from '../helpers/clients.js';
import { TOOL_COUNT } from '../helpers/catalogue.js';
import { waitFor } from '../helpers/env.js';
import { fakeClock, inProcess, TASKS_EXTENSION, type RawAnswer, type RawConnection } from '../helpers/in-process.js';

// The MCP adapter (main/mcp/): tools/list and the three shapes of tools/call — a direct answer, a
// multi round-trip question (2026-07-28) and a task of the tasks extension — through the real server
// factory and the SDK's own stdio entry, in-process. Raw JSON-RPC where no SDK client sends the request
// (the v2 client refuses a task as the answer to tools/call).

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const FORMS = { elicitation: { form: {} } };
const QUESTIONS = JSON.stringify([{ question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'Postgres' }] }]);
type Json = Record<string, unknown>;

/** A raw connection's 2026-07-28 requests, declaring these capabilities. */
function requester(raw: RawConnection, capabilities: Json) {
  return (method: string, params: Json): Promise<RawAnswer> => raw.request(method, params, capabilities);
}

async function taskStatus(rpc: ReturnType<typeof requester>, taskId: string, want: (t: Json) => boolean, what: string): Promise<Json> {
  return waitFor(async () => {
    const t = (await rpc('tasks/get', { taskId })).result;
    return t && want(t) ? t : undefined;
  }, what);
}

describe('tools/list and direct calls', () => {
  test('the same tools on both generations and to the v1 client, each answering a call directly', async (t) => {
    const p = await inProcess({}, t);
    const v2 = await p.connect();
    const modern = await p.connect({ era: '2026-07-28' });
    const v1 = await p.connectV1();
    assert.equal(v2.client.getNegotiatedProtocolVersion(), '2025-11-25');
    assert.equal(modern.client.getNegotiatedProtocolVersion(), '2026-07-28');
    const lists = await Promise.all([v2.client.listTools(), modern.client.listTools(), v1.client.listTools()]);
    for (const l of lists) assert.equal(l.tools.length, TOOL_COUNT);
    // One catalogue (the SDK drops `execution` from a 2026-07-28 list: that generation has no such field).
    const shown = (l: (typeof lists)[number]) => l.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
    assert.deepEqual(shown(lists[1]), shown(lists[0]));
    assert.deepEqual(shown(lists[2]), shown(lists[0]));
    for (const c of [v2.client, modern.client, v1.client]) {
      const r = (await c.callTool({ name: 'Bash', arguments: { command: 'echo direct' } })) as { content: unknown; structuredContent?: Json };
      assert.match(textOf(r), /^direct/);
      assert.equal(r.structuredContent?.exit_code, 0);
    }
  });
});

describe('multi round-trip (2026-07-28)', () => {
  test("AskUserQuestion's form goes to the client as input_required; its answer completes the call, and the record says the client answered", async (t) => {
    const p = await inProcess({}, t);
    const { client } = await p.connect({ era: '2026-07-28', capabilities: FORMS });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: { q1: 'Postgres' } };
    });
    const r = await client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: QUESTIONS } });
    assert.deepEqual(asked, ['Which database?']);
    assert.match(textOf(r), /The person answered:\n- Which database\?\n {2}→ Postgres/);
    const row = p.runtime.services.questions.get((r.structuredContent as { question_id: number }).question_id);
    assert.equal(row?.status, 'answered');
    assert.equal(JSON.parse(row!.answer!).via, 'client');
  });

  test('the first round carries the form and a sealed request state; a retry whose state was altered is refused, and the question stays open', async (t) => {
    const p = await inProcess({}, t);
    const raw = await p.raw();
    const rpc = requester(raw, FORMS);
    const first = (await rpc('tools/call', { name: 'AskUserQuestion', arguments: { questions_json: QUESTIONS } })).result!;
    assert.equal(first.resultType, 'input_required');
    const ask = (first.inputRequests as Record<string, { method: string; params: { message: string } }>).ask!;
    assert.deepEqual([ask.method, ask.params.message], ['elicitation/create', 'Which database?']);
    assert.equal(typeof first.requestState, 'string');
    const forged = await rpc('tools/call', { name: 'AskUserQuestion', arguments: { questions_json: QUESTIONS }, inputResponses: { ask: { action: 'accept', content: { q1: 'SQLite' } } }, requestState: `${String(first.requestState)}x` });
    assert.ok(forged.error, `an altered request state is an error: ${JSON.stringify(forged)}`);
    assert.equal(p.runtime.services.questions.pending().length, 1, 'the question is still pending');
    const answered = (await rpc('tools/call', { name: 'AskUserQuestion', arguments: { questions_json: QUESTIONS }, inputResponses: { ask: { action: 'accept', content: { q1: 'SQLite' } } }, requestState: first.requestState })).result!;
    assert.equal(answered.resultType ?? 'complete', 'complete');
    assert.match(textOf(answered), /→ SQLite/);
  });
});

describe('tasks of the tasks extension', () => {
  test('without the extension: task methods are -32021 and AskUserQuestion is a plain call; with it: a task answered by tasks/update or the dashboard, and cancelled with its question', async (t) => {
    // A plain call answers "still open" after ASK_REPLY_S; a task waits on: the clock shows it.
    const clock = fakeClock(t);
    const p = await inProcess({ env: { ASK_REPLY_S: '1' } }, t);
    const raw = await p.raw();
    const plain = requester(raw, FORMS);
    assert.equal((await plain('tasks/get', { taskId: 'x' })).error?.code, -32021);

    const rpc = requester(raw, { ...FORMS, ...TASKS });
    const ask = async () => {
      const created = (await rpc('tools/call', { name: 'AskUserQuestion', arguments: { questions_json: QUESTIONS } })).result!;
      assert.equal(created.resultType, 'task', JSON.stringify(created));
      assert.ok(!('inputRequests' in created) && !('result' in created), 'CreateTaskResult carries neither inputRequests nor a result');
      return String(created.taskId);
    };
    const ended = (taskId: string) => taskStatus(rpc, taskId, (x) => ['completed', 'failed', 'cancelled'].includes(String(x.status)), `task ${taskId} to end`);

    // The client answers by tasks/update.
    const byClient = await ask();
    const parked = await taskStatus(rpc, byClient, (x) => x.status === 'input_required', 'the task to wait for input');
    assert.deepEqual(Object.keys(parked.inputRequests as Json), ['ask']);
    assert.match(String(parked.statusMessage), /^Waiting for the person to answer question \d+ in the client or the Pincer dashboard\.$/);
    await clock.advance(1500);
    assert.equal((await rpc('tasks/get', { taskId: byClient })).result?.status, 'input_required', 'a task waits past ASK_REPLY_S');
    await rpc('tasks/update', { taskId: byClient, inputResponses: { ask: { action: 'accept', content: { q1: 'Postgres' } } } });
    const done = (await ended(byClient)).result as { structuredContent: { status: string; answers: { selected: string }[] } };
    assert.match(textOf(done), /The person answered:\n- Which database\?\n {2}→ Postgres/);
    assert.deepEqual([done.structuredContent.status, done.structuredContent.answers[0]!.selected], ['answered', 'Postgres']);

    // The person answers at the dashboard.
    const byPerson = await ask();
    const question = await p.pendingQuestion('Which database?');
    p.answer(question.id, { answers: [{ question: 'Which database?', selected: 'SQLite' }] });
    assert.equal(((await ended(byPerson)).result as { structuredContent: { answers: { selected: string }[] } }).structuredContent.answers[0]!.selected, 'SQLite');

    // A malformed answer is the client's error (-32602); then cancel ends the task and its question.
    const cancelled = await ask();
    const third = await p.pendingQuestion('Which database?');
    await taskStatus(rpc, cancelled, (x) => x.status === 'input_required', 'the third task to wait for input');
    const malformed = await rpc('tasks/update', { taskId: cancelled, inputResponses: { ask: { action: 'maybe' } } });
    assert.equal(malformed.error?.code, -32602);
    assert.match(malformed.error!.message, /inputResponses\.ask must answer the form/);
    await rpc('tasks/cancel', { taskId: cancelled });
    assert.equal((await ended(cancelled)).status, 'cancelled');
    assert.equal(p.runtime.services.questions.get(third.id)?.status, 'cancelled');
    assert.throws(() => p.answer(third.id, { answers: [{ question: 'Which database?', selected: 'SQLite' }] }), (err: { code?: string }) => err.code === 'CONFLICT');
  });

  test('Bash as a task: a command still running past BASH_TASK_AFTER_MS becomes a task that completes with what Bash would have answered', async (t) => {
    const p = await inProcess({ env: { BASH_TASK_AFTER_MS: '100' } }, t);
    const gate = `${p.home}/go`;
    const rpc = requester(await p.raw(), TASKS);
    const created = (await rpc('tools/call', { name: 'Bash', arguments: { command: `echo started; while [ ! -e ${gate} ]; do sleep 0.05; done; echo finished`, timeout: 600_000 } })).result!;
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const taskId = String(created.taskId);
    assert.equal((await rpc('tasks/get', { taskId })).result?.status, 'working');
    (await import('node:fs')).writeFileSync(gate, '');
    const done = await taskStatus(rpc, taskId, (x) => x.status === 'completed', 'the Bash task to complete');
    const result = done.result as { content: { text: string }[]; structuredContent: { exit_code: number } };
    assert.match(result.content[0]!.text, /^started\nfinished/);
    assert.equal(result.structuredContent.exit_code, 0);
  });
});

const PLUGIN = `
const form = (message, field) => ({ message, requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } });
export default {
  tools: [{
    name: 'plan_trip',
    description: 'Asks where to, then plans as a task (asking when, too)',
    inputSchema: { type: 'object', properties: { wait: { type: 'boolean' } } },
    execution: { taskSupport: 'optional' },
    deferTask: true,
    async handler({ wait }, ctx) {
      const { where } = await ctx.askClient({ where: { method: 'elicitation/create', params: form('Where to?', 'city') } });
      await ctx.startTask();
      if (wait) await new Promise((resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped by ' + (ctx.signal.aborted ? 'cancel' : '?')))));
      const { when } = await ctx.askClient({ when: { method: 'elicitation/create', params: form('When?', 'date') } });
      return 'Trip to ' + where.content.city + ' on ' + when.content.date;
    },
  }, {
    name: 'ask_person',
    description: 'Asks the person (Pincer question) inside a task',
    execution: { taskSupport: 'optional' },
    async handler(_args, ctx) {
      const r = await ctx.askUser([{ question: 'Coffee?', options: ['yes', 'no'] }]);
      return r.status + ': ' + r.answers.map((a) => a.selected).join(',');
    },
  }],
};
`;

/**
 * SEP-2663's MRTR → task composition for a plugin tool with `deferTask`: it asks the client in multi
 * round-trips on the request, then `ctx.startTask()` answers the request with a task; what it asks after
 * that parks the task (tasks/update), and tasks/cancel reaches the handler's signal. A client without the
 * tasks extension gets the same tool as one synchronous call (the official v2 client fulfils the rounds).
 */
test('a deferTask plugin tool: multi round-trip first, then a task that asks by tasks/update and can be cancelled; synchronous for a client without tasks', async (t) => {
  const clock = fakeClock(t);
  // A call replies "still open" after ASK_REPLY_S; a task must not.
  const p = await inProcess({ plugins: true, env: { ASK_REPLY_S: '1' }, files: { 'plugins/trips.mjs': PLUGIN } }, t);
  const rpc = requester(await p.raw(), { ...FORMS, ...TASKS });
  const get = async (taskId: string) => (await rpc('tasks/get', { taskId })).result!;
  /** Round 1 asks where (no task yet); round 2, with the answer and the sealed state, answers with the task. */
  const startTrip = async (args: Json): Promise<string> => {
    const round1 = (await rpc('tools/call', { name: 'plan_trip', arguments: args })).result!;
    assert.equal(round1.resultType, 'input_required');
    assert.ok(!('taskId' in round1), 'no task before the round trips are done');
    assert.deepEqual(Object.keys(round1.inputRequests as Json), ['where']);
    const round2 = (await rpc('tools/call', { name: 'plan_trip', arguments: args, inputResponses: { where: { action: 'accept', content: { city: 'Lisbon' } } }, requestState: round1.requestState })).result!;
    assert.equal(round2.resultType, 'task', JSON.stringify(round2));
    assert.ok(!('requestState' in round2) && !('inputRequests' in round2));
    return String(round2.taskId);
  };

  const taskId = await startTrip({});
  const parked = await taskStatus(rpc, taskId, (x) => x.status === 'input_required', 'the task to ask when');
  assert.deepEqual(Object.keys(parked.inputRequests as Json), ['when']);
  await rpc('tasks/update', { taskId, inputResponses: { when: { action: 'accept', content: { date: 'May 1' } } } });
  const done = await taskStatus(rpc, taskId, (x) => x.status === 'completed', 'the task to complete');
  assert.equal(textOf(done.result), 'Trip to Lisbon on May 1');

  // Cancel after the task started: the handler's signal fires, the task ends cancelled.
  const waiting = await startTrip({ wait: true });
  assert.equal((await get(waiting)).status, 'working');
  await rpc('tasks/cancel', { taskId: waiting });
  assert.equal((await get(waiting)).status, 'cancelled');

  // A plugin's own question inside a task waits for the person (past ASK_REPLY_S), answered at the dashboard.
  const coffee = String((await rpc('tools/call', { name: 'ask_person', arguments: {} })).result!.taskId);
  const question = await p.pendingQuestion('Coffee?');
  await clock.advance(1500);
  assert.equal((await get(coffee)).status, 'working');
  p.answer(question.id, { answers: [{ question: 'Coffee?', selected: 'yes' }] });
  const served = await taskStatus(rpc, coffee, (x) => x.status === 'completed', 'the question task to complete');
  assert.equal(textOf(served.result), 'answered: yes');

  // Without the tasks extension: one call, both questions as rounds the official client fulfils itself.
  const { client } = await p.connect({ era: '2026-07-28', capabilities: FORMS });
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', (req) => {
    asked.push(req.params.message);
    const content: Record<string, string> = req.params.message === 'Where to?' ? { city: 'Porto' } : { date: 'June 2' };
    return { action: 'accept' as const, content };
  });
  const sync = await client.callTool({ name: 'plan_trip', arguments: {} });
  assert.equal(textOf(sync), 'Trip to Porto on June 2');
  assert.deepEqual(asked, ['Where to?', 'When?']);
});
