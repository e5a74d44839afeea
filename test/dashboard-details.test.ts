import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';
import { launchChromium, watchProblems, signIn, shot, axeViolations, sidewaysOverflow, laidOut } from './helpers/browser.js';

/**
 * What a person tripped over on the dashboard, each checked the way it was seen — in Chromium at 390 and
 * 1280 px, light and dark — with an assertion that would have caught it: no short word broken mid-word
 * ("Canc/el", "Slo/t"), the free-text answer as wide as its placeholder, chart labels inside the canvas
 * ("0000 ms"), every page and the Questions badge on screen at 390 px, no light-scheme grid in dark mode.
 */

/**
 * Words (runs of letters, at most 24) that the layout split over two lines, with where: [] when none.
 * A break at a hyphen, a slash or a dot (a path, a URL, "Chrome-like") is a line break, not a broken word.
 */
function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const m of text.matchAll(/(?<!\p{L})\p{L}{2,24}(?!\p{L})/gu)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) out.push(`"${m[0]}" in <${node.parentElement?.tagName.toLowerCase()} class="${node.parentElement?.className}">`);
      }
    }
    return out;
  });
}

/** Nav links (and their badges) not wholly inside the viewport as the page opens. */
function navOffScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const h = window.innerHeight;
    return [...document.querySelectorAll('nav.sidebar .nav a, nav.sidebar .nav .badge')]
      .map((el) => ({ el, r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.left < 0 || r.right > w || r.top < 0 || r.bottom > h)
      .map(({ el, r }) => `${el.textContent} at ${Math.round(r.left)}–${Math.round(r.right)} of ${w}`);
  });
}

/** Per chart canvas: pixels drawn in its first column and first row (a label cut by the edge), and near-white pixels (a light grid). */
function chartPixels(page: Page): Promise<{ label: string; edge: number; top: number; white: number }[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.chart:not(.spark)')].map((chart) => {
      const canvas = chart.querySelector('canvas')!;
      const ctx = canvas.getContext('2d')!;
      const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let edge = 0;
      let top = 0;
      let white = 0;
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const i = (y * width + x) * 4;
          const a = data[i + 3]!;
          if (!a) continue;
          if (x <= 1) edge++;
          if (y <= 1) top++;
          if (a > 128 && data[i]! > 200 && data[i + 1]! > 200 && data[i + 2]! > 200) white++;
        }
      }
      return { label: chart.getAttribute('aria-label') ?? '', edge, top, white };
    }),
  );
}

describe('dashboard details at 390 and 1280 px, light and dark', () => {
  const h = tempHome();
  let hub: HubProcess;
  let chromium: { browser: Browser; close(): Promise<void> };
  let client: Client;
  const cursorFile = () => path.join(h.home, '.cursor', 'mcp.json');

  before(async () => {
    // Cursor looks installed (its folder and a config with a server of its own); Claude Desktop's config folder is under XDG_CONFIG_HOME.
    fs.mkdirSync(path.join(h.home, '.cursor'), { recursive: true });
    fs.writeFileSync(cursorFile(), '{\n  // my servers\n  "mcpServers": {\n    "other": { "command": "other-server" }\n  }\n}\n');
    hub = await startHubProcess(h.home, { XDG_CONFIG_HOME: path.join(h.home, '.config') });
    chromium = await launchChromium();
    client = new Client({ name: 'details-client', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
    await client.callTool({ name: 'SetCallback', arguments: { message: 'Check the build and tell me whether the deployment went through, then continue with the migration plan we discussed', delay_seconds: 900 } });
    await client.callTool({ name: 'SetCallback', arguments: { message: 'short', delay_seconds: 60 } });
    // Latencies above a second: the labels the chart clipped were the widest ones.
    await client.callTool({ name: 'Bash', arguments: { command: 'sleep 1.3; echo slow' } });
    await client.callTool({ name: 'Bash', arguments: { command: 'echo fast' } });
    void client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify([{ question: 'Which database should the new service use?', options: [{ label: 'Postgres' }, { label: 'SQLite' }], multiSelect: false }]) } }, { resetTimeoutOnProgress: true, onprogress: () => undefined }).catch(() => undefined);
    await waitFor(async () => ((await (await fetch(`${hub.url}/api/questions`, { headers: hub.headers() })).json()) as { pending: unknown[] }).pending.length === 1, 'the question to wait');
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await chromium?.close();
    await hub?.stop();
    h.cleanup();
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`${scheme}: no word broken mid-word, answer box fits its placeholder, chart labels inside, every page on screen at 390 px`, async () => {
      const ctx = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: scheme });
      const page = await ctx.newPage();
      const { problems } = watchProblems(page);
      const failures: string[] = [];
      try {
        await signIn(page, hub.url, hub.token);
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 800 });
          for (const id of ['overview', 'connect', 'callbacks', 'questions', 'settings', 'welcome']) {
            await page.goto(`${hub.url}/?d=${width}${scheme}#/${id}`);
            await page.locator('main .panel, main .counters').first().waitFor();
            if (id === 'callbacks') await page.getByRole('button', { name: 'Cancel' }).first().waitFor();
            if (id === 'connect' || id === 'welcome') await page.locator('[data-client="cursor"]').waitFor();
            if (id === 'overview') await page.locator('.chart canvas').nth(1).waitFor();
            await laidOut(page);
            const where = `${scheme} ${width}px ${id}`;
            for (const w of await brokenWords(page)) failures.push(`${where}: ${w} is broken mid-word`);
            for (const n of await navOffScreen(page)) failures.push(`${where}: nav ${n}`);
            if ((await sidewaysOverflow(page)) > 0) failures.push(`${where}: scrolls sideways`);
            if (id === 'questions') {
              const fit = await page.locator('input[placeholder="Or answer in your own words"]').evaluate((el: HTMLInputElement) => {
                const style = getComputedStyle(el);
                const c = document.createElement('canvas').getContext('2d')!;
                c.font = style.font;
                const needed = c.measureText(el.placeholder).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
                return { needed: Math.ceil(needed), has: el.clientWidth, row: el.closest('fieldset')!.clientWidth };
              });
              if (fit.has < fit.needed) failures.push(`${where}: the free-text answer is ${fit.has}px, its placeholder needs ${fit.needed}px`);
              if (fit.has < fit.row * 0.8) failures.push(`${where}: the free-text answer is ${fit.has}px of a ${fit.row}px question`);
            }
            if (id === 'overview') {
              for (const c of await chartPixels(page)) {
                if (c.edge > 0 || c.top > 0) failures.push(`${where}: "${c.label}" draws ${c.edge} pixels on its left edge and ${c.top} on its top edge (a label cut off)`);
                if (scheme === 'dark' && c.white > 0) failures.push(`${where}: "${c.label}" draws ${c.white} near-white pixels in dark mode`);
              }
            }
            if (width === 390 || id === 'connect' || id === 'welcome') for (const v of await axeViolations(page)) failures.push(`${where}: axe ${v}`);
            await shot(page, `details-${scheme}-${width}-${id}`);
          }
        }
        // At 390 px Questions and its badge are on screen without scrolling the navigation.
        const badge = await page.locator('nav.sidebar a[href="#/questions"] .badge').boundingBox();
        if (!badge || badge.x + badge.width > 390) failures.push(`${scheme} 390px: the Questions badge at ${JSON.stringify(badge)}`);
      } finally {
        await ctx.close();
      }
      assert.deepEqual(failures, []);
      assert.deepEqual(problems, []);
    });
  }

  test('a chart drawn in light mode is redrawn in dark colours when the scheme changes, without a reload', async () => {
    const ctx = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    const page = await ctx.newPage();
    try {
      await signIn(page, hub.url, hub.token);
      await page.locator('.chart canvas').nth(1).waitFor();
      await laidOut(page);
      assert.ok((await chartPixels(page)).some((c) => c.white > 0), 'the light grid is near-white (what the check looks for)');
      await page.emulateMedia({ colorScheme: 'dark' });
      await waitFor(async () => (await page.locator('.chart[data-scheme="dark"]').count()) === 2, 'the charts to follow the scheme');
      await laidOut(page);
      assert.deepEqual((await chartPixels(page)).map((c) => c.white), [0, 0]);
      await shot(page, 'details-scheme-switched-dark');
    } finally {
      await ctx.close();
    }
  });

  test('a refused settings file says nothing was saved, and no line says "using the default"', async () => {
    const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await signIn(page, hub.url, hub.token);
      await page.goto(`${hub.url}/?refused#/settings`);
      const file = path.join(h.home, 'pincer-env.txt');
      const before = fs.readFileSync(file, 'utf8');
      await page.locator('#settings-file').fill(`${await page.locator('#settings-file').inputValue()}BASH_TIMEOUT_MS=soon\n`);
      await page.locator('#save-settings').click();
      const alert = page.getByRole('alert').filter({ hasText: 'Nothing was saved' });
      await alert.getByText('Nothing was saved: 1 line needs fixing.').waitFor();
      const text = (await alert.textContent()) ?? '';
      assert.match(text, /line \d+: BASH_TIMEOUT_MS=soon: expected a whole number; fix it to save/);
      assert.doesNotMatch(text, /using the default/);
      assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing was written');
      await shot(page, 'details-settings-refused');
    } finally {
      await page.close();
    }
  });

  test('the Connect page connects Cursor in one click, shows what was written and how to undo it, and Disconnect gives the file back byte for byte', async () => {
    const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      const original = fs.readFileSync(cursorFile(), 'utf8');
      await signIn(page, hub.url, hub.token);
      await page.locator('nav.sidebar').getByRole('link', { name: 'Connect' }).click();
      const row = page.locator('[data-client="cursor"]');
      await row.getByText('found on this computer').waitFor();
      await row.getByText('Not connected').waitFor();
      await row.getByRole('button', { name: 'Connect Cursor' }).click();
      const outcome = page.locator('[data-outcome="cursor"]');
      await outcome.getByRole('heading', { name: 'Added Pincer to Cursor' }).waitFor();
      await row.getByText('Connected', { exact: true }).waitFor();
      const written = JSON.parse(fs.readFileSync(cursorFile(), 'utf8').replace(/^\s*\/\/.*$/m, '')) as { mcpServers: Record<string, { command: string; args: string[] }> };
      assert.deepEqual(Object.keys(written.mcpServers), ['other', 'pincer'], 'the other server stays');
      assert.match(written.mcpServers.pincer!.args[0]!, /dist[\\/]main[\\/]cli[\\/]pincer\.js$/);
      assert.equal(written.mcpServers.pincer!.args[1], 'stdio');
      // What was written and how to undo it, as the tray says it.
      await outcome.getByText('What was written').click();
      assert.deepEqual(JSON.parse((await outcome.locator('pre[data-entry]').textContent())!), written.mcpServers.pincer);
      assert.match((await outcome.textContent())!, /Reload Cursor's MCP servers \(or restart it\) to load Pincer\.[\s\S]*To undo: Disconnect removes only Pincer's entry again \(or run "pincer disconnect cursor"\); the file as it was is kept as .*mcp\.json\.pincer-backup-/);
      const backup = /kept as (\S+mcp\.json\.pincer-backup-\S+?)\./.exec((await outcome.textContent())!)![1]!;
      assert.equal(fs.readFileSync(backup, 'utf8'), original);
      await shot(page, 'details-connect-cursor');
      await row.getByRole('button', { name: 'Disconnect Cursor' }).click();
      await outcome.getByRole('heading', { name: 'Removed Pincer from Cursor' }).waitFor();
      assert.equal(fs.readFileSync(cursorFile(), 'utf8'), original, 'disconnect gave the original bytes back');
    } finally {
      await page.close();
    }
  });

  test('the connect routes: behind the same guard as settings writes, closed list of clients, a broken config refused as it is', async () => {
    const post = (client: string, headers: Record<string, string>, body = '{"connect":true}') => fetch(`${hub.url}/api/connect/${client}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
    assert.equal((await post('cursor', {})).status, 401, 'no token, no session: refused');
    assert.equal((await post('cursor', { ...hub.headers(), Origin: 'http://evil.example' })).status, 403, 'another origin: refused');
    const unknown = await post('nano', hub.headers());
    assert.equal(unknown.status, 404);
    assert.match(((await unknown.json()) as { error: { message: string } }).error.message, /"nano" is not a client Pincer knows; it connects claude-desktop, claude-code, cursor/);
    const bad = await post('cursor', hub.headers(), '{"connect":"yes"}');
    assert.equal(bad.status, 400);
    // Only the tray app opens Claude Desktop's bundle.
    assert.equal((await fetch(`${hub.url}/api/connect/claude-desktop/bundle`, { method: 'POST', headers: hub.headers(), body: '{}' })).status, 404);
    const vscode = path.join(h.home, '.config', 'Code', 'User', 'mcp.json');
    fs.mkdirSync(path.dirname(vscode), { recursive: true });
    fs.writeFileSync(vscode, '{ "servers": ');
    const broken = await post('vscode', hub.headers());
    assert.equal(broken.status, 400);
    assert.match(((await broken.json()) as { error: { message: string } }).error.message, /mcp\.json is not valid JSON \(line 1: .*\)\. Fix it first; Pincer changed nothing\./);
    assert.equal(fs.readFileSync(vscode, 'utf8'), '{ "servers": ');
    const list = (await (await fetch(`${hub.url}/api/connect`, { headers: hub.headers() })).json()) as { clients: { id: string; found: boolean }[] };
    assert.deepEqual(list.clients.map((c) => c.id), ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'gemini', 'codex']);
    assert.deepEqual(list.clients.filter((c) => c.found).map((c) => c.id), ['cursor', 'vscode']);
  });
});
