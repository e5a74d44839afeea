import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sleep, tempHome, waitFor } from './helpers/env.js';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { textOf } from './helpers/clients.js';

/**
 * SEP-2663's MRTR → task composition for a plugin tool with `deferTask`: it asks the client in multi
 * round-trips on the request, then `ctx.startTask()` answers the request with a task; what it asks after
 * that parks the task (tasks/update), and tasks/cancel reaches the handler's signal. A client without the
 * tasks extension gets the same tool as one synchronous call (the official v2 client fulfils the rounds).
 */

const TASKS = 'io.modelcontextprotocol/tasks';

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

type Json = Record<string, unknown>;

async function rpc(hub: HubProcess, method: string, params: Json, name: string): Promise<{ result?: Json; error?: { code: number; message: string } }> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'compose-test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, extensions: { [TASKS]: {} } },
  };
  const headers = hub.headers({ Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': method, 'Mcp-Name': name });
  const r = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta } }) });
  const text = await r.text();
  return JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as { result?: Json; error?: { code: number; message: string } };
}

const get = async (hub: HubProcess, taskId: string) => (await rpc(hub, 'tasks/get', { taskId }, taskId)).result!;

/** Round 1 asks where (no task yet); round 2, with the answer and the sealed state, answers with the task. */
async function startTrip(hub: HubProcess, args: Json): Promise<string> {
  const round1 = (await rpc(hub, 'tools/call', { name: 'plan_trip', arguments: args }, 'plan_trip')).result!;
  assert.equal(round1.resultType, 'input_required');
  assert.ok(!('taskId' in round1), 'no task before the round trips are done');
  assert.deepEqual(Object.keys(round1.inputRequests as Json), ['where']);
  const round2 = (await rpc(hub, 'tools/call', { name: 'plan_trip', arguments: args, inputResponses: { where: { action: 'accept', content: { city: 'Lisbon' } } }, requestState: round1.requestState }, 'plan_trip')).result!;
  assert.equal(round2.resultType, 'task', JSON.stringify(round2));
  assert.ok(!('requestState' in round2) && !('inputRequests' in round2));
  return String(round2.taskId);
}

test('a deferTask plugin tool: multi round-trip first, then a task that asks by tasks/update and can be cancelled; synchronous for a client without tasks', { timeout: 60_000 }, async () => {
  const h = tempHome();
  fs.mkdirSync(path.join(h.home, 'plugins'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(h.home, 'plugins', 'trips.mjs'), PLUGIN, { mode: 0o600 });
  // A call replies "still open" after ASK_REPLY_S; a task must not.
  const hub = await startHubProcess(h.home, { ASK_REPLY_S: '1' });
  const client = new Client({ name: 'no-tasks', version: '1' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    const taskId = await startTrip(hub, {});
    const parked = await waitFor(async () => {
      const t = await get(hub, taskId);
      return t.status === 'input_required' ? t : undefined;
    }, 'the task to ask when');
    assert.deepEqual(Object.keys(parked.inputRequests as Json), ['when']);
    await rpc(hub, 'tasks/update', { taskId, inputResponses: { when: { action: 'accept', content: { date: 'May 1' } } } }, taskId);
    const done = await waitFor(async () => {
      const t = await get(hub, taskId);
      return t.status === 'completed' ? t : undefined;
    }, 'the task to complete');
    assert.equal(textOf(done.result), 'Trip to Lisbon on May 1');

    // Cancel after the task started: the handler's signal fires, the task ends cancelled.
    const waiting = await startTrip(hub, { wait: true });
    assert.equal((await get(hub, waiting)).status, 'working');
    await rpc(hub, 'tasks/cancel', { taskId: waiting }, waiting);
    assert.equal((await get(hub, waiting)).status, 'cancelled');

    // A plugin's own question inside a task waits for the person (past ASK_REPLY_S), answered at the dashboard.
    const coffee = String((await rpc(hub, 'tools/call', { name: 'ask_person', arguments: {} }, 'ask_person')).result!.taskId);
    const question = await waitFor(async () => ((await (await fetch(`${hub.url}/api/questions`, { headers: hub.headers() })).json()) as { pending: { id: number }[] }).pending[0], 'the question on the dashboard');
    await sleep(1500);
    assert.equal((await get(hub, coffee)).status, 'working');
    await fetch(`${hub.url}/api/questions/${question.id}/answer`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ answers: [{ question: 'Coffee?', selected: 'yes' }] }) });
    const served = await waitFor(async () => {
      const t = await get(hub, coffee);
      return t.status === 'completed' ? t : undefined;
    }, 'the question task to complete');
    assert.equal(textOf(served.result), 'answered: yes');

    // Without the tasks extension: one call, both questions as rounds the official client fulfils itself.
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (req) => {
      asked.push(req.params.message);
      const content: Record<string, string> = req.params.message === 'Where to?' ? { city: 'Porto' } : { date: 'June 2' };
      return { action: 'accept' as const, content };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
    const sync = await client.callTool({ name: 'plan_trip', arguments: {} });
    assert.equal(textOf(sync), 'Trip to Porto on June 2');
    assert.deepEqual(asked, ['Where to?', 'When?']);
  } finally {
    await client.close().catch(() => undefined);
    await hub.stop();
    h.cleanup();
  }
});
