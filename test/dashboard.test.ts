import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { tempHome, waitFor, quietFor } from './helpers/env.js';
import { textOf } from './helpers/clients.js';
import { launchChromium, watchProblems, signInLink, shot } from './helpers/browser.js';
import { rpc, tasksClient, TASKS } from './helpers/tasks-client.js';

const SETTINGS = `# Pincer settings for the dashboard test
# (this comment must survive an edit)
STREAMING=true   # stream Bash output

BASH_TIMEOUT_MS=30000
BASH_TIMEOUT=5
`;

describe('the dashboard in Chromium against a real hub', () => {
  const h = tempHome();
  let hub: HubProcess;
  let chromium: { browser: Browser; close(): Promise<void> };
  let page: Page;
  let client: Client;
  let problems: string[];

  let loads = 0;
  // A fresh document each time (the query string differs), as when a person opens the page.
  const go = async (id: string) => {
    await page.goto(`${hub.url}/?load=${++loads}#/${id}`);
    await page.locator('main h1').filter({ hasText: new RegExp(`^${id}$`, 'i') }).waitFor();
  };

  before(async () => {
    fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), SETTINGS);
    hub = await startHubProcess(h.home);
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
    problems = watchProblems(page).problems;
    client = new Client({ name: 'dashboard-test-client', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
  });
  after(async () => {
    await client?.close();
    await chromium?.close();
    await hub?.stop();
    h.cleanup();
  });

  test('signing in with a one-time link (never the token); a made-up or used link is refused, saying how to sign in', async () => {
    await page.goto(hub.url);
    await page.locator('#signin-help', { hasText: 'pincer dashboard' }).waitFor();
    await shot(page, 'dashboard-login');
    const link = await signInLink(hub.url, hub.token);
    await page.goto(`${new URL(link).origin}/#signin=AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    await page.locator('#session-ended', { hasText: /used already, is older than 2 minutes.*pincer dashboard/ }).waitFor();
    // The refused code is the one console line Chromium writes for a 401 the test provoked on purpose.
    assert.deepEqual(problems.splice(0), ['console: Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
    await page.goto(link);
    await page.locator('main h1', { hasText: 'Overview' }).waitFor();
    await page.getByRole('cell', { name: 'dashboard-test-client' }).waitFor();
    // The counters link to their pages.
    assert.equal(await page.getByRole('link', { name: /Running jobs/ }).getAttribute('href'), '#/jobs');
    assert.equal(await page.getByRole('link', { name: /Waiting questions/ }).getAttribute('href'), '#/questions');
    assert.equal(await page.getByRole('link', { name: /Active callbacks/ }).getAttribute('href'), '#/callbacks');
  });

  test('switching a tool off in Tools removes it from the connected client, and keyboard focus stays on the switch', async () => {
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
    await go('tools');
    const sw = page.locator('[data-tool="WebSearch"] input[role="switch"]');
    await sw.focus();
    await page.keyboard.press('Space');
    await waitFor(() => changed > 0, 'tools/list_changed at the client');
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes('WebSearch'));
    assert.ok(names.includes('Bash'));
    assert.match(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'), /^TOOL_WEBSEARCH=false$/m);
    // The hub's tools_changed event redraws the page; the focused switch is the same element, now off.
    await waitFor(async () => (await sw.isChecked()) === false, 'the switch to show off');
    await quietFor(400, 'the focus leaving the switch as the page redraws');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'WebSearch enabled');
  });

  test('focus, caret and half-typed text survive live updates (Activity search while calls arrive)', async () => {
    await go('activity');
    const search = page.locator('#activity-search');
    await search.click();
    await page.keyboard.type('half-typ');
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'Bash', arguments: { command: `echo live-${i}` } });
    await page.locator('[data-call]').filter({ hasText: 'echo live-2' }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'activity-search');
    assert.equal(await search.inputValue(), 'half-typ');
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).selectionStart), 'half-typ'.length);
  });

  test('Activity: filters by tool and a detail view with pretty-printed arguments and result', async () => {
    await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: 'Filtered task' } });
    await go('activity');
    await page.locator('[data-call]').filter({ hasText: 'TaskManager' }).first().waitFor();
    await page.locator('#activity-tool').selectOption('Bash');
    await waitFor(async () => (await page.locator('[data-call]').filter({ hasText: 'TaskManager' }).count()) === 0, 'the tool filter');
    assert.equal(await page.locator('[data-call]').filter({ hasText: 'echo live-' }).count(), 3);
    assert.equal(await page.locator('[data-call]').filter({ hasText: 'arriving' }).count(), 0);
    await page.locator('[data-call]').filter({ hasText: 'echo live-1' }).getByRole('button').click();
    const detail = page.locator('.detail');
    await detail.getByText('Arguments').waitFor();
    assert.match((await detail.locator('pre').first().textContent()) ?? '', /\{\n {2}"command": "echo live-1"/);
    assert.match((await detail.locator('pre').nth(1).textContent()) ?? '', /live-1/);
    // A selection in the detail view and the scroll position survive new calls arriving.
    await page.setViewportSize({ width: 1280, height: 500 });
    await page.evaluate(() => {
      const pre = document.querySelector('.detail pre')!;
      const range = document.createRange();
      range.selectNodeContents(pre);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
      window.scrollTo(0, 120);
    });
    const selected = await page.evaluate(() => getSelection()!.toString());
    assert.match(selected, /echo live-1/);
    const top = () => page.evaluate(() => Math.round(document.querySelector('.detail pre')!.getBoundingClientRect().top));
    const before = await top();
    await client.callTool({ name: 'Bash', arguments: { command: 'echo arriving-while-selected' } });
    await page.locator('[data-call]').filter({ hasText: 'arriving-while-selected' }).waitFor();
    assert.equal(await page.evaluate(() => getSelection()!.toString()), selected);
    // The detail opens under its row, and a call arriving above it does not move what the person reads.
    assert.equal(await top(), before);
    await page.setViewportSize({ width: 1280, height: 800 });
    await shot(page, 'dashboard-activity-detail');
  });

  test("answering a pending question completes the client's waiting AskUserQuestion", async () => {
    const call = client.callTool(
      { name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify([{ question: 'Which colour?', header: 'Theme', options: [{ label: 'Red' }, { label: 'Blue', description: 'calm' }], multiSelect: false }]) } },
      { resetTimeoutOnProgress: true, onprogress: () => undefined },
    );
    await go('questions');
    const form = page.locator('form[data-question]');
    await form.waitFor();
    await form.getByText(/left to answer/).waitFor();
    await form.getByLabel('Blue').check();
    await form.getByLabel('Your own answer to: Which colour?').fill('navy, ideally');
    await shot(page, 'dashboard-questions');
    await form.getByRole('button', { name: 'Send answer' }).click();
    const r = await call;
    assert.deepEqual((r.structuredContent as { answers: unknown }).answers, [{ question: 'Which colour?', selected: 'Blue', other: 'navy, ideally' }]);
    assert.match(textOf(r), /→ Blue/);
    await page.getByText('No questions waiting').waitFor();
    await page.locator('.history').getByText('Which colour? → Blue — “navy, ideally”').waitFor();
  });

  test('Settings: typed controls write the file with comments intact; errors stay beside the field; typos get a "did you mean"', async () => {
    await go('settings');
    await page.getByText('BASH_TIMEOUT is not a Pincer setting').waitFor();
    await page.locator('li', { hasText: 'BASH_TIMEOUT is not a Pincer setting' }).getByText('BASH_TIMEOUT_MS').waitFor();
    // The token is masked in the field and in the text editor.
    assert.equal(await page.locator('#setting-AUTH_TOKEN').getAttribute('type'), 'password');
    assert.ok(!(await page.locator('#settings-file').inputValue()).includes(hub.token), 'the editor shows the token');
    const input = page.locator('input[data-key="BASH_TIMEOUT_MS"]');
    assert.equal(await input.getAttribute('type'), 'number');
    await page.locator('[data-setting="BASH_TIMEOUT_MS"] .unit').getByText('ms').waitFor();
    await input.fill('45000');
    await input.press('Enter');
    await waitFor(() => /^BASH_TIMEOUT_MS=45000$/m.test(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8')), 'the file to be rewritten');
    const text = fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8');
    assert.ok(text.startsWith('# Pincer settings for the dashboard test\n# (this comment must survive an edit)\nSTREAMING=true   # stream Bash output\n\nBASH_TIMEOUT_MS=45000\n'), text);
    // A switch for a boolean.
    await page.locator('#setting-STREAMING').uncheck();
    await waitFor(() => /^STREAMING=false   # stream Bash output$/m.test(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8')), 'STREAMING=false');
    // A bad value: the error sits beside the field (not a toast) and stays.
    await input.fill('5');
    await input.press('Enter');
    const err = page.locator('[data-setting="BASH_TIMEOUT_MS"] .problem');
    await err.getByText('must be at least 100').waitFor();
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    assert.deepEqual(problems.splice(0), ['console: Failed to load resource: the server responded with a status of 400 (Bad Request)'], 'only the refused value');
    await quietFor(3000, 'the error going away by itself');
    assert.ok(await err.isVisible(), 'the error is still shown');
    // Saving the editor text keeps the real token behind the mask.
    await page.locator('#save-settings').click();
    await page.getByRole('status').getByText('Settings saved and applied').waitFor();
    assert.equal(/^AUTH_TOKEN=(.*)$/m.exec(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'))![1], hub.token);
    // A bad line in the editor is refused with its line number, and nothing is saved.
    const now = fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8');
    await page.locator('#settings-file').fill((await page.locator('#settings-file').inputValue()) + 'this is not a setting\n');
    await page.locator('#save-settings').click();
    await page.getByText(/^line \d+: not KEY=VALUE: "this is not a setting"$/).waitFor();
    await page.getByText('Nothing was saved: 1 line needs fixing.').waitFor();
    assert.equal(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'), now);
    assert.deepEqual(problems.splice(0), ['console: Failed to load resource: the server responded with a status of 400 (Bad Request)'], 'only the refused file');
    await shot(page, 'dashboard-settings');
  });

  test("a job's output appears live; Kill asks first", async () => {
    await go('jobs');
    const started = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'for i in 1 2 3; do echo "tick-$i"; sleep 0.7; done; sleep 30' } });
    const id = (started.structuredContent as { task_id: number }).task_id;
    const out = page.locator(`pre[data-job-output="${id}"]`);
    await out.waitFor();
    assert.equal(await out.getAttribute('aria-live'), null, 'output is not a live region');
    await waitFor(async () => (await out.textContent())?.includes('tick-1'), 'the first line');
    await waitFor(async () => (await out.textContent())?.includes('tick-3'), 'later lines, without a reload');
    const card = page.locator(`section[data-job="${id}"]`);
    await card.getByText('Folder').waitFor();
    await card.getByText('dashboard-test-client').waitFor();
    await shot(page, 'dashboard-jobs');
    await card.getByRole('button', { name: 'Kill' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`Kill job #${id}?`).waitFor();
    await dialog.getByRole('button', { name: 'Keep' }).click();
    await quietFor(300, 'the job killed although the dialog was answered Keep');
    await card.getByText('running', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Kill' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Kill' }).click();
    await card.getByText('killed').waitFor();
  });

  test('an MCP task whose work is a job shows in the MCP tasks panel, linked to its job card', async () => {
    await go('jobs');
    const tc = await tasksClient(hub);
    try {
      // Still running after BASH_TASK_AFTER_MS (10 s by default): the call becomes a task run by a job.
      const execution = await tc.session.callTool('Bash', { command: 'echo from-a-task; sleep 60', timeout: 120_000 });
      assert.equal(execution.kind, 'task');
      const taskId = (execution as unknown as { handle: { taskId: string } }).handle.taskId;
      const link = page.locator(`li[data-task="${taskId}"] button[data-task-job]`);
      await link.waitFor();
      const job = Number(await link.getAttribute('data-task-job'));
      assert.equal(await link.textContent(), `job #${job}`);
      await link.click();
      await waitFor(async () => (await page.evaluate(() => document.activeElement?.id)) === `job-${job}`, 'focus on the job card');
      await waitFor(async () => (await page.locator(`pre[data-job-output="${job}"]`).textContent())?.includes('from-a-task'), "the job's output on its card");
      await shot(page, 'dashboard-mcp-task-job');
      assert.equal((await rpc(hub, 'tasks/cancel', { taskId })).result?.resultType, 'complete');
      await page.locator(`section[data-job="${job}"]`).getByText('killed').waitFor();
    } finally {
      await tc.close();
    }
  });

  test('a question task in the MCP tasks panel says the person can answer it (its message), not that the client owes the answer', async () => {
    await go('jobs');
    // A client of the extension that can show forms: the task waits input_required with the form (waiting_for ['ask']).
    const questions = JSON.stringify([{ question: 'Panel question?', options: [{ label: 'Yes' }, { label: 'No' }] }]);
    const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, extensions: { [TASKS]: {} } } };
    const created = await rpc(hub, 'tools/call', { name: 'AskUserQuestion', arguments: { questions_json: questions }, _meta: caps });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const taskId = String(created.result!.taskId);
    try {
      const row = page.locator(`li[data-task="${taskId}"]`);
      await row.getByText('input_required', { exact: true }).waitFor();
      await row.locator('div.muted', { hasText: /^Waiting for the person to answer question \d+ in the client or the Pincer dashboard\.$/ }).waitFor();
      assert.doesNotMatch((await row.textContent()) ?? '', /waiting for the client/);
    } finally {
      assert.equal((await rpc(hub, 'tasks/cancel', { taskId })).result?.resultType, 'complete');
    }
  });

  test('Tasks show real progress bars and the plan as markdown without raw HTML', async () => {
    await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: 'Five steps' } });
    const ids: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const r = await client.callTool({ name: 'TaskManager', arguments: { action: 'add', text: `step ${i}` } });
      ids.push((r.structuredContent as { task: { steps: { id: number }[] } }).task.steps.at(-1)!.id);
    }
    for (const step_id of ids.slice(0, 2)) await client.callTool({ name: 'TaskManager', arguments: { action: 'complete', step_id } });
    const planFile = path.join(h.home, 'plan.md');
    fs.writeFileSync(planFile, '## Steps\n\n1. **Build** it\n2. Test it\n\n<img src=x onerror="document.title=\'pwned\'">\n');
    await client.callTool({ name: 'PlanMode', arguments: { action: 'enter', goal: 'Ship the dashboard' } });
    const exited = await client.callTool({ name: 'PlanMode', arguments: { action: 'exit', plan_file: planFile } });
    assert.ok(!exited.isError, textOf(exited));
    await go('todos');
    const task = page.locator('section[data-task]', { hasText: 'Five steps' });
    await task.waitFor();
    const progress = task.locator('progress');
    await task.getByText('2/5 done').waitFor();
    // A real <progress> at 2 of 5, not a bar that an inline style (blocked by the CSP) leaves full.
    assert.equal(await progress.evaluate((p: HTMLProgressElement) => p.position), 0.4);
    await page.locator('.markdown h2', { hasText: 'Steps' }).waitFor();
    await page.locator('.markdown strong', { hasText: 'Build' }).waitFor();
    assert.equal(await page.locator('.markdown img').count(), 0, 'raw HTML in a plan must not become an element');
    assert.notEqual(await page.title(), 'pwned');
    await shot(page, 'dashboard-tasks');
  });

  test('the charts move when calls happen', async () => {
    await go('overview');
    const canvas = page.locator('.chart canvas').first();
    await canvas.waitFor();
    const total = async () => Number(/(\d+) call/.exec((await page.getByTestId('calls-total').textContent()) ?? '')![1]);
    const before = await total();
    const pixels = () => canvas.evaluate((c: HTMLCanvasElement) => c.toDataURL());
    const drawn = await pixels();
    for (let i = 0; i < 5; i++) await client.callTool({ name: 'Bash', arguments: { command: 'true' } });
    await waitFor(async () => (await total()) >= before + 5, 'the call count to rise');
    await waitFor(async () => (await pixels()) !== drawn, 'the chart to be redrawn with the new calls');
    await go('tools');
    await page.locator('[data-tool="Bash"] .chart canvas').waitFor();
    await shot(page, 'dashboard-tools');
  });

  test('Callbacks: Cancel asks first', async () => {
    await client.callTool({ name: 'SetCallback', arguments: { message: 'stretch', delay_seconds: 600 } });
    await go('callbacks');
    await page.getByRole('cell', { name: 'stretch' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel callback' }).click();
    await page.getByText('No active callbacks').waitFor();
  });

  test('no console errors and no CSP violations anywhere along the way', () => {
    assert.deepEqual(problems, []);
  });
});
