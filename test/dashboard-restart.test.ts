import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { tempHome, WAIT_MS } from './helpers/env.js';
import { launchChromium, watchProblems, signIn, shot } from './helpers/browser.js';

/**
 * A free port outside the hubs' automatic range (7717 and up), so that no other test's hub can take
 * it while this hub is down: the restarted hub must come back where the page expects it.
 */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function callTool(hub: HubProcess, name: string, args: Record<string, unknown>): Promise<void> {
  const r = await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }) });
  assert.equal(r.status, 200);
}

describe('the dashboard when the hub goes away and comes back', () => {
  const h = tempHome();
  let hub: HubProcess;
  let chromium: { browser: Browser; close(): Promise<void> };
  let page: Page;

  let port: number;

  before(async () => {
    port = await freePort();
    hub = await startHubProcess(h.home, { HTTP_PORT: String(port) });
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  });
  after(async () => {
    await chromium?.close();
    await hub?.stop();
    h.cleanup();
  });

  test('a banner at once, the serving indicator greys out, the ended session says how to sign in again, and activity survives the restart', async () => {
    const { problems } = watchProblems(page);
    await callTool(hub, 'Bash', { command: 'echo before-restart' });
    await signIn(page, hub.url, hub.token);
    await page.goto(`${hub.url}/#/activity`);
    await page.locator('[data-call]').filter({ hasText: 'echo before-restart' }).waitFor();
    assert.equal(hub.port, port);

    await hub.stop();
    const banner = page.getByRole('alert').filter({ hasText: 'The hub is not answering' });
    // "At once": a generous deadline for a loaded machine; the page notices within about a second.
    await banner.waitFor({ timeout: WAIT_MS });
    await page.locator('#serving-status.down', { hasText: 'Hub unreachable' }).waitFor();
    // Navigating while it is down shows the banner, never a raw exception.
    await page.getByRole('link', { name: 'Tools' }).click();
    await page.locator('main h1', { hasText: 'Tools' }).waitFor();
    assert.doesNotMatch((await page.locator('body').innerText()) ?? '', /Failed to fetch|TypeError|NetworkError/);
    await shot(page, 'dashboard-hub-down');

    hub = await startHubProcess(h.home, { HTTP_PORT: String(port) });
    await banner.waitFor({ state: 'detached', timeout: WAIT_MS });
    // The session ended with the hub that issued it (a session that outlived its hub could be replayed by whoever
    // held the port meanwhile): the tab says so and how to sign in again, never a raw exception.
    const ended = page.locator('#session-ended');
    await ended.waitFor();
    assert.match(await ended.innerText(), /sign in again|signed out|session/i);
    assert.match(await page.locator('#signin-help').innerText(), /pincer dashboard/);
    assert.doesNotMatch((await page.locator('body').innerText()) ?? '', /Failed to fetch|TypeError|NetworkError/);
    // Signed in again with the new hub's link, the call made before the restart is still in Activity.
    await signIn(page, hub.url, hub.token);
    await page.locator('#serving-status.serving').waitFor();
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.locator('[data-call]').filter({ hasText: 'echo before-restart' }).waitFor();
    await callTool(hub, 'Bash', { command: 'echo after-restart' });
    await page.locator('[data-call]').filter({ hasText: 'echo after-restart' }).waitFor();
    await page.getByRole('link', { name: 'Tools' }).click();
    await page.locator('[data-tool="Bash"]').getByText(/^2 calls/).waitFor();
    // Chromium logs each refused connection while the hub was down; nothing else may be logged.
    assert.deepEqual(problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to load resource: net::/.test(p)), []);
  });
});
