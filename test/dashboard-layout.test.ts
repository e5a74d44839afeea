import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { tempHome } from './helpers/env.js';
import { launchChromium, watchProblems, signIn, shot, axeViolations, sidewaysOverflow, laidOut } from './helpers/browser.js';

const PAGES = ['overview', 'connect', 'tools', 'settings', 'todos', 'jobs', 'callbacks', 'questions', 'activity', 'skills'];
const WIDTHS = [390, 768, 1280];

/**
 * Every page at phone, tablet and desktop width, light and dark, with data on
 * it: nothing scrolls sideways, the navigation stays in reach, nothing logs an
 * error or a CSP violation, and axe-core finds nothing serious or critical.
 */
describe('dashboard layout and accessibility at 390/768/1280 px, light and dark', () => {
  const h = tempHome();
  let hub: HubProcess;
  let chromium: { browser: Browser; close(): Promise<void> };
  let client: Client;
  let jobId: number | undefined;

  before(async () => {
    hub = await startHubProcess(h.home);
    chromium = await launchChromium();
    client = new Client({ name: 'a-client-with-a-rather-long-name-for-layout', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
    // Data on every page, long words included.
    await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: 'A task with a name long enough to wrap on a phone screen' } });
    for (const t of ['first', 'second', 'third']) await client.callTool({ name: 'TaskManager', arguments: { action: 'add', text: `${t} step` } });
    // Long enough to outlast both colour schemes on a loaded machine (the dialog test needs it running); stopped in after().
    const job = await client.callTool({ name: 'BackgroundBash', arguments: { command: `echo ${'x'.repeat(300)}; sleep 900` } });
    jobId = (job.structuredContent as { task_id?: number } | undefined)?.task_id;
    assert.ok(jobId, `BackgroundBash gave no task_id: ${JSON.stringify(job)}`);
    await client.callTool({ name: 'SetCallback', arguments: { message: `reminder-${'y'.repeat(120)}`, delay_seconds: 900 } });
    for (let i = 0; i < 4; i++) await client.callTool({ name: 'Bash', arguments: { command: `echo ${'z'.repeat(200)}-${i}` } });
    void client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify([{ question: 'Pick one of these options, please?', options: [{ label: 'Alpha' }, { label: 'Beta' }], multiSelect: false }]) } }, { resetTimeoutOnProgress: true, onprogress: () => undefined }).catch(() => undefined);
  });
  after(async () => {
    if (jobId) await client?.callTool({ name: 'KillBgTask', arguments: { task_id: jobId } }).catch(() => undefined);
    await client?.close().catch(() => undefined);
    await chromium?.close();
    await hub?.stop();
    h.cleanup();
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`${scheme}: no sideways scroll, navigation in reach, no console errors, no serious axe violations`, async () => {
      const ctx: BrowserContext = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: scheme });
      const page: Page = await ctx.newPage();
      const { problems } = watchProblems(page);
      const failures: string[] = [];
      try {
        // The sign-in page too, at the narrowest width.
        await page.setViewportSize({ width: 390, height: 800 });
        await page.goto(hub.url);
        await page.locator('#signin-help').waitFor();
        for (const v of await axeViolations(page)) failures.push(`${scheme} sign-in: axe ${v}`);
        if ((await sidewaysOverflow(page)) > 0) failures.push(`${scheme} sign-in scrolls sideways`);
        await shot(page, `layout-${scheme}-390-signin`);
        await signIn(page, hub.url, hub.token);
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 800 });
          for (const id of PAGES) {
            await page.goto(`${hub.url}/?w=${width}#/${id}`);
            await page.locator('main h1').filter({ hasText: new RegExp(`^${id}$`, 'i') }).waitFor();
            await page.locator('main .panel, main .counters').first().waitFor();
            await laidOut(page);
            const over = await sidewaysOverflow(page);
            if (over > 0) failures.push(`${scheme} ${width}px ${id}: scrolls sideways by ${over}px`);
            // Each page opens at its top.
            if ((await page.evaluate(() => window.scrollY)) !== 0) failures.push(`${scheme} ${width}px ${id}: did not open at the top`);
            // The navigation is still on screen after scrolling to the bottom of a long page.
            await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
            const nav = await page.locator('nav.sidebar a[aria-current="page"]').boundingBox();
            if (!nav || nav.y < 0 || nav.y > 800) failures.push(`${scheme} ${width}px ${id}: the current page's nav link is out of reach after scrolling (${JSON.stringify(nav)})`);
            await page.evaluate(() => window.scrollTo(0, 0));
            if (width === 1280 || id === 'overview' || id === 'settings' || id === 'activity') {
              for (const v of await axeViolations(page)) failures.push(`${scheme} ${width}px ${id}: axe ${v}`);
            }
            await shot(page, `layout-${scheme}-${width}-${id}`);
          }
        }
        // Moving between pages inside the app (no reload): the next page opens at its top, focus on its content.
        await page.goto(`${hub.url}/?nav#/settings`);
        await page.locator('#group-general').waitFor();
        await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
        assert.ok((await page.evaluate(() => window.scrollY)) > 500, 'Settings is long enough to scroll');
        await page.locator('nav.sidebar').getByRole('link', { name: 'Activity' }).click();
        await page.locator('main h1', { hasText: 'Activity' }).waitFor();
        assert.equal(await page.evaluate(() => window.scrollY), 0, 'Activity opened where Settings was scrolled to');
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
        // A confirmation dialog, opened from the keyboard, is accessible too and Escape closes it.
        await page.goto(`${hub.url}/?dialog#/jobs`);
        await page.getByRole('button', { name: 'Kill' }).first().focus();
        await page.keyboard.press('Enter');
        await page.getByRole('dialog').waitFor();
        for (const v of await axeViolations(page)) failures.push(`${scheme} confirm dialog: axe ${v}`);
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'hidden' });
        // The skip link reaches the main content, by keyboard.
        await page.goto(`${hub.url}/?skip#/settings`);
        await page.locator('main h1', { hasText: 'Settings' }).waitFor();
        await page.locator('#group-serving').waitFor();
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
        await page.keyboard.press('Enter');
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
        assert.match(page.url(), /#\/settings$/, 'the skip link must not change the page');
        await page.keyboard.press('Tab');
        assert.ok(await page.evaluate(() => document.getElementById('main')!.contains(document.activeElement)), 'the next Tab stays in the main content');
        // Focus is visible: the focused control draws an outline.
        assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle), 'none');
      } finally {
        await ctx.close();
      }
      assert.deepEqual(failures, []);
      assert.deepEqual(problems, []);
    });
  }
});
