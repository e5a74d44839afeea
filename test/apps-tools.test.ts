import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRuntime, type Runtime } from '../main/calls/runtime.js';
import { Caller } from '../main/calls/caller.js';
import type { CallOutcome } from '../main/calls/calls.js';
import { tempHome, waitFor } from './helpers/env.js';
import { bgRead } from './helpers/clients.js';
import { pidAlive } from '../main/core/pid.js';

/**
 * The chat views' own tools, in-process through the call core (the one way every surface calls a tool):
 * they exist for a client of MCP Apps alone, read job windows that never cut a character, find the call a
 * view shows by what only its own client asked, and act exactly as the dashboard and TaskManager do.
 */

type S = Record<string, unknown>;
const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
const sc = (o: CallOutcome): S => o.result.structuredContent as S;
const text = (o: CallOutcome): string => o.result.content.map((c) => ('text' in c ? c.text : '')).join('\n');

describe('chat view tools (in-process)', () => {
  const h = tempHome();
  let rt: Runtime;
  const me = new Caller('test', 'client:me', () => 'me');
  const other = new Caller('test', 'client:other', () => 'other');
  const call = (name: string, args: S, opts: { caller?: Caller; apps?: boolean } = {}) =>
    rt.calls.call({ name, arguments: args, caller: opts.caller ?? me, channel: { signal: new AbortController().signal, ...(opts.apps === false ? {} : { clientCapabilities: APPS }) }, apps: opts.apps ?? true });

  before(() => {
    rt = createRuntime({ home: h.home, watch: false, env: { ...process.env, PINCER_HOME: h.home } });
  });
  after(() => {
    rt.close();
    h.cleanup();
  });

  test('listed, described and callable for a client of MCP Apps only', async () => {
    const plain = rt.calls.list().map((t) => t.name);
    const apps = rt.calls.list(undefined, undefined, true);
    const viewTools = ['JobViewRead', 'JobViewKill', 'QuestionViewRead', 'QuestionViewAnswer', 'TaskViewRead', 'TaskViewComplete'];
    for (const name of viewTools) {
      assert.ok(!plain.includes(name), `${name} is not listed to a client without the extension`);
      const t = apps.find((x) => x.name === name);
      assert.deepEqual((t?._meta?.ui as { visibility?: string[] } | undefined)?.visibility, ['app'], `${name} is for its view alone`);
      const refused = await call(name, {}, { apps: false });
      assert.equal(refused.error?.code, 'TOOL_NOT_FOUND');
      assert.equal(text(refused), `Unknown tool: ${name}. tools/list shows the available tools.`);
    }
    assert.ok(rt.calls.list().every((t) => t._meta === undefined), 'no tool carries _meta.ui without the extension');
    assert.equal(rt.calls.describe('JobViewRead'), undefined, 'REST and the other surfaces do not describe them');
    const linked = Object.fromEntries(apps.filter((t) => !viewTools.includes(t.name) && t._meta).map((t) => [t.name, (t._meta!.ui as { resourceUri: string }).resourceUri]));
    assert.deepEqual(linked, { Bash: 'ui://pincer/job.html', BackgroundBash: 'ui://pincer/job.html', TaskManager: 'ui://pincer/task.html', PlanMode: 'ui://pincer/task.html', AskUserQuestion: 'ui://pincer/question.html' });
  });

  test('TOOL_<NAME> and pause apply to them as to any tool', async () => {
    rt.settings.set('TOOL_TASKVIEWREAD', 'false');
    try {
      assert.equal((await call('TaskViewRead', {})).error?.code, 'TOOL_DISABLED');
      assert.ok(!rt.calls.list(undefined, undefined, true).some((t) => t.name === 'TaskViewRead'));
    } finally {
      rt.settings.unset('TOOL_TASKVIEWREAD');
    }
    assert.equal((await call('TaskViewRead', {})).error, undefined);
    rt.settings.set('TOOLS', 'false');
    try {
      assert.equal((await call('JobViewRead', { task_id: 1 })).error?.code, 'SERVING_PAUSED');
    } finally {
      rt.settings.unset('TOOLS');
    }
  });

  test('JobViewRead: the end first, earlier parts on demand, never a character cut, never the model’s read position', async () => {
    // 3 bytes a character, lines of varied length: window edges fall inside characters.
    const started = await call('BackgroundBash', { command: `seq 1 4000 | awk '{ s = ""; for (j = 0; j <= $1 % 17; j++) s = s "€"; print s " " $1 }'` });
    const id = sc(started).task_id as number;
    const ended = await waitFor(async () => {
      const r = await call('JobViewRead', { task_id: id });
      return (sc(r).job as { running: boolean }).running ? undefined : r;
    }, 'the job to end');
    const log = fs.readFileSync((sc(started).log_file as string), 'utf8');
    const size = Buffer.byteLength(log);
    const tail = sc(ended).window as { from: number; to: number; text: string };
    assert.equal(tail.to, size, 'the first read shows the end');
    assert.ok(tail.to - tail.from <= 64 * 1024 && tail.from > 0);
    let parts = [tail.text];
    let before = tail.from;
    while (before > 0) {
      const w = sc(await call('JobViewRead', { task_id: id, before, max_bytes: 10_007 })).window as { from: number; to: number; text: string };
      assert.equal(w.to, before, 'each earlier part ends where the later one starts');
      assert.ok(w.from < before);
      parts = [w.text, ...parts];
      before = w.from;
    }
    assert.equal(parts.join(''), log, 'the parts join into the log, character for character');
    const fromMiddle = sc(await call('JobViewRead', { task_id: id, from: 5, max_bytes: 100 })).window as { from: number; text: string };
    assert.ok(!fromMiddle.text.includes('\uFFFD') && fromMiddle.from >= 5, 'a window starting inside a character starts after it');
    const read = await call('ReadBgOutput', { task_id: id, max_bytes: 12 });
    assert.equal(bgRead(read.result).output, Buffer.from(log).subarray(0, 12).toString(), 'the model still reads from the start: the view moved nothing');
  });

  test('JobViewRead by command finds only this client’s job; from + wait_ms waits for more output', async () => {
    const command = 'sleep 0.5; echo late-line; sleep 30';
    const mine = sc(await call('BackgroundBash', { command })).task_id as number;
    assert.equal(sc(await call('JobViewRead', { command }, { caller: other })).job, null, 'another client’s job with the same command is not found');
    const found = await call('JobViewRead', { command });
    assert.equal((sc(found).job as { task_id: number }).task_id, mine);
    const waited = await call('JobViewRead', { task_id: mine, from: 0, wait_ms: 10_000 });
    assert.match((sc(waited).window as { text: string }).text, /late-line/);
    const killed = await call('JobViewKill', { task_id: mine });
    assert.equal(sc(killed).status, 'killed');
    const again = await call('JobViewKill', { task_id: mine });
    assert.equal(again.error?.reason, 'CONFLICT');
    assert.match(text(again), /already killed/);
    const missing = await call('JobViewRead', { task_id: 99_999 });
    assert.equal(missing.error?.reason, 'NOT_FOUND');
  });

  test('a Bash call of a client of MCP Apps runs as Bash does, followed by JobViewRead while it runs and stopped by JobViewKill; no job is made', async () => {
    const gate = `${h.home}/bash-run-gate`;
    const pidFile = `${h.home}/bash-run-child`;
    // Earlier output in lines of several characters each 3 bytes long, then a child in the background that outlives nothing.
    const command = `for i in $(seq 1 6000); do echo "€€€ line $i"; done; sh -c 'echo $$ > ${pidFile}; exec sleep 60' & while [ ! -f ${gate} ]; do sleep 0.05; done; echo past-gate; wait`;
    const running = call('Bash', { command, timeout: 120_000 });
    const found = await waitFor(async () => {
      const r = sc(await call('JobViewRead', { command }));
      // Once the loop has written its last line: what the command writes next is past-gate.
      return (r.window as { text: string } | null)?.text.includes('€€€ line 6000\n') ? r : undefined;
    }, 'the running call to be found by its command, its loop done');
    const job = found.job as { run_id: number; task_id: number | null; running: boolean; status: string; kept_from: number };
    assert.deepEqual([job.task_id, job.running, job.status, job.kept_from], [null, true, 'running', 0]);
    assert.equal(sc(await call('JobViewRead', { command }, { caller: other })).job, null, 'another client does not find it');
    // The end first, from a line start; earlier parts join into what the command wrote, never a character cut.
    const tail = found.window as { from: number; to: number; text: string };
    assert.match(tail.text, /^€€€ line \d+\n/);
    assert.ok(tail.from > 0 && tail.to === (found.job as { log_bytes: number }).log_bytes);
    const earlier = sc(await call('JobViewRead', { run_id: job.run_id, before: tail.from, max_bytes: 1000 })).window as { from: number; to: number; text: string };
    assert.equal(earlier.to, tail.from);
    assert.match(earlier.text, /^€€€ line \d+\n[^]*\n$/);
    // from + wait_ms: what the command writes next.
    const waiting = call('JobViewRead', { run_id: job.run_id, from: tail.to, wait_ms: 15_000 });
    fs.writeFileSync(gate, '');
    assert.match((sc(await waiting).window as { text: string }).text, /past-gate/);
    const child = Number(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim(), 'the background child'));
    const killed = await call('JobViewKill', { run_id: job.run_id });
    assert.equal(killed.error, undefined, text(killed));
    assert.equal(sc(killed).status, 'killed');
    assert.match(text(killed), new RegExp(`^Stopped Bash call ${job.run_id} \\(.*\\) and every process it started: terminated`));
    const answered = await running;
    assert.equal(answered.result.isError, true);
    // This runtime has no BASH_CWD: Bash's answer ends with where it ran.
    assert.match(text(answered), /past-gate\n\[Command stopped from its view in the chat; it was killed with its child processes\.\]\n\[Ran in [^\]]*, your home folder[^\]]*\]$/);
    assert.equal((answered.result.structuredContent as { cancelled: boolean }).cancelled, true);
    await waitFor(() => !pidAlive(child), 'the command’s background child to be gone with its group');
    const again = await call('JobViewKill', { run_id: job.run_id });
    assert.equal(again.error?.reason, 'CONFLICT');
    assert.match(text(again), /has already ended; there is nothing to stop/);
    const ended = sc(await call('JobViewRead', { run_id: job.run_id })).job as { status: string; note: string; running: boolean };
    assert.deepEqual([ended.status, ended.running, ended.note], ['killed', false, 'stopped from its view in the chat']);
    assert.ok(!rt.services.jobs.repo.page({ limit: 200 }).rows.some((j) => j.command === command), 'no job was made for the call');
    assert.equal((await call('JobViewKill', {})).error?.reason, 'INVALID_INPUT');
    assert.equal((await call('JobViewRead', { run_id: 424_242 })).error?.reason, 'NOT_FOUND');
  });

  test('QuestionViewRead finds the question by what this client asked; QuestionViewAnswer answers as the dashboard does', async () => {
    const questions = JSON.stringify([{ question: 'Ship it?', options: [{ label: 'yes' }, { label: 'no' }] }]);
    const asking = call('AskUserQuestion', { questions_json: questions });
    const shown = await waitFor(async () => (sc(await call('QuestionViewRead', { questions_json: questions })).question as { id: number; status: string } | null) ?? undefined, 'the question to be found');
    assert.equal(shown.status, 'pending');
    assert.equal(sc(await call('QuestionViewRead', { questions_json: questions }, { caller: other })).question, null, 'another client does not find it');
    const bad = await call('QuestionViewAnswer', { question_id: shown.id, answers: [{ question: 'Ship it?', selected: 'maybe' }] });
    assert.equal(bad.error?.reason, 'INVALID_INPUT');
    assert.match(text(bad), /"maybe" is not an option of "Ship it\?"/);
    const empty = await call('QuestionViewAnswer', { question_id: shown.id });
    assert.match(text(empty), /pass answers \(one per question\) or decline: true/);
    const answered = await call('QuestionViewAnswer', { question_id: shown.id, answers: [{ question: 'Ship it?', selected: 'yes', other: 'today' }] });
    assert.deepEqual((sc(answered).question as { status: string; via: string }).status, 'answered');
    assert.equal((sc(answered).question as { via: string }).via, 'chat');
    const r = await asking;
    assert.equal(text(r), 'The person answered:\n- Ship it?\n  → yes\n  → other: today');
    const late = await call('QuestionViewAnswer', { question_id: shown.id, decline: true });
    assert.equal(late.error?.reason, 'CONFLICT');
    assert.match(text(late), /Question \d+ is already answered/);
  });

  test('TaskViewRead waits for a change; TaskViewComplete completes a step as TaskManager does', async () => {
    await call('TaskManager', { action: 'create', text: 'Board' });
    const added = sc(await call('TaskManager', { action: 'add', text: 'first' }));
    const stepId = (added.task as { steps: { id: number }[] }).steps[0]!.id;
    const board = sc(await call('TaskViewRead', {}));
    const waiting = call('TaskViewRead', { since: board.version, wait_ms: 15_000 });
    await call('TaskManager', { action: 'add', text: 'second' });
    const changed = sc(await waiting);
    assert.notEqual(changed.version, board.version);
    const active = (changed.tasks as { id: number; steps: unknown[] }[]).find((t) => t.id === changed.active_task_id)!;
    assert.equal(active.steps.length, 2);
    const done = sc(await call('TaskViewComplete', { step_id: stepId }));
    assert.equal((done.tasks as { id: number; done: number }[]).find((t) => t.id === done.active_task_id)!.done, 1);
    const missing = await call('TaskViewComplete', { step_id: 424242 });
    assert.equal(missing.error?.reason, 'NOT_FOUND');
    assert.match(text(missing), /TaskViewComplete: there is no step 424242/);
  });
});
