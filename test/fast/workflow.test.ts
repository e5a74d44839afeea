import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { textOf } from '../helpers/clients.js';
import { waitFor } from '../helpers/env.js';
import { fakeClock, inProcess, type InProcess } from '../helpers/in-process.js';

// The workflow tools' logic — TaskManager, PlanMode, SetCallback, InvokeSkill, AskUserQuestion — through
// the real server factory and the SDK's v2 client, in-process. Timers run on a fake clock where a test
// waits for time to pass (callbacks, the question timeout), so a loaded machine changes nothing.

type S = Record<string, unknown>;
const sc = (r: unknown) => (r as { structuredContent: S }).structuredContent;

describe('TaskManager and PlanMode', () => {
  let p: InProcess;
  let client: Client;
  before(async () => {
    p = await inProcess();
    ({ client } = await p.connect());
  });
  after(() => p.close());

  const tm = (args: S) => client.callTool({ name: 'TaskManager', arguments: args });

  test('create, add, complete, pending, list, switch — with query sent on every call', async (t) => {
    const created = await tm({ action: 'create', text: 'Ship v1', query: '' });
    assert.match(textOf(created), /Created task 1 and made it active\.\n▶ Task 1: Ship v1 — 0\/0 done/);
    await tm({ action: 'add', text: 'write tests', query: '' });
    const added = await tm({ action: 'add', text: 'release', query: '' });
    assert.match(textOf(added), /\[ \] 1\. write tests\n  \[ \] 2\. release/);
    const done = await tm({ action: 'complete', step_id: 1, query: '' });
    assert.match(textOf(done), /1\/2 done\n  \[x\] 1\. write tests\n  \[ \] 2\. release/);
    const pending = await tm({ action: 'pending', query: '' });
    assert.match(textOf(pending), /Open steps of task 1 \(Ship v1\), 1\/2 done:\n  \[ \] 2\. release/);
    await tm({ action: 'create', text: 'Side quest', query: '' });
    const switched = await tm({ action: 'switch', task_id: 1, query: '' });
    assert.match(textOf(switched), /Task 1 is now active/);
    const list = await tm({ action: 'list', query: '' });
    assert.equal((sc(list).tasks as unknown[]).length, 2);
    const filtered = await tm({ action: 'list', query: 'side' });
    assert.deepEqual((sc(filtered).tasks as { name: string }[]).map((tool) => tool.name), ['Side quest']);
    const whole = await tm({ action: 'complete', task_id: 1 });
    assert.match(textOf(whole), /2\/2 done ✓/);
    assert.equal((sc(whole).task as { completed: boolean }).completed, true);
  });

  test('TaskManager errors say what to fix', async (t) => {
    const cases: [S, RegExp][] = [
      [{ action: 'create', text: '  ' }, /text \(the task name\) is empty/],
      [{ action: 'add', task_id: 99, text: 'x' }, /there is no task 99/],
      [{ action: 'complete', step_id: 999 }, /there is no step 999/],
      [{ action: 'complete' }, /pass step_id .* or task_id/],
      [{ action: 'switch', task_id: 42 }, /there is no task 42/],
      [{ action: 'explode' }, /unknown action "explode". Use one of: create, add, complete, list, pending, switch/],
      [{}, /invalid arguments: action/],
    ];
    for (const [args, re] of cases) {
      const r = await tm(args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(textOf(r), re);
    }
  });

  test('tasks are the pincer://tasks resource, with updates to subscribers', async (t) => {
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'pincer://tasks'));
    const read = await client.readResource({ uri: 'pincer://tasks' });
    assert.match((read.contents[0] as { text: string }).text, /# Tasks[\s\S]*- \[x\] write tests/);
    let updated = 0;
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      if (n.params.uri === 'pincer://tasks') updated++;
    });
    await client.subscribeResource({ uri: 'pincer://tasks' });
    await tm({ action: 'add', task_id: 2, text: 'new step' });
    await waitFor(() => updated > 0, 'notifications/resources/updated');
  });

  test('PlanMode: enter, status, json, exit with a plan file, the plan resource, reset', async (t) => {
    const pm = (args: S) => client.callTool({ name: 'PlanMode', arguments: args });
    assert.match(textOf(await pm({ action: 'exit', plan_file: '/x' })), /plan mode is not on/);
    assert.match(textOf(await pm({ action: 'enter' })), /goal is empty/);
    const entered = await pm({ action: 'enter', goal: 'Refactor the parser' });
    assert.equal(sc(entered).active, true);
    assert.match(textOf(await pm({ action: 'status' })), /Plan mode is on for .*Goal: Refactor the parser/);
    const json = JSON.parse(textOf(await pm({ action: 'json' })));
    assert.deepEqual(Object.keys(json), ['active', 'goal', 'plan_file', 'started_at']);
    assert.equal(json.active, true);
    assert.match(textOf(await pm({ action: 'exit', plan_file: path.join(p.home, 'missing.md') })), /does not exist/);
    const file = path.join(p.home, 'plan.md');
    fs.writeFileSync(file, '# Plan\n\n1. Split the lexer\n2. Add tests\n');
    const exited = await pm({ action: 'exit', plan_file: file });
    assert.match(textOf(exited), /Plan stored/);
    assert.equal(sc(exited).active, false);
    assert.equal(sc(exited).plan_file, file);
    const res = await client.readResource({ uri: 'pincer://plan' });
    assert.match((res.contents[0] as { text: string }).text, /# Plan: Refactor the parser[\s\S]*Split the lexer/);
    assert.match(textOf(await pm({ action: 'reset' })), /reset/);
    assert.equal(JSON.parse(textOf(await pm({ action: 'json' }))).goal, null);
    assert.match(textOf(await pm({ action: 'fly' })), /unknown action "fly"/);
  });
});

describe('SetCallback', () => {
  test('delay 1, repeat 3: three notifications/message to the session, and the next result starts with them', async (t) => {
    const clock = fakeClock(t);
    const p = await inProcess({}, t);
    const { client } = await p.connect();
    const logs: string[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      logs.push(String(n.params.data));
    });
    // Log messages are sent only to a client that asked for them.
    await client.setLoggingLevel('info');
    const set = await client.callTool({ name: 'SetCallback', arguments: { action: 'set', message: 'check the build', delay_seconds: 1, repeat_count: 3 } });
    assert.match(textOf(set), /Callback 0 set: "check the build" fires in 1 s, every 1 s, 3 times/);
    // Three fires due within 3 s; the clock runs on well past them, and no fourth comes.
    await clock.advance(6000);
    assert.equal(logs.length, 3, 'exactly three fires');
    for (const l of logs) assert.equal(l, '[Callback] Timer fired: check the build');
    const next = await client.callTool({ name: 'ListBgTasks', arguments: {} });
    const content = next.content as { type: string; text: string }[];
    assert.equal(content[0]!.text, Array(3).fill('[Callback] Timer fired: check the build').join('\n'));
    assert.deepEqual((next.structuredContent as { pincer_notices?: string[] }).pincer_notices, Array(3).fill('[Callback] Timer fired: check the build'));
    assert.match(content[1]!.text, /No background tasks/);
    const after = await client.callTool({ name: 'ListBgTasks', arguments: {} });
    assert.equal((after.content as unknown[]).length, 1, 'fires are delivered once');
    assert.match(textOf(await client.callTool({ name: 'SetCallback', arguments: { action: 'list' } })), /No active callbacks/);
  });

  test('list, cancel, slots and out-of-range values', async (t) => {
    const p = await inProcess({ env: { CALLBACK_MAX: '2' } }, t);
    const { client } = await p.connect();
    const cb = (args: S) => client.callTool({ name: 'SetCallback', arguments: args });
    await cb({ message: 'a', delay_seconds: 3600 });
    await cb({ message: 'b'.repeat(100), delay_seconds: 600, repeat_count: -1 });
    const full = await cb({ message: 'c', delay_seconds: 10 });
    assert.match(textOf(full), /all 2 callback slots are in use/);
    const list = await cb({ action: 'list' });
    assert.match(textOf(list), /0\. "a" — next in .*, every 3600 s, 20 left/);
    assert.match(textOf(list), /1\. "b{57}\.\.\." — next in .*until cancelled/);
    assert.match(textOf(await cb({ action: 'cancel', callback_id: 0 })), /Cancelled callback 0/);
    assert.match(textOf(await cb({ action: 'cancel', callback_id: 0 })), /no active callback 0/);
    // Cancelling every callback takes an explicit all: true; a bare cancel cancels nothing.
    const bare = await cb({ action: 'cancel' });
    assert.equal(bare.isError, true);
    assert.match(textOf(bare), /say which callback: .*"callback_id":N.*"all":true/);
    assert.match(textOf(await cb({ action: 'list' })), /1 active callback/);
    // callback_id on set takes that slot when it is free, and says so when it is not.
    assert.match(textOf(await cb({ message: 'again', delay_seconds: 3600, callback_id: 0 })), /Callback 0 set/);
    const taken = await cb({ message: 'clash', delay_seconds: 3600, callback_id: 1 });
    assert.equal(taken.isError, true);
    assert.match(textOf(taken), /slot 1 is in use/);
    assert.match(textOf(await cb({ action: 'cancel', all: true })), /Cancelled all 2 callback/);
    for (const [args, re] of [
      [{ message: 'x', delay_seconds: 0 }, /delay_seconds must be 1 to 3600/],
      [{ message: 'x', delay_seconds: 3601 }, /delay_seconds must be 1 to 3600/],
      [{ message: 'x'.repeat(2049), delay_seconds: 5 }, /at most 2048 characters/],
      [{ message: 'x', delay_seconds: 5, repeat_count: 0 }, /repeat_count must be -1/],
      [{ delay_seconds: 5 }, /message is empty/],
      [{ message: 'x' }, /delay_seconds is missing/],
      [{ action: 'snooze' }, /action must be set, list or cancel/],
      [{ action: 'cancel', callback_id: 8 }, /slot id from 0 to 7/],
    ] as [S, RegExp][]) {
      const r = await cb(args);
      assert.equal(r.isError, true, JSON.stringify(args).slice(0, 80));
      assert.match(textOf(r), re);
    }
  });
});

describe('InvokeSkill and skills as prompts', () => {
  test('a skill folder created while connected appears in tools/list and prompts/list after list_changed', async (t) => {
    const p = await inProcess({ watch: true, files: { 'skills/broken/SKILL.md': '---\nname: broken\ndescription: one\ndescription: two\n---\nbody\n' } }, t);
    const { client } = await p.connect();
    const skills = path.join(p.home, 'skills');
    let toolsChanged = 0;
    let promptsChanged = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void toolsChanged++);
    client.setNotificationHandler('notifications/prompts/list_changed', () => void promptsChanged++);
    const before = (await client.listTools()).tools.find((tool) => tool.name === 'InvokeSkill')!;
    assert.match(before.description!, /No skills are installed/);

    const dir = path.join(skills, 'release-notes');
    fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'scripts', 'collect.sh'), 'git log --oneline\n');
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: release-notes\ndescription: Write release notes from the git log\n---\nWrite notes for version $ARGUMENTS.\n');
    await waitFor(() => toolsChanged > 0 && promptsChanged > 0, 'list_changed for tools and prompts');
    const desc = (await client.listTools()).tools.find((tool) => tool.name === 'InvokeSkill')!.description!;
    assert.match(desc, /Available skills:\n- release-notes: Write release notes from the git log/);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((pr) => pr.name), ['release-notes']);

    const r = await client.callTool({ name: 'InvokeSkill', arguments: { skill_name: 'release-notes', arguments: '2.1' } });
    assert.match(textOf(r), /Write notes for version 2\.1\./);
    assert.deepEqual(sc(r).files, [path.join(dir, 'scripts', 'collect.sh')]);
    assert.equal(sc(r).folder, dir);
    const prompt = await client.getPrompt({ name: 'release-notes', arguments: { arguments: '3.0' } });
    assert.equal((prompt.messages[0]!.content as { text: string }).text, 'Write notes for version 3.0.\n');

    const missing = await client.callTool({ name: 'InvokeSkill', arguments: { skill_name: 'nope' } });
    assert.match(textOf(missing), /there is no skill "nope". Available: release-notes/);
    fs.appendFileSync(path.join(p.home, 'pincer-env.txt'), 'SKILL_RELEASE_NOTES=false\n');
    await waitFor(async () => textOf(await client.callTool({ name: 'InvokeSkill', arguments: { skill_name: 'release-notes' } })).includes('turned off (SKILL_RELEASE_NOTES=false)'), 'the skill to be turned off');
    assert.match(p.logText(), /skill .*broken[\\/]SKILL\.md:4: front matter: Map keys must be unique/);
  });
});

describe('AskUserQuestion', () => {
  test('a client with elicitation gets elicitation/create and its answer comes back', async (t) => {
    const p = await inProcess({}, t);
    const { client } = await p.connect({ capabilities: { elicitation: { form: {} } } });
    let asked: S | undefined;
    client.setRequestHandler('elicitation/create', (req) => {
      asked = req.params as S;
      return { action: 'accept', content: { q1: 'Postgres', q2: ['Linux', 'macOS'], q2_other: 'BSD too' } };
    });
    const r = await client.callTool({
      name: 'AskUserQuestion',
      arguments: {
        questions_json: JSON.stringify([
          { question: 'Which database?', header: 'DB', options: [{ label: 'Postgres', description: 'relational' }, { label: 'SQLite' }], multiSelect: false },
          { question: 'Which platforms?', options: [{ label: 'Linux' }, { label: 'macOS' }, { label: 'Windows' }], multiSelect: true },
        ]),
      },
    });
    const schema = (asked!.requestedSchema as { properties: Record<string, { type: string; enum?: string[]; items?: { enum: string[] } }> }).properties;
    assert.deepEqual(schema.q1!.enum, ['Postgres', 'SQLite']);
    assert.equal(schema.q2!.type, 'array');
    assert.deepEqual(schema.q2!.items!.enum, ['Linux', 'macOS', 'Windows']);
    assert.equal(schema.q1_other!.type, 'string');
    assert.deepEqual(sc(r).answers, [
      { question: 'Which database?', selected: 'Postgres' },
      { question: 'Which platforms?', selected: ['Linux', 'macOS'], other: 'BSD too' },
    ]);
    assert.match(textOf(r), /The person answered:\n- Which database\?\n  → Postgres/);
  });

  test('bad questions_json is a clear error', async (t) => {
    const p = await inProcess({}, t);
    const { client } = await p.connect();
    for (const [json, re] of [
      ['not json', /not valid JSON/],
      ['[]', /ask 1 to 4 questions/],
      [JSON.stringify([{ question: 'Q', options: ['only one'] }]), /2 to 8 options/],
      [JSON.stringify({ questions: [{ text: 'Q', options: ['a', 'a'] }] }), /lists the option "a" twice/],
      ['42', /must be an array of questions or an object/],
    ] as [string, RegExp][]) {
      const r = await client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: json } });
      assert.equal(r.isError, true);
      assert.match(textOf(r), re);
    }
  });

  test('ASK_TIMEOUT_S: nobody answered', async (t) => {
    const clock = fakeClock(t);
    const p = await inProcess({ env: { ASK_TIMEOUT_S: '5' } }, t);
    const { client } = await p.connect();
    const call = client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify([{ question: 'Anyone?', options: ['a', 'b'] }]) } });
    await p.pendingQuestion('Anyone?');
    await clock.advance(5500);
    const r = await call;
    assert.equal(sc(r).status, 'timeout');
    assert.match(textOf(r), /Nobody answered within 5 s/);
  });
});
