import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { textOf } from '../helpers/clients.js';
import { TOOL_COUNT } from '../helpers/catalogue.js';
import { fakeClock, inProcess } from '../helpers/in-process.js';
import { Caller } from '../../main/calls/caller.js';
import { PAUSED_MESSAGE } from '../../main/calls/call-errors.js';
import { UserError } from '../../main/core/errors.js';
import { defineTool, textResult, type AnyTool } from '../../main/tools/types.js';
import type { HubEvent } from '../../main/tools/events.js';

// The call core (main/calls/): visibility, validation, activity, thrown errors, callback notices and
// result shaping — through ToolCalls itself where the surface does not matter, through the SDK's
// clients on both generations where it does. In-process: seconds for a change to calls.ts.

const caller = () => new Caller('test', 'fast-caller', () => 'fast-direct');
const channel = () => ({ signal: new AbortController().signal });

function testTools(): AnyTool[] {
  return [
    defineTool({
      name: 'Refuses',
      title: 'Refuses',
      group: 'plugins',
      description: 'Throws a UserError',
      inputSchema: z.object({}),
      annotations: {},
      handler: async () => {
        throw new UserError('Refuses: slot 3 is taken; pick another.', 'CONFLICT');
      },
    }),
    defineTool({
      name: 'Crashes',
      title: 'Crashes',
      group: 'plugins',
      description: 'Throws a plain error, as a bug would',
      inputSchema: z.object({}),
      annotations: {},
      handler: async () => {
        throw new TypeError('cannot read properties of undefined');
      },
    }),
    defineTool({
      name: 'Echoes',
      title: 'Echoes',
      group: 'plugins',
      description: 'Echoes its text',
      inputSchema: z.object({ text: z.string() }),
      annotations: {},
      handler: async ({ text }) => textResult(text),
    }),
  ] as AnyTool[];
}

describe('visibility', () => {
  test('TOOL_<NAME>=false hides one tool and refuses it naming its key; a group limits list and call; TOOLS=false pauses everything', async (t) => {
    const p = await inProcess({ settings: { TOOL_KILLBGTASK: 'false' } }, t);
    const { calls, registry } = p.runtime;
    const names = calls.list().map((tool) => tool.name);
    assert.equal(names.length, TOOL_COUNT - 1);
    assert.ok(!names.includes('KillBgTask'));
    const shell = calls.list('shell').map((tool) => tool.name);
    assert.deepEqual(shell, names.filter((n) => registry.byName.get(n)?.group === 'shell'));
    assert.ok(shell.includes('Bash') && !shell.includes('WebSearch'));

    const off = await calls.call({ name: 'KillBgTask', arguments: { task_id: 1 }, caller: caller(), channel: channel() });
    assert.equal(off.error?.code, 'TOOL_DISABLED');
    assert.equal(off.result.isError, true);
    assert.match(textOf(off.result), /KillBgTask is turned off in Pincer \(TOOL_KILLBGTASK=false\)\. Ask the user to enable it/);

    const elsewhere = await calls.call({ name: 'Bash', arguments: { command: 'true' }, group: 'web', caller: caller(), channel: channel() });
    assert.equal(elsewhere.error?.code, 'TOOL_NOT_FOUND');
    assert.equal(elsewhere.error?.message, 'Unknown tool: Bash in the web group. tools/list shows the available tools.');

    p.runtime.settings.set('TOOLS', 'false');
    assert.deepEqual(calls.list(), []);
    const paused = await calls.call({ name: 'ListBgTasks', arguments: {}, caller: caller(), channel: channel() });
    assert.deepEqual(paused.error, { code: 'SERVING_PAUSED', message: PAUSED_MESSAGE });
  });

  test("a client's project narrows its own calls only: tools/list and tools/call of another client are the process's", async (t) => {
    const p = await inProcess({}, t);
    const project = path.join(p.home, 'repo');
    fs.mkdirSync(path.join(project, '.pincer'), { recursive: true });
    fs.writeFileSync(path.join(project, '.pincer', 'pincer-env.txt'), 'TOOL_BASH=false\n');
    const inProject = await p.connect({ cwd: project });
    const outside = await p.connect();
    assert.ok(!(await inProject.client.listTools()).tools.some((tool) => tool.name === 'Bash'));
    const refused = await inProject.client.callTool({ name: 'Bash', arguments: { command: 'echo no' } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /Bash is turned off in Pincer \(TOOL_BASH=false\)/);
    assert.ok((await outside.client.listTools()).tools.some((tool) => tool.name === 'Bash'));
    assert.match(textOf(await outside.client.callTool({ name: 'Bash', arguments: { command: 'echo yes' } })), /^yes/);
  });
});

describe('validation', () => {
  test('arguments are checked once against the schema, naming the field; an unknown tool is -32602 — on both generations and with the v1 client', async (t) => {
    const p = await inProcess({}, t);
    const clients = [
      { label: 'v2 2025-11-25', ...(await p.connect()) },
      { label: 'v2 2026-07-28', ...(await p.connect({ era: '2026-07-28' })) },
      { label: 'v1', ...(await p.connectV1()) },
    ];
    for (const { label, client } of clients) {
      const bad = await client.callTool({ name: 'Bash', arguments: { command: 5 } });
      assert.equal(bad.isError, true, label);
      assert.match(textOf(bad), /^Bash: invalid arguments: command: .*\. The input schema in tools\/list shows what Bash takes\.$/, label);
      await assert.rejects(client.callTool({ name: 'Nope', arguments: {} }), (err: { code?: number; message: string }) => {
        assert.equal(err.code, -32602, label);
        assert.match(err.message, /Unknown tool: Nope\. tools\/list shows the available tools\./, label);
        return true;
      });
    }
  });
});

describe('activity', () => {
  test('every call is published as it starts and ends, with its client, and recorded in pincer.db; a secret in its arguments or result is never kept in clear', async (t) => {
    const token = 'fast-secret-token-0123456789abcdef';
    const p = await inProcess({ settings: { AUTH_TOKEN: token } }, t);
    const events: HubEvent[] = [];
    p.runtime.events.subscribe((e) => void events.push(e));
    const { client } = await p.connect({ name: 'activity-client' });
    const r = await client.callTool({ name: 'Bash', arguments: { command: `echo ${token}` } });
    assert.match(textOf(r), new RegExp(token), 'the client itself gets its output');
    const started = events.find((e) => e.type === 'tool_call_started');
    const finished = events.find((e) => e.type === 'tool_call_finished');
    assert.ok(started?.type === 'tool_call_started' && finished?.type === 'tool_call_finished');
    assert.equal(started.tool, 'Bash');
    assert.equal(started.client, 'activity-client');
    assert.equal(finished.id, started.id);
    assert.equal(finished.isError, false);
    assert.ok(!started.args.includes(token) && !finished.summary.includes(token), `${started.args} / ${finished.summary}`);
    p.runtime.activity.flush();
    const row = p.runtime.activity.get(started.id);
    assert.equal(row?.tool, 'Bash');
    assert.equal(row?.client, 'activity-client');
    assert.equal(row?.isError, false);
    assert.equal(typeof row?.ms, 'number');
    assert.ok(!JSON.stringify(row).includes(token));
  });
});

describe('thrown errors', () => {
  test('a UserError is the result text with its code as reason; anything else reads "<Tool> failed: …" and is logged with its stack', async (t) => {
    const p = await inProcess({}, t);
    p.runtime.contributions.set('fast-test', { tools: testTools(), prompts: [], resources: [], templates: [] });
    const refused = await p.runtime.calls.call({ name: 'Refuses', arguments: {}, caller: caller(), channel: channel() });
    assert.deepEqual(refused.error, { code: 'TOOL_FAILED', message: 'Refuses: slot 3 is taken; pick another.', reason: 'CONFLICT' });
    assert.equal(textOf(refused.result), 'Refuses: slot 3 is taken; pick another.');
    const crashed = await p.runtime.calls.call({ name: 'Crashes', arguments: {}, caller: caller(), channel: channel() });
    assert.deepEqual(crashed.error, { code: 'TOOL_FAILED', message: 'Crashes failed: cannot read properties of undefined' });
    assert.equal(crashed.result.isError, true);
    const log = p.logText();
    assert.match(log, /"msg":"Crashes failed"/);
    assert.match(log, /TypeError: cannot read properties of undefined\\n\s+at /, 'the stack is logged');
    assert.doesNotMatch(log, /Refuses/, 'a UserError is the caller’s to fix, not a bug to log');
    // The outcome of a call that worked carries the schema it was shaped by.
    const echoed = await p.runtime.calls.call({ name: 'Echoes', arguments: { text: 'hi' }, caller: caller(), channel: channel() });
    assert.equal(echoed.error, undefined);
    assert.deepEqual(echoed.result.content, [{ type: 'text', text: 'hi' }]);
  });
});

describe('callback notices', () => {
  test('a 2026-07-28 client gets its fires in its next result (content and structuredContent), never as notifications/message', async (t) => {
    const clock = fakeClock(t);
    const p = await inProcess({}, t);
    const { client } = await p.connect({ era: '2026-07-28' });
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params.data));
    const set = await client.callTool({ name: 'SetCallback', arguments: { action: 'set', message: 'stand up', delay_seconds: 1, repeat_count: 2 } });
    assert.match(textOf(set), /Callback 0 set/);
    await clock.advance(3000);
    assert.deepEqual(logs, []);
    const next = await client.callTool({ name: 'TaskManager', arguments: { action: 'list' } });
    const content = next.content as { type: string; text: string }[];
    assert.equal(content[0]!.text, '[Callback] Timer fired: stand up\n[Callback] Timer fired: stand up');
    assert.deepEqual((next.structuredContent as { pincer_notices?: string[] }).pincer_notices, ['[Callback] Timer fired: stand up', '[Callback] Timer fired: stand up']);
    // The published output schema declares the notices, so a client validating structuredContent accepts them.
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'TaskManager')!;
    assert.deepEqual((listed.outputSchema?.properties as Record<string, unknown>).pincer_notices, { description: "Messages waiting for you, such as fired SetCallback reminders; the same text opens the result's content.", type: 'array', items: { type: 'string' } });
    const after = await client.callTool({ name: 'TaskManager', arguments: { action: 'list' } });
    assert.equal((after.structuredContent as { pincer_notices?: string[] }).pincer_notices, undefined, 'delivered once');
  });

  test('a client that set no callback never gets another client’s fires', async (t) => {
    const clock = fakeClock(t);
    const p = await inProcess({}, t);
    const setter = await p.connect();
    const other = await p.connect();
    await setter.client.callTool({ name: 'SetCallback', arguments: { action: 'set', message: 'mine', delay_seconds: 1 } });
    await clock.advance(1500);
    const otherResult = await other.client.callTool({ name: 'ListBgTasks', arguments: {} });
    assert.doesNotMatch(textOf(otherResult), /mine/);
    assert.match(textOf(await setter.client.callTool({ name: 'ListBgTasks', arguments: {} })), /^\[Callback\] Timer fired: mine\n/);
  });
});
