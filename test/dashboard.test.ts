import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';
import { textOf } from './helpers/clients.js';
import { launchChromium, ARTIFACTS, CHROMIUM } from './helpers/browser.js';

const SETTINGS = `# Pincer settings for the dashboard test
# (this comment must survive an edit)
STREAMING=true   # stream Bash output

BASH_TIMEOUT_MS=30000
`;

describe('the dashboard in Chromium against a real hub', { skip: !fs.existsSync(CHROMIUM) && `no ${CHROMIUM}` }, () => {
  const h = tempHome();
  let hub: HubProcess;
  let chromium: { browser: Browser; close(): Promise<void> };
  let page: Page;
  let client: Client;

  const shot = async (name: string) => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });
  };
  const go = async (id: string) => {
    await page.goto(`${hub.url}/#/${id}`);
    await page.locator('main h1').filter({ hasText: new RegExp(id, 'i') }).waitFor();
  };

  before(async () => {
    fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), SETTINGS);
    hub = await startHubProcess(h.home);
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1280, height: 860 } });
    client = new Client({ name: 'dashboard-test-client', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
  });
  after(async () => {
    await client?.close();
    await chromium?.close();
    await hub?.stop();
    h.cleanup();
  });

  test('signing in with the token; a wrong token is refused', async () => {
    await page.goto(hub.url);
    await page.locator('#token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not the token' }).waitFor();
    await shot('login');
    await page.locator('#token').fill(hub.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('main h1', { hasText: 'Overview' }).waitFor();
    await page.getByText('dashboard-test-client').waitFor();
    await shot('overview');
  });

  test('switching a tool off in Tools removes it from the connected client', async () => {
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
    await go('tools');
    await shot('tools');
    await page.locator('[data-tool="WebSearch"] input[role="switch"]').uncheck();
    await waitFor(() => changed > 0, 'tools/list_changed at the client');
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes('WebSearch'));
    assert.ok(names.includes('Bash'));
    assert.match(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'), /^TOOL_WEBSEARCH=false$/m);
  });

  test("answering a pending question completes the client's waiting AskUserQuestion", async () => {
    const call = client.callTool(
      { name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify([{ question: 'Which colour?', header: 'Theme', options: [{ label: 'Red' }, { label: 'Blue', description: 'calm' }], multiSelect: false }]) } },
      { resetTimeoutOnProgress: true, onprogress: () => undefined },
    );
    await go('questions');
    const form = page.locator('form[data-question]');
    await form.waitFor();
    await shot('questions');
    await form.getByLabel('Blue').check();
    await form.getByLabel('Your own answer to: Which colour?').fill('navy, ideally');
    await form.getByRole('button', { name: 'Send answer' }).click();
    const r = await call;
    assert.deepEqual((r.structuredContent as { answers: unknown }).answers, [{ question: 'Which colour?', selected: 'Blue', other: 'navy, ideally' }]);
    assert.match(textOf(r), /→ Blue/);
    await page.getByText('No questions waiting').waitFor();
  });

  test('editing a key in Settings rewrites the file with its comments intact', async () => {
    await go('settings');
    await shot('settings');
    const input = page.locator('input[data-key="BASH_TIMEOUT_MS"]');
    await input.fill('45000');
    await input.press('Enter');
    await waitFor(() => /^BASH_TIMEOUT_MS=45000$/m.test(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8')), 'the file to be rewritten');
    const text = fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8');
    assert.ok(text.startsWith('# Pincer settings for the dashboard test\n# (this comment must survive an edit)\nSTREAMING=true   # stream Bash output\n\nBASH_TIMEOUT_MS=45000\n'), text);
    // A bad line is refused with its line number, and nothing is saved.
    await page.reload();
    await page.locator('#settings-file').fill(text + 'this is not a setting\n');
    await page.locator('#save-settings').click();
    const bad = text.split('\n').length;
    await page.getByText(`line ${bad}: line ${bad} is not KEY=VALUE`).waitFor();
    assert.equal(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'), text);
  });

  test("a job's output appears live on the Jobs page", async () => {
    await go('jobs');
    const started = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'for i in 1 2 3; do echo "tick-$i"; sleep 0.7; done; sleep 30' } });
    const id = (started.structuredContent as { task_id: number }).task_id;
    const out = page.locator(`pre[data-job-output="${id}"]`);
    await out.waitFor();
    await waitFor(async () => (await out.textContent())?.includes('tick-1'), 'the first line');
    await waitFor(async () => (await out.textContent())?.includes('tick-3'), 'later lines, without a reload');
    await shot('jobs');
    await page.locator(`section[data-job="${id}"]`).getByRole('button', { name: 'Kill' }).click();
    await page.locator(`section[data-job="${id}"]`).getByText('killed').waitFor();
  });

  test('the other pages render, with an empty state or their data', async () => {
    await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: 'Dashboard task' } });
    await client.callTool({ name: 'TaskManager', arguments: { action: 'add', text: 'first step' } });
    await client.callTool({ name: 'SetCallback', arguments: { message: 'stretch', delay_seconds: 600 } });
    for (const [id, text] of [['tasks', 'Dashboard task'], ['callbacks', 'stretch'], ['activity', 'BackgroundBash'], ['skills', 'No skills installed']] as const) {
      await go(id);
      await page.getByText(text).first().waitFor();
      await shot(id);
    }
    // 200% zoom stays readable: the navigation wraps instead of clipping.
    await page.setViewportSize({ width: 640, height: 860 });
    await go('overview');
    await shot('overview-narrow');
  });
});
