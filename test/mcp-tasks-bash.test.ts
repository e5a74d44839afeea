import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { tempHome, waitFor } from './helpers/env.js';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { rpc, tasksClient } from './helpers/tasks-client.js';
import { chromiumProblem, findChromium } from './helpers/browser.js';
import { skipUnless } from './helpers/prerequisites.js';

type Task = { taskId: string; status: string; result?: { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean }; error?: { code: number; message: string } };

const get = async (hub: HubProcess, taskId: string): Promise<Task> => {
  const r = await rpc(hub, 'tasks/get', { taskId });
  assert.ok(r.result, `tasks/get ${taskId}: ${JSON.stringify(r.error)}`);
  return r.result as unknown as Task;
};
const settled = (hub: HubProcess, taskId: string) =>
  waitFor(async () => {
    const t = await get(hub, taskId);
    return t.status === 'working' ? undefined : t;
  }, `task ${taskId} to end`);

type McpTaskView = { id: string; status: string; tool: string; job: number | null };
const dashboardTasks = async (hub: HubProcess): Promise<McpTaskView[]> => ((await (await fetch(`${hub.url}/api/mcp-tasks`, { headers: hub.headers() })).json()) as { tasks: McpTaskView[] }).tasks;
const jobOfTask = async (hub: HubProcess, taskId: string): Promise<number> => {
  const job = (await dashboardTasks(hub)).find((t) => t.id === taskId)?.job;
  assert.equal(typeof job, 'number', `the dashboard links task ${taskId} to its job`);
  return job!;
};
const jobsOf = async (hub: HubProcess): Promise<{ id: number; status: string }[]> => ((await (await fetch(`${hub.url}/api/jobs`, { headers: hub.headers() })).json()) as { jobs: { id: number; status: string }[] }).jobs;

/** A Bash call of the extension's client that the hub answered with a task: its id. */
async function bashTask(session: Awaited<ReturnType<typeof tasksClient>>['session'], args: Record<string, string | number>): Promise<string> {
  const execution = await session.callTool('Bash', args);
  assert.equal(execution.kind, 'task', `Bash ${JSON.stringify(args)} past BASH_TASK_AFTER_MS is answered with a task`);
  // The test follows it by id: released, so that closing the session does not cancel it (the library's close does).
  await execution.handoff(() => undefined);
  return (execution as unknown as { handle: { taskId: string } }).handle.taskId;
}

test('Bash past BASH_TASK_AFTER_MS is a task whose job outlives a hub restart: completed with its output by the next hub, failed with a clear error when the job was lost, and Bash’s timeout still holds', async () => {
  const h = tempHome();
  const env = { BASH_TASK_AFTER_MS: '800' };
  let hub = await startHubProcess(h.home, env);
  try {
    let tc = await tasksClient(hub);
    // The extension's client hands the task off (persists its reference) before the hub goes away.
    const execution = await tc.session.callTool('Bash', { command: 'sleep 4; echo survived; cd /tmp', timeout: 60_000 });
    assert.equal(execution.kind, 'task');
    const survives = (execution as unknown as { handle: { taskId: string } }).handle.taskId;
    let reference: Parameters<typeof tc.session.resumeTask>[0] | undefined;
    await execution.handoff((r) => {
      reference = r;
    });
    const lost = await bashTask(tc.session, { command: 'sleep 120', timeout: 600_000 });
    const timedOut = await bashTask(tc.session, { command: 'echo started; sleep 30', timeout: 2500 });
    assert.equal((await get(hub, survives)).status, 'working');
    const lostJob = await jobOfTask(hub, lost);
    await tc.close();
    await hub.stop();

    // While no hub runs, the lost task's job dies without recording an exit (its supervisor and shell killed).
    const run = JSON.parse(fs.readFileSync(path.join(h.home, 'jobs', `${lostJob}.run`), 'utf8')) as { supervisorPid: number };
    process.kill(-run.supervisorPid, 'SIGKILL');

    hub = await startHubProcess(h.home, env);
    // ...and resumes it on the next hub, which completes it from the job's files with Bash's result.
    tc = await tasksClient(hub);
    const resumed = resultFromTaskOutcome((await (await tc.session.resumeTask(reference!)).settle()).outcome) as { content: { text: string }[]; structuredContent: Record<string, unknown> };
    assert.equal(resumed.content[0]?.text, 'survived\n[Now in /tmp]');
    assert.equal(resumed.structuredContent.exit_code, 0);
    assert.equal(resumed.structuredContent.shell, 'bash on Linux');
    assert.equal((await get(hub, survives)).status, 'completed');
    const failed = await settled(hub, lost);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error!.message, new RegExp(`Background job ${lostJob}, which ran this task's command, was lost .*run the command again`));
    // The supervisor kept the call's timeout while no hub ran: Bash's own words and fields.
    const stopped = await settled(hub, timedOut);
    assert.equal(stopped.status, 'completed');
    assert.equal(stopped.result?.content[0]?.text, 'started\n[Command timed out after 2.5 s and was killed with its child processes. Raise timeout (max 600000 ms) or use BackgroundBash.]');
    assert.deepEqual([stopped.result?.structuredContent?.timed_out, stopped.result?.structuredContent?.exit_code, stopped.result?.isError], [true, null, true]);

    await tc.close();
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a Bash task cancelled with tasks/cancel stops its job; a command that ends in time is answered as Bash always does, leaving no job; a client without the extension gets today’s Bash', async () => {
  const h = tempHome();
  // In the settings file (the environment would override the dashboard's change below).
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), 'BASH_TASK_AFTER_MS=1000\n', { mode: 0o600 });
  const hub = await startHubProcess(h.home);
  try {
    const tc = await tasksClient(hub);
    const id = await bashTask(tc.session, { command: 'sleep 60', timeout: 120_000 });
    const job = await jobOfTask(hub, id);
    const ack = await rpc(hub, 'tasks/cancel', { taskId: id });
    assert.equal(ack.result?.resultType, 'complete');
    assert.equal((await get(hub, id)).status, 'cancelled');
    await waitFor(async () => (await jobsOf(hub)).find((j) => j.id === job && j.status.startsWith('killed')), `job ${job} to be stopped by the cancel`);

    // Ended within the threshold: Bash's own answer, its `cd` carried to the next call, and no job left behind. The
    // threshold goes up first: a loaded machine may take over a second to start the job's supervisor at all.
    const raised = await fetch(`${hub.url}/api/settings/key`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ key: 'BASH_TASK_AFTER_MS', value: '600000' }) });
    assert.equal(raised.status, 200, await raised.text());
    const before = (await jobsOf(hub)).length;
    const quick = await tc.session.callTool('Bash', { command: 'echo quick; cd /tmp' });
    assert.equal(quick.kind, 'immediate');
    const result = resultFromTaskOutcome((await quick.settle()).outcome) as { content: { text: string }[]; structuredContent: Record<string, unknown> };
    assert.equal(result.content[0]?.text, 'quick\n[Now in /tmp]');
    assert.equal(result.structuredContent.cwd_after, '/tmp');
    const failing = resultFromTaskOutcome((await (await tc.session.callTool('Bash', { command: 'pwd; exit 3' })).settle()).outcome) as { content: { text: string }[]; isError: boolean };
    assert.deepEqual([failing.content[0]?.text, failing.isError], ['/tmp\n[Exit code 3]', false]);
    assert.equal((await jobsOf(hub)).length, before, 'a Bash call that ended in time leaves no background job');
    await tc.close();

    // A 2026-07-28 client without the extension: Bash runs the command itself, however long it takes.
    const plain = new Client({ name: 'plain', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await plain.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: hub.headers() } }));
    const r = (await plain.callTool({ name: 'Bash', arguments: { command: 'sleep 1.5; echo plain' } })) as { content: { text: string }[]; structuredContent: Record<string, unknown> };
    assert.equal(r.content[0]?.text, 'plain');
    assert.equal((await jobsOf(hub)).length, before, 'no job for a client that cannot follow a task');
    await plain.close();
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('ReadDocs is a task only when a browser renders the page: an HTML page its script finishes, with Chromium, is; a complete article, a plain-text page, or HTML without a browser, is answered directly', { skip: skipUnless(chromiumProblem()) }, async () => {
  const server = http.createServer((req, res) => {
    if (req.url === '/notes.txt') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('Plain notes, nothing to render.');
      return;
    }
    if (req.url === '/article.html') {
      const paragraphs = Array.from({ length: 8 }, (_, i) => `<p>Paragraph ${i + 1} of the article says what the server sent, whole, in plain sentences a reader can follow.</p>`).join('');
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><html><head><title>Article</title></head><body><article><h1>Article</h1>${paragraphs}</article><script>console.log('analytics');</script></body></html>`);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><html><head><title>Guide</title></head><body><main><h1>Guide</h1><p id="p">Written by the server.</p><script>document.getElementById("p").textContent += " Finished by a script.";</script></main></body></html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const h = tempHome();
  let hub = await startHubProcess(h.home, { BROWSER_PATH: findChromium()! });
  try {
    let tc = await tasksClient(hub);
    const rendering = await tc.session.callTool('ReadDocs', { url: `${base}/guide.html` });
    assert.equal(rendering.kind, 'task', 'a page the browser renders is a task');
    const page = resultFromTaskOutcome((await rendering.settle()).outcome) as { content: { text: string }[]; structuredContent: Record<string, unknown> };
    assert.equal(page.structuredContent.extracted_from, 'rendered');
    assert.match(page.content[0]!.text, /Finished by a script/);
    const article = await tc.session.callTool('ReadDocs', { url: `${base}/article.html` });
    assert.equal(article.kind, 'immediate', 'a complete article is not rendered, and answered directly');
    const answered = resultFromTaskOutcome((await article.settle()).outcome) as { structuredContent: Record<string, unknown> };
    assert.equal((answered.structuredContent.render as { ran: boolean }).ran, false);
    const text = await tc.session.callTool('ReadDocs', { url: `${base}/notes.txt` });
    assert.equal(text.kind, 'immediate', 'a page that is only fetched is answered directly');
    assert.match((resultFromTaskOutcome((await text.settle()).outcome) as { content: { text: string }[] }).content[0]!.text, /Plain notes/);
    await tc.close();
    await hub.stop();

    hub = await startHubProcess(h.home, { BROWSER_PATH: 'off' });
    tc = await tasksClient(hub);
    const fetched = await tc.session.callTool('ReadDocs', { url: `${base}/guide.html` });
    assert.equal(fetched.kind, 'immediate', 'without a browser the HTML page is only fetched, and answered directly');
    assert.equal((resultFromTaskOutcome((await fetched.settle()).outcome) as { structuredContent: Record<string, unknown> }).structuredContent.extracted_from, 'fetched');
    await tc.close();
  } finally {
    await hub.stop();
    h.cleanup();
    server.close();
  }
});

test('task status notifications: subscriptions/listen with taskIds streams notifications/tasks (the full task, as tasks/get shows it) to the SDK client; a client without the extension is refused with -32021', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { BASH_TASK_AFTER_MS: '500' });
  try {
    const tc = await tasksClient(hub);
    const seen: { method: string; params: Task & { _meta?: Record<string, unknown> } }[] = [];
    // The extension's session keeps its own handler (it follows notifications too); the test looks on.
    const theirs = tc.client.fallbackNotificationHandler;
    tc.client.fallbackNotificationHandler = async (n) => {
      seen.push(n as unknown as (typeof seen)[number]);
      await theirs?.(n);
    };
    const gate = path.join(h.home, 'gate');
    const taskId = await bashTask(tc.session, { command: `while [ ! -e ${gate} ]; do sleep 0.05; done; echo notified`, timeout: 60_000 });
    const subscription = await tc.client.listen({ taskIds: [taskId, 'no-such-task'], toolsListChanged: true } as Parameters<typeof tc.client.listen>[0]);
    await waitFor(() => seen.some((n) => n.method === 'notifications/tasks'), 'the task as the listen found it');
    fs.writeFileSync(gate, '');
    const done = await waitFor(() => seen.find((n) => n.method === 'notifications/tasks' && n.params.status === 'completed'), 'notifications/tasks saying the task completed');
    assert.equal(done.params.taskId, taskId);
    assert.equal(done.params.result?.content[0]?.text, 'notified');
    assert.ok(done.params._meta?.['io.modelcontextprotocol/subscriptionId'] !== undefined, 'stamped with the subscription it belongs to');
    assert.equal(seen.filter((n) => n.method === 'notifications/tasks')[0]?.params.status, 'working', 'the task as it was when the listen opened comes first');
    assert.ok(seen.every((n) => n.params.taskId === undefined || n.params.taskId === taskId), 'an unknown task id is not listened to');
    await subscription.close();
    await tc.close();

    const refused = await rpc(hub, 'subscriptions/listen', { notifications: { taskIds: [taskId] } }, { tasks: false });
    assert.equal(refused.error?.code, -32021);
    assert.deepEqual((refused.error?.data as { requiredCapabilities: unknown }).requiredCapabilities, { extensions: { 'io.modelcontextprotocol/tasks': {} } });
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
