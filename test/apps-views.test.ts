import { test, describe, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { startHubProcess, stopHubOf, type HubProcess } from './helpers/hub.js';
import { tempHome, waitFor, ROOT, WAIT_MS } from './helpers/env.js';
import { connectV2, closeStdioClient, textOf } from './helpers/clients.js';
import { launchChromium, axeViolations, signIn, ARTIFACTS } from './helpers/browser.js';
import { startAppsHost, type AppsHost, type ShownView } from './helpers/apps-host.js';
import { pidAlive } from '../main/core/pid.js';

/**
 * Pincer's chat views as a chat app renders them (MCP Apps): in Chromium, in a sandbox proxy of another
 * origin, through ext-apps' own AppBridge, over a real MCP client of a real hub — on HTTP and through
 * `pincer stdio`, on both protocol generations. Each view renders from resources/read, gets the call's
 * input and result, follows the hub live, and its buttons reach the hub; no console error, and no request
 * leaves the page except through the bridge. The screenshots of the README come from here
 * (PINCER_DOC_SCREENSHOTS=1 writes them to docs/images/).
 */

const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
const DOCS = path.join(ROOT, 'docs', 'images');

type S = Record<string, unknown>;
const sc = (r: unknown): S => (r as { structuredContent: S }).structuredContent;

async function shot(host: AppsHost, view: ShownView, name: string): Promise<void> {
  const file = `view-${name}.png`;
  fs.mkdirSync(path.join(ARTIFACTS, 'apps'), { recursive: true });
  // The view reports its size after each render (on an animation frame: Chromium runs none in a frame out
  // of sight) and the host sizes its frame to it: wait until they agree.
  await host.page.locator(`#${view.id}`).scrollIntoViewIfNeeded();
  await waitFor(
    () => view.frame.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight + 1),
    `the ${name} view's frame to fit its content`,
  );
  await host.page.locator(`#${view.id}`).screenshot({ path: path.join(ARTIFACTS, 'apps', file) });
  if (process.env.PINCER_DOC_SCREENSHOTS === '1') {
    fs.mkdirSync(DOCS, { recursive: true });
    fs.copyFileSync(path.join(ARTIFACTS, 'apps', file), path.join(DOCS, file));
  }
}

/** Both themes of a view: the host switches its theme (host-context-changed) and the view follows. */
async function shotsAndAxe(host: AppsHost, view: ShownView, name: string): Promise<void> {
  assert.deepEqual(await axeViolations(view.frame), [], `${name} view, light: axe`);
  await shot(host, view, `${name}-light`);
  await host.theme(view, 'dark');
  await waitFor(() => view.frame.evaluate(() => document.documentElement.getAttribute('data-theme') === 'dark'), `the ${name} view to turn dark`);
  assert.deepEqual(await axeViolations(view.frame), [], `${name} view, dark: axe`);
  await shot(host, view, `${name}-dark`);
  await host.theme(view, 'light');
}

interface Combo {
  label: string;
  connect(hub: HubProcess): Promise<{ client: Client; close(): Promise<void> }>;
  shots?: boolean;
}

async function httpClient(hub: HubProcess, modern: boolean): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: 'apps-host', version: '1.0.0' }, { capabilities: APPS, ...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
  assert.equal(client.getNegotiatedProtocolVersion(), modern ? '2026-07-28' : '2025-11-25');
  return { client, close: () => client.close() };
}

async function bridgeClient(hub: HubProcess, modern: boolean): Promise<{ client: Client; close(): Promise<void> }> {
  const c = await connectV2({ home: hub.home, args: ['stdio'], modern, capabilities: APPS });
  assert.equal(c.client.getNegotiatedProtocolVersion(), modern ? '2026-07-28' : '2025-11-25');
  return { client: c.client, close: () => closeStdioClient(c) };
}

const COMBOS: Combo[] = [
  { label: 'HTTP 2025-11-25', connect: (hub) => httpClient(hub, false), shots: true },
  { label: 'HTTP 2026-07-28', connect: (hub) => httpClient(hub, true) },
  { label: 'pincer stdio 2025-11-25', connect: (hub) => bridgeClient(hub, false) },
  { label: 'pincer stdio 2026-07-28', connect: (hub) => bridgeClient(hub, true) },
];

async function dashboardQuestions(hub: HubProcess): Promise<{ pending: { id: number; questions: { question: string }[] }[]; history: { id: number; answer: { via?: string } | null }[] }> {
  const r = await fetch(`${hub.url}/api/questions`, { headers: hub.headers() });
  return (await r.json()) as never;
}

async function jobViews(t: TestContext, host: AppsHost, client: Client, hub: HubProcess, tag: string, shots: boolean): Promise<void> {
  await t.test('job view: BackgroundBash output live with its colours, the dashboard link, Kill', async () => {
    const command = `printf '\\033[32mready-${tag}\\033[0m\\n'; for i in 1 2 3; do echo line-${tag}-$i; sleep 0.3; done; sleep 60`;
    const view = await host.show('BackgroundBash', { command });
    const id = sc(await view.result).task_id as number;
    const output = view.frame.locator('pre.terminal');
    await output.filter({ hasText: `line-${tag}-3` }).waitFor({ timeout: WAIT_MS });
    assert.equal(await view.frame.locator('pre.terminal .ansi-green-fg', { hasText: `ready-${tag}` }).count(), 1, 'the colour is rendered, the escape codes are not shown');
    assert.doesNotMatch((await output.textContent()) ?? '', /\[32m/);
    await view.frame.locator('.badge', { hasText: 'running' }).waitFor();
    assert.match((await view.frame.locator('.facts').textContent()) ?? '', new RegExp(`Job#${id}`));
    await view.frame.getByRole('link', { name: `Open job #${id} on the Pincer dashboard` }).click();
    await waitFor(async () => (await host.opened()).includes(`${hub.url}/?job=${id}#jobs`), 'the host to be asked to open the job on the dashboard');
    if (shots) {
      // The link opens the same job on the dashboard: its card is brought forward and focused.
      const dashboard = await host.page.context().browser()!.newPage();
      try {
        await signIn(dashboard, hub.url, hub.token);
        await dashboard.goto(`${hub.url}/?job=${id}#jobs`);
        await waitFor(() => dashboard.evaluate((i) => document.activeElement?.id === `job-${i}`, id), 'the dashboard to bring the linked job forward');
      } finally {
        await dashboard.close();
      }
      await shotsAndAxe(host, view, 'job');
    }
    await view.frame.getByRole('button', { name: 'Kill' }).click();
    await view.frame.getByRole('group', { name: `Kill job ${id}?` }).getByRole('button', { name: 'Kill' }).click();
    await view.frame.locator('.badge', { hasText: 'killed' }).waitFor({ timeout: WAIT_MS });
    assert.ok(host.appCalls.some((c) => c.name === 'JobViewKill' && c.arguments.task_id === id), 'Kill went through the host to JobViewKill');
    const listed = sc(await client.callTool({ name: 'ListBgTasks', arguments: {} })).tasks as { task_id: number; status: string }[];
    assert.equal(listed.find((j) => j.task_id === id)?.status, 'killed', 'the hub killed the job');
  });

  await t.test('job view: a long Bash call shows its output while the call runs, then its end; no job is made', async () => {
    const command = `for i in 1 2 3 4 5 6; do echo tick-${tag}-$i; sleep 0.5; done`;
    const view = await host.show('Bash', { command });
    let answered = false;
    void view.result.then(() => (answered = true));
    await view.frame.locator('pre.terminal', { hasText: `tick-${tag}-2` }).waitFor({ timeout: WAIT_MS });
    assert.equal(answered, false, 'the output showed before the call answered');
    assert.ok(host.appCalls.some((c) => c.name === 'JobViewRead' && typeof c.arguments.run_id === 'number'), 'the view followed the call Pincer runs itself');
    const r = await view.result;
    assert.equal(r.isError, false, textOf(r));
    assert.match(textOf(r), new RegExp(`tick-${tag}-1\\n[^]*tick-${tag}-6$`), 'the model gets Bash’s own answer');
    await view.frame.locator('.badge', { hasText: 'exit 0' }).waitFor({ timeout: WAIT_MS });
    await view.frame.locator('pre.terminal', { hasText: `tick-${tag}-6` }).waitFor();
    const listed = sc(await client.callTool({ name: 'ListBgTasks', arguments: {} })).tasks as { command: string }[];
    assert.ok(!listed.some((j) => j.command === command), 'the call ran no job');
  });

  await t.test('job view: Kill stops a long Bash call from the chat, with every process it started', async () => {
    const pidFile = path.join(hub.home, `bash-child-${tag}`);
    const command = `sh -c 'echo $$ > ${pidFile}; exec sleep 60' & for i in $(seq 1 600); do echo wait-${tag}-$i; sleep 0.1; done`;
    const view = await host.show('Bash', { command, timeout: 120_000 });
    await view.frame.locator('pre.terminal', { hasText: `wait-${tag}-3` }).waitFor({ timeout: WAIT_MS });
    const child = Number(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim(), 'the command’s background child'));
    await view.frame.getByRole('button', { name: 'Kill' }).click();
    await view.frame.getByRole('group', { name: 'Kill the command?' }).getByRole('button', { name: 'Kill' }).click();
    const r = await view.result;
    assert.equal(r.isError, true);
    assert.match(textOf(r), /\[Command stopped from its view in the chat; it was killed with its child processes\.\]$/);
    assert.ok(host.appCalls.some((c) => c.name === 'JobViewKill' && typeof c.arguments.run_id === 'number'), 'Kill went through the host to JobViewKill');
    await view.frame.locator('.badge', { hasText: 'cancelled' }).waitFor({ timeout: WAIT_MS });
    await waitFor(() => !pidAlive(child), 'the command’s background child to be gone with its group');
  });

  await t.test('job view: a quick Bash call shows its result; no job is left behind', async () => {
    const command = `echo quick-${tag}`;
    const view = await host.show('Bash', { command });
    const r = await view.result;
    assert.equal(textOf(r), `quick-${tag}`);
    await view.frame.locator('.badge', { hasText: 'exit 0' }).waitFor();
    await view.frame.locator('pre.terminal', { hasText: `quick-${tag}` }).waitFor();
    const listed = sc(await client.callTool({ name: 'ListBgTasks', arguments: {} })).tasks as { command: string }[];
    assert.ok(!listed.some((j) => j.command === command), 'the quick call ran no job');
  });
}

async function questionViews(t: TestContext, host: AppsHost, hub: HubProcess, tag: string, shots: boolean): Promise<void> {
  await t.test('question view: the form in the chat answers the waiting AskUserQuestion call', async () => {
    const questions = [
      { question: `Deploy ${tag} now?`, header: 'Deploy', options: [{ label: 'yes', description: 'ship it today' }, { label: 'no' }], multiSelect: false },
      { question: `Which checks for ${tag}?`, options: [{ label: 'lint' }, { label: 'unit' }, { label: 'e2e' }], multiSelect: true },
    ];
    const view = await host.show('AskUserQuestion', { questions_json: JSON.stringify(questions) });
    const form = view.frame.locator('form');
    await form.waitFor({ timeout: WAIT_MS });
    if (shots) await shotsAndAxe(host, view, 'question');
    // Sending nothing is refused in the form itself, with the reason beside the question.
    await view.frame.getByRole('button', { name: 'Send answer' }).click();
    assert.equal(await view.frame.getByText('Choose an option or write an answer.').count(), 2);
    await view.frame.getByRole('radio', { name: /^yes/ }).check();
    await view.frame.getByRole('checkbox', { name: 'lint' }).check();
    await view.frame.getByRole('checkbox', { name: 'e2e' }).check();
    await view.frame.getByRole('group', { name: new RegExp(`Which checks for ${tag}`) }).getByLabel('Your own answer (optional)').fill('and a smoke run');
    await view.frame.getByRole('button', { name: 'Send answer' }).click();
    const r = await view.result;
    assert.ok(!r.isError, textOf(r));
    assert.equal(textOf(r), `The person answered:\n- Deploy ${tag} now?\n  → yes\n- Which checks for ${tag}?\n  → lint, e2e\n  → other: and a smoke run`);
    await view.frame.getByText('Answered here').waitFor();
    const id = sc(r).question_id as number;
    const stored = (await dashboardQuestions(hub)).history.find((q) => q.id === id);
    assert.equal(stored?.answer?.via, 'chat', 'the hub records where the answer came from');
    assert.ok(host.appCalls.some((c) => c.name === 'QuestionViewAnswer' && c.arguments.question_id === id));
  });

  await t.test('question view: a question answered in the dashboard shows as answered', async () => {
    const text = `Answer ${tag} elsewhere?`;
    const view = await host.show('AskUserQuestion', { questions_json: JSON.stringify({ questions: [{ text, options: ['left', 'right'] }] }) });
    await view.frame.locator('form').waitFor({ timeout: WAIT_MS });
    const pending = await waitFor(async () => (await dashboardQuestions(hub)).pending.find((q) => q.questions.some((x) => x.question === text)), 'the question to be pending');
    const answered = await fetch(`${hub.url}/api/questions/${pending.id}/answer`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ answers: [{ question: text, selected: 'right' }] }) });
    assert.equal(answered.status, 200);
    await view.frame.getByText('Answered in the Pincer dashboard').waitFor({ timeout: WAIT_MS });
    assert.equal(await view.frame.locator('form').count(), 0, 'no form is left to answer');
    assert.match(textOf(await view.result), /→ right/);
  });
}

async function questionError(t: TestContext, host: AppsHost): Promise<void> {
  await t.test('question view: a question that could not be put says why', async () => {
    const view = await host.show('AskUserQuestion', { questions_json: 'not json' });
    assert.equal((await view.result).isError, true);
    await view.frame.getByRole('alert').filter({ hasText: 'questions_json is not valid JSON' }).waitFor({ timeout: WAIT_MS });
    await view.frame.getByText('The question could not be put.').waitFor();
  });
}

async function taskViews(t: TestContext, host: AppsHost, client: Client, tag: string, shots: boolean): Promise<void> {
  await t.test('task view: the task with its steps; a step completed from the chat', async () => {
    const created = sc(await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: `Release ${tag}` } }));
    const taskId = (created.task as { id: number }).id;
    await client.callTool({ name: 'TaskManager', arguments: { action: 'add', text: `write notes ${tag}` } });
    await client.callTool({ name: 'TaskManager', arguments: { action: 'add', text: `tag the build ${tag}` } });
    const view = await host.show('TaskManager', { action: 'pending' });
    await view.result;
    const step = view.frame.getByRole('checkbox', { name: `write notes ${tag}` });
    await step.waitFor({ timeout: WAIT_MS });
    assert.equal(await view.frame.getByRole('heading', { level: 1 }).textContent(), `Release ${tag}`);
    if (shots) await shotsAndAxe(host, view, 'task');
    await step.click();
    await view.frame.getByRole('progressbar', { name: `Release ${tag}: 1 of 2 steps done` }).waitFor({ timeout: WAIT_MS });
    const listed = sc(await client.callTool({ name: 'TaskManager', arguments: { action: 'list', task_id: taskId } })).tasks as { id: number; steps: { text: string; done: boolean }[] }[];
    assert.deepEqual(listed.find((x) => x.id === taskId)?.steps.map((s) => s.done), [true, false], 'the hub completed the step');
    // The model ticks the other one: the view follows without being asked.
    const second = listed.find((x) => x.id === taskId)!.steps[1]!;
    assert.equal(second.text, `tag the build ${tag}`);
    await client.callTool({ name: 'TaskManager', arguments: { action: 'complete', task_id: taskId, step_id: (sc(await client.callTool({ name: 'TaskManager', arguments: { action: 'pending' } })).task as { steps: { id: number; done: boolean }[] }).steps.find((s) => !s.done)!.id } });
    await view.frame.getByRole('progressbar', { name: `Release ${tag}: 2 of 2 steps done` }).waitFor({ timeout: WAIT_MS });
  });

  await t.test('task view: PlanMode shows the plan rendered', async () => {
    const file = path.join(ARTIFACTS, `plan-${tag}.md`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(file, `# Ship ${tag}\n\n1. Write the notes\n2. Tag the build\n\n<script>alert(1)</script>\n`);
    await client.callTool({ name: 'PlanMode', arguments: { action: 'enter', goal: `ship ${tag}` } });
    await client.callTool({ name: 'PlanMode', arguments: { action: 'exit', plan_file: file } });
    const view = await host.show('PlanMode', { action: 'status' });
    await view.result;
    await view.frame.getByRole('heading', { name: `Ship ${tag}` }).waitFor({ timeout: WAIT_MS });
    assert.equal(await view.frame.locator('.markdown ol li').count(), 2);
    assert.equal(await view.frame.locator('.markdown script').count(), 0, 'HTML in the plan stays text');
    if (shots) await shotsAndAxe(host, view, 'plan');
  });
}

describe('chat views (MCP Apps) in Chromium, through ext-apps AppBridge', { timeout: 600_000 }, () => {
  const h = tempHome();
  let hub: HubProcess;
  let browser: { browser: Browser; close(): Promise<void> };
  before(async () => {
    hub = await startHubProcess(h.home);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await hub?.stop();
    await stopHubOf(h.home);
    h.cleanup();
  });

  for (const combo of COMBOS) {
    test(combo.label, async (t) => {
      const { client, close } = await combo.connect(hub);
      const host = await startAppsHost(browser.browser, client);
      const tag = combo.label.replace(/[^a-z0-9]+/gi, '-');
      try {
        await jobViews(t, host, client, hub, tag, combo.shots === true);
        await questionViews(t, host, hub, tag, combo.shots === true);
        await questionError(t, host);
        await taskViews(t, host, client, tag, combo.shots === true);
        assert.deepEqual(host.problems, [], 'no console error, page error or CSP violation');
        const strays = host.requests.filter((u) => !host.origins.some((o) => u.startsWith(`${o}/`)));
        assert.deepEqual(strays, [], 'nothing left the page but through the bridge');
        assert.ok(host.requests.length > 0);
      } finally {
        await host.close();
        await close();
      }
    });
  }
});
