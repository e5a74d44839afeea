import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startHubProcess } from './helpers/hub.js';
import { tempHome, waitFor, WAIT_MS } from './helpers/env.js';
import { launchChromium, watchProblems, signIn, shot } from './helpers/browser.js';

/**
 * The job output viewer (renderer/src/job-output.tsx) in Chromium against a real hub and a real job:
 * ANSI colours rendered as styled text (never markup), the end of a long log first, earlier parts loaded
 * from a line start, the whole log downloaded, and what the job writes next appended as it writes.
 */
test('the job output viewer: colours, earlier output from a line start, the whole log as a download, live output, no markup from the job', { timeout: 180_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const chromium = await launchChromium();
  const gate = path.join(h.home, 'gate');
  let id = 0;
  try {
    // ~170 KB of coloured lines (more than one 64 KiB window), a line that looks like markup, then a pause until the test opens the gate.
    const command = `for i in $(seq 1 6000); do printf '\\033[31mred %05d\\033[0m plain\\n' $i; done; echo '<img src=x onerror=alert(1)>'; printf '\\033[1;32mdone-marker\\033[0m\\n'; while [ ! -f ${gate} ]; do sleep 0.1; done; echo after-gate; sleep 600`;
    const started = (await (await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'BackgroundBash', arguments: { command } }) })).json()) as { structuredContent: { task_id: number } };
    id = started.structuredContent.task_id;
    // Opened once the job has written its long part, so that the viewer starts with the last window of it.
    await waitFor(async () => ((await (await fetch(`${hub.url}/api/jobs/${id}/output`, { headers: hub.headers() })).json()) as { text: string }).text.includes('done-marker'), 'the job to write its output');
    const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const { problems } = watchProblems(page);
    await signIn(page, hub.url, hub.token);
    await page.goto(`${hub.url}/#/jobs`);
    const out = page.locator(`[data-job-output="${id}"]`);
    await out.filter({ hasText: 'done-marker' }).waitFor({ timeout: WAIT_MS });
    // Colours as styled text: the escape codes are gone, the spans carry the colour.
    const text = (await out.textContent()) ?? '';
    assert.ok(!text.includes('\x1b') && !text.includes('[31m'), 'no raw escape codes');
    const red = await out.locator('span.ansi', { hasText: 'red 06000' }).evaluate((el) => getComputedStyle(el).color);
    assert.equal(red, 'rgb(187, 0, 0)');
    const bold = await out.locator('span.ansi', { hasText: 'done-marker' }).evaluate((el) => getComputedStyle(el).fontWeight);
    assert.equal(bold, '700');
    // The job's text is text: no element was made of it.
    assert.equal(await out.locator('img').count(), 0);
    assert.match(text, /<img src=x onerror=alert\(1\)>/);
    // The end of the log first; earlier output on demand, from a line start.
    const firstLine = async () => ((await out.textContent()) ?? '').split('\n')[0]!;
    const before = await firstLine();
    assert.match(before, /^red \d{5} plain$/);
    await page.locator(`[data-load-earlier="${id}"]`).click();
    await waitFor(async () => (await firstLine()) !== before, 'earlier output to be loaded');
    const earlier = await firstLine();
    assert.match(earlier, /^red \d{5} plain$/, 'earlier output starts at a line start');
    assert.ok(Number(/\d{5}/.exec(earlier)![0]) < Number(/\d{5}/.exec(before)![0]));
    // The whole log as a file.
    const size = ((await (await fetch(`${hub.url}/api/jobs/${id}/output?max=1`, { headers: hub.headers() })).json()) as { size: number }).size;
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`[data-download="${id}"]`).click()]);
    const saved = path.join(h.home, 'downloaded.log');
    await download.saveAs(saved);
    assert.equal(download.suggestedFilename(), `pincer-job-${id}.log`);
    assert.equal(fs.statSync(saved).size, size);
    assert.match(fs.readFileSync(saved, 'utf8'), /^\x1b\[31mred 00001\x1b\[0m plain\n/);
    // What the job writes next arrives without a reload.
    fs.writeFileSync(gate, '');
    await out.filter({ hasText: 'after-gate' }).waitFor({ timeout: WAIT_MS });
    await shot(page, 'dashboard-job-output');
    assert.deepEqual(problems, []);
  } finally {
    if (id) await fetch(`${hub.url}/api/jobs/${id}/kill`, { method: 'POST', headers: hub.headers() }).catch(() => undefined);
    await chromium.close();
    await hub.stop();
    h.cleanup();
  }
});
