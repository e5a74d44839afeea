import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRuntime, type Runtime } from '../main/calls/runtime.js';
import { Caller } from '../main/calls/caller.js';
import type { CallChannel, CallOutcome } from '../main/calls/calls.js';
import { clientAsking, type ClientReach, type TaskReach } from '../main/calls/asking.js';
import { CapabilityMissing, InputNeeded, needInputOf, type ClientAsk } from '../main/tools/client-asks.js';
import { UserError } from '../main/core/errors.js';
import { tempHome, waitFor } from './helpers/env.js';

/**
 * The one way a tool asks its client or the person (calls/asking.ts), in-process through the call core:
 * what each reach a surface can offer — the call's stream (2025 era), round trips (2026-07-28), a task's
 * input, none — makes of `ctx.ask` and of AskUserQuestion. The same paths through real clients and
 * transports are covered by mcp-task-questions, mcp-task-compose, plugins and the clients' tests.
 */

type S = Record<string, unknown>;
const text = (o: CallOutcome): string => o.result.content.map((c) => ('text' in c ? c.text : '')).join('\n');
const QUESTIONS = JSON.stringify([{ question: 'Tea or coffee?', options: [{ label: 'tea' }, { label: 'coffee' }] }]);

describe('asking the client (in-process)', () => {
  const h = tempHome();
  let rt: Runtime;
  const me = new Caller('test', 'client:asker', () => 'asker');
  const ask = (channel: Omit<CallChannel, 'signal'> & { signal?: AbortSignal }) =>
    rt.calls.call({ name: 'AskUserQuestion', arguments: { questions_json: QUESTIONS }, caller: me, channel: { signal: new AbortController().signal, ...channel } });
  const pending = async () => waitFor(() => rt.services.questions.pending().sort((a, b) => b.id - a.id)[0], 'the question on the dashboard');

  before(() => {
    rt = createRuntime({ home: h.home, watch: false, env: { ...process.env, PINCER_HOME: h.home, ASK_REPLY_S: '30' } });
  });
  after(() => {
    rt.close();
    h.cleanup();
  });

  test('2025 era: the form goes out on the call’s stream, and the client’s answer settles the question', async () => {
    const sent: { method: ClientAsk; params: S }[] = [];
    const stream: NonNullable<ClientReach['stream']> = async (method, params) => {
      sent.push({ method, params });
      return { action: 'accept', content: { q1: 'tea' } };
    };
    const r = await ask({ clientCapabilities: { elicitation: {} }, reach: { stream } });
    assert.equal(text(r), 'The person answered:\n- Tea or coffee?\n  → tea');
    assert.deepEqual(sent.map((s) => [s.method, s.params.message]), [['elicitation/create', 'Tea or coffee?']]);
    const row = rt.services.questions.get((r.result.structuredContent as S).question_id as number)!;
    assert.equal(JSON.parse(row.answer!).via, 'client');
  });

  test('2025 era without a form: nothing is sent, the dashboard answers', async () => {
    const stream: NonNullable<ClientReach['stream']> = async () => assert.fail('a client that cannot show a form is not sent one');
    const asking = ask({ clientCapabilities: {}, reach: { stream } });
    const q = await pending();
    rt.services.asker.answer(q.id, { answers: [{ question: 'Tea or coffee?', selected: 'coffee' }] });
    assert.equal(text(await asking), 'The person answered:\n- Tea or coffee?\n  → coffee');
  });

  test('2026-07-28: the form is a round trip whose retry settles the question it sealed', async () => {
    const first = await ask({ clientCapabilities: { elicitation: {} }, reach: { rounds: { inputResponses: {}, replay: [] } } });
    const need = needInputOf(first.result);
    assert.ok(need, 'the call asks first');
    assert.equal(first.error, undefined, 'asking first is no failure');
    assert.equal(text(first), `Question ${need.questionId} is shown to the person in the client.`);
    assert.deepEqual(Object.keys(need.inputRequests), ['ask']);
    assert.equal(need.inputRequests.ask!.method, 'elicitation/create');
    assert.equal(rt.services.questions.get(need.questionId!)!.status, 'pending', 'the dashboard shows it meanwhile');
    const retry = await ask({
      clientCapabilities: { elicitation: {} },
      reach: { rounds: { inputResponses: { ask: { action: 'accept', content: { q1: 'coffee' } } }, replay: need.replay, questionId: need.questionId! } },
    });
    assert.equal(text(retry), 'The person answered:\n- Tea or coffee?\n  → coffee');
    assert.equal((retry.result.structuredContent as S).question_id, need.questionId);
  });

  test('as a task: the question is the task’s work with its form, and whoever answers first settles it', async () => {
    const awaited: { id: number; request?: { method: string } }[] = [];
    const task: TaskReach = { input: async () => assert.fail('a question is not a task input'), awaitQuestion: (id, request) => void awaited.push({ id, request }) };
    const asking = ask({ clientCapabilities: { elicitation: {} }, reach: { task } });
    const q = await pending();
    assert.deepEqual(awaited.map((a) => [a.id, a.request?.method]), [[q.id, 'elicitation/create']]);
    rt.services.asker.answer(q.id, { answers: [{ question: 'Tea or coffee?', selected: 'tea' }] });
    assert.equal(text(await asking), 'The person answered:\n- Tea or coffee?\n  → tea');
  });

  test('ctx.ask: the capability first, then the task, the round trip (replayed in order) or the stream; nothing else can carry it', async () => {
    const base = { tool: 'probe', services: rt.services, signal: new AbortController().signal, progress: async () => undefined, sessionId: me.id, clientName: 'asker' };
    const sample = { s: { method: 'sampling/createMessage' as const, params: { maxTokens: 1 } } };
    await assert.rejects(clientAsking({ ...base, clientCapabilities: {} }, { stream: async () => ({}) }).ask(sample), (e: unknown) => e instanceof CapabilityMissing && e.message === 'probe needs the client capability sampling, which this client did not declare.');

    const caps = { sampling: {}, roots: {} };
    const viaTask: S[] = [];
    const tasked = clientAsking({ ...base, clientCapabilities: caps }, { task: { input: async (r) => (viaTask.push(r), { s: { role: 'assistant' } }) } });
    assert.deepEqual(await tasked.ask(sample), { s: { role: 'assistant' } });
    assert.deepEqual(viaTask, [{ s: { method: 'sampling/createMessage', params: { maxTokens: 1 } } }]);

    // Round 1 asks; its retry answers it and asks the second question; the next retry replays the first answer.
    const round1 = clientAsking({ ...base, clientCapabilities: caps }, { rounds: { inputResponses: {}, replay: [] } });
    const need1 = await round1.ask(sample).then(() => assert.fail('round 1 must ask'), (e: unknown) => e as InputNeeded);
    assert.ok(need1 instanceof InputNeeded);
    assert.deepEqual(need1.replay, []);
    const round2 = clientAsking({ ...base, clientCapabilities: caps }, { rounds: { inputResponses: { s: { role: 'assistant', n: 1 } }, replay: [] } });
    assert.deepEqual(await round2.ask(sample), { s: { role: 'assistant', n: 1 } });
    const need2 = await round2.ask({ r: { method: 'roots/list' } }).then(() => assert.fail('round 2 asks the roots'), (e: unknown) => e as InputNeeded);
    assert.deepEqual(need2.inputRequests, { r: { method: 'roots/list', params: {} } });
    assert.deepEqual(need2.replay, [{ s: { role: 'assistant', n: 1 } }], 'the first answer is carried to the next retry');
    const round3 = clientAsking({ ...base, clientCapabilities: caps }, { rounds: { inputResponses: { r: { roots: [] } }, replay: need2.replay } });
    assert.deepEqual(await round3.ask(sample), { s: { role: 'assistant', n: 1 } }, 'replayed, not asked again');
    assert.deepEqual(await round3.ask({ r: { method: 'roots/list' } }), { r: { roots: [] } });

    const streamed = clientAsking({ ...base, clientCapabilities: caps }, { stream: async (method) => ({ answered: method }) });
    assert.deepEqual(await streamed.ask({ ...sample, r: { method: 'roots/list' } }), { s: { answered: 'sampling/createMessage' }, r: { answered: 'roots/list' } });

    await assert.rejects(clientAsking({ ...base, clientCapabilities: caps }).ask(sample), (e: unknown) => e instanceof UserError && e.code === 'UNSUPPORTED' && /probe: this connection cannot carry requests to the client/.test(e.message));
  });

  test('startTask: only a call that may become a task becomes one, once', async () => {
    const base = { tool: 'probe', services: rt.services, signal: new AbortController().signal, progress: async () => undefined, clientCapabilities: {} };
    let started = 0;
    const deferred = clientAsking(base, { rounds: { inputResponses: {}, replay: [] }, startTask: async () => (started++, { input: async () => ({ later: { ok: true } }) }) });
    assert.equal(deferred.canStartTask, true);
    await deferred.startTask();
    await deferred.startTask();
    assert.equal(started, 1);
    assert.equal(deferred.canStartTask, false, 'a task now');
    assert.deepEqual(await deferred.ask({}), { later: { ok: true } }, 'what is asked after parks the task');
    const plain = clientAsking(base, {});
    assert.equal(plain.canStartTask, false);
    await plain.startTask();
    assert.equal(plain.canStartTask, false, 'a call that cannot become a task goes on as it is');
  });
});
