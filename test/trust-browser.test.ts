import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { tempHome, waitFor, quietFor, PINCER_BIN, pincerEnv, WAIT_MS } from './helpers/env.js';
import { readHubJson, startHubProcess, stopHubOf, tokenOf, type HubProcess } from './helpers/hub.js';
import { launchChromium, signIn, chromiumProblem } from './helpers/browser.js';
import { osFreePort } from './helpers/ports.js';
import { otherUser, otherUserSkip, spawnAs, sharedFolder, type OtherUser } from './helpers/other-user.js';
import { skipUnless } from './helpers/prerequisites.js';
import { replayCaught, type Replayed } from './helpers/replay.js';

// Written as the attack on a signed-in dashboard tab: the hub goes away (stopped, crashed, handed
// over), another local user binds its port and records everything the tab sends, serves its own
// page to a reload and leaves a service worker on the origin; then the real hub is back and that
// user replays what it caught. Nothing it caught may be worth anything, and the person's browser
// works with the real hub again after signing in the way the dashboard asks.

const SQUATTER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'helpers', 'browser-squatter.js');
const user = otherUser();
const skip = otherUserSkip(user) || skipUnless(chromiumProblem());

interface Squatter {
  child: ChildProcess;
  recorder: string;
  bound(family: 'v4' | 'v6'): boolean;
  caught(): Record<string, unknown>[];
  stop(): void;
}

async function squat(as: OtherUser, port: number, dir: string, workerCache: 'all' | 'none' = 'all'): Promise<Squatter> {
  const record = path.join(dir, `caught-${port}.jsonl`);
  const child = spawnAs(as, SQUATTER, [String(port), record, '120', workerCache]);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const recorder = (await waitFor(() => /recorder (\S+)/.exec(out), 'the squatter to start'))[1]!;
  return {
    child,
    recorder,
    bound: (family) => new RegExp(`bound ${family} `).test(out),
    caught: () =>
      (fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    stop: () => child.kill('SIGKILL'),
  };
}

/** A tab of the person's: signed in, on the Overview, its live feed up. */
async function signedInTab(browser: Browser, hub: HubProcess): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signIn(page, hub.url, hub.token);
  await page.locator('#serving-status', { hasText: 'Serving' }).waitFor({ timeout: WAIT_MS });
  return { ctx, page };
}

async function takeDown(how: 'stop' | 'crash' | 'handover', hub: HubProcess, port: number): Promise<ChildProcess | undefined> {
  if (how === 'stop') await hub.stop('SIGTERM');
  else if (how === 'crash') await hub.stop('SIGKILL');
  else return spawn(process.execPath, [PINCER_BIN, 'serve', '--quiet', '--takeover'], { env: pincerEnv(hub.home, { HTTP_PORT: String(port) }), stdio: 'ignore' });
  return undefined;
}

for (const how of ['stop', 'crash', 'handover'] as const) {
  test(`a signed-in tab when the hub is ${how === 'stop' ? 'stopped' : how === 'crash' ? 'killed' : 'handed over'} and another user takes the port: nothing it catches is usable, with or without a reload and a service worker`, { skip, timeout: 240_000 }, async () => {
    const as = user as OtherUser;
    const h = tempHome();
    const shared = sharedFolder(as, 'pincer-squat-');
    const port = await osFreePort();
    let hub = await startHubProcess(h.home, { HTTP_PORT: String(port) });
    const { browser, close } = await launchChromium();
    let squatter: Squatter | undefined;
    let newcomer: ChildProcess | undefined;
    let replayed: Replayed | undefined;
    try {
      const token = hub.token;
      const still = await signedInTab(browser, hub);
      const reloaded = await signedInTab(browser, hub);
      squatter = await squat(as, port, shared.dir);
      newcomer = await takeDown(how, hub, port);
      // The port is the squatter's, or (a handover without a gap) the newcomer's.
      const outcome = await waitFor(() => (squatter!.bound('v4') ? 'squatted' : newcomer && readHubJson(h.home)?.pid === newcomer.pid ? 'handed over' : undefined), 'the port to change hands');
      // The tabs carry on as they would: their feeds reconnect, pages refetch; the person presses F5 in one.
      await reloaded.page.reload({ timeout: 15_000 }).catch(() => undefined);
      if (outcome === 'squatted') await waitFor(() => squatter!.caught().some((c) => (c.body as { kind?: string } | undefined)?.kind === 'sw-registered'), 'the squatter\'s page to register its worker').catch(() => undefined);
      await quietFor(6000, 'the tabs, left to the squatter for a while, giving it what opens the real hub');
      // The squatter leaves; the person's hub is back on its port.
      squatter.stop();
      if (outcome === 'squatted') hub = await startHubProcess(h.home, { HTTP_PORT: String(port) });
      else hub = { ...hub, url: readHubJson(h.home)!.url, token: tokenOf(h.home) };
      // What the squatter's page left open in a tab tries what it found against the real hub meanwhile.
      await quietFor(5000, "the squatter's page, still open in a tab, getting into the real hub");

      // The person signs in again, in both browsers, the way the dashboard asks: it is the real dashboard.
      const signedInAgain: string[] = [];
      for (const [name, ctx] of [['the tab left alone', still.ctx], ['the reloaded tab', reloaded.ctx]] as const) {
        const fresh = await ctx.newPage();
        try {
          await signIn(fresh, hub.url, tokenOf(h.home));
          await fresh.getByRole('link', { name: /Running jobs/ }).waitFor({ timeout: WAIT_MS });
          signedInAgain.push(name);
        } catch (err) {
          process.stderr.write(`# ${how}: signing in again in ${name}'s browser failed: ${(err as Error).message.split('\n')[0]}\n`);
        }
      }
      await quietFor(3000, 'the signed-in-again tabs giving the squatter what opens the real hub');
      // Then the squatter's user replays everything it caught against the real hub.
      replayed = await replayCaught(hub.url, squatter.caught());
      // A credential the tab itself sent to the squatter's port (its own page's tries carry what it read from storage instead).
      const sent = squatter.caught().filter((c) => c.via === 'port' && /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/.test(String((c.headers as Record<string, string>)['x-pincer-session'] ?? '')));
      process.stderr.write(`# ${how}: ${outcome}; the tabs sent ${sent.length} credential(s) to the squatter; ${replayed.candidates} credential(s) caught in all, ${replayed.tries} replays, ${replayed.usable.length} usable\n${replayed.usable.map((u) => `#   ${u}\n`).join('')}`);
      assert.deepEqual(replayed.usable, [], 'something the squatter caught opened the real hub');
      // A hub that stops or hands over ends its dashboards' trust before it lets go of the port; only a
      // crash can leave a request of the tab in flight to whoever binds the port first (worth nothing, above).
      if (how !== 'crash') assert.deepEqual(sent.map((c) => c.url), [], 'a tab sent its credential to the squatter');
      assert.ok(!JSON.stringify(squatter.caught()).includes(token), 'the squatter caught the token');
      assert.ok(!JSON.stringify(squatter.caught()).includes(tokenOf(h.home)), 'the squatter caught the token');
      assert.deepEqual(signedInAgain, ['the tab left alone', 'the reloaded tab'], 'the person could not use the real dashboard again');
    } finally {
      squatter?.stop();
      newcomer?.kill('SIGKILL');
      await close();
      await hub.stop().catch(() => undefined);
      await stopHubOf(h.home).catch(() => undefined);
      shared.cleanup();
      h.cleanup();
    }
  });
}

for (const workerCache of ['none', 'all'] as const) {
  test(`a service worker another user left on the hub's address (its script ${workerCache === 'all' ? 'cached for a year' : 'not cached'}): \`pincer dashboard\` signs in where it has no hold${workerCache === 'none' ? ', and the hub removes it at its first update check' : ''}`, { skip, timeout: 180_000 }, async () => {
    const as = user as OtherUser;
    const h = tempHome();
    const shared = sharedFolder(as, 'pincer-squat-');
    const port = await osFreePort();
    const { browser, close } = await launchChromium();
    let squatter: Squatter | undefined;
    let hub: HubProcess | undefined;
    const opened = path.join(h.home, '..', `${path.basename(h.home)}-opened.txt`);
    const opener = path.join(h.home, '..', `${path.basename(h.home)}-opener.sh`);
    fs.writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o700 });
    try {
      // No hub runs; the person's bookmark of the hub's address meets the other user's program there.
      squatter = await squat(as, port, shared.dir, workerCache);
      await waitFor(() => squatter!.bound('v4'), 'the squatter to bind');
      const ctx = await browser.newContext();
      const bookmark = await ctx.newPage();
      await bookmark.goto(`http://127.0.0.1:${port}/`);
      await waitFor(() => squatter!.caught().some((c) => (c.body as { kind?: string } | undefined)?.kind === 'sw-registered'), 'the worker to be registered');
      squatter.stop();
      hub = await startHubProcess(h.home, { HTTP_PORT: String(port) });
      // `pincer dashboard`, as the person runs it: its page sends the browser to the dashboard's own origin.
      const r = spawnSync(process.execPath, [PINCER_BIN, 'dashboard'], { env: pincerEnv(h.home, { PINCER_OPEN: opener }), encoding: 'utf8', timeout: WAIT_MS });
      assert.equal(r.status, 0, r.stderr);
      const file = await waitFor(() => (fs.existsSync(opened) ? fs.readFileSync(opened, 'utf8') : undefined), 'the opener to run');
      const tab = await ctx.newPage();
      await tab.goto(`file://${file}`);
      await tab.getByRole('link', { name: /Running jobs/ }).waitFor({ timeout: WAIT_MS });
      assert.match(new URL(tab.url()).hostname, /^[0-9a-f]{32}\.pincer\.localhost$/);
      assert.equal(await tab.evaluate(() => navigator.serviceWorker.controller), null, 'no worker controls the dashboard');
      if (workerCache === 'none') {
        // The bookmark again: the worker answers it once more, but its update check reaches the hub, which replaces it with one that removes itself.
        await bookmark.goto(`http://127.0.0.1:${port}/?again`).catch(() => undefined);
        await waitFor(async () => (await bookmark.evaluate(() => navigator.serviceWorker.getRegistrations().then((rs) => rs.length)).catch(() => 1)) === 0, 'the worker to be gone');
        await bookmark.goto(`http://127.0.0.1:${port}/?third`);
        await bookmark.locator('#signin-help').waitFor({ timeout: WAIT_MS });
        assert.match(new URL(bookmark.url()).hostname, /\.pincer\.localhost$/, "the real hub's redirect, no longer the worker's page");
      }
      const replayed = await replayCaught(hub.url, squatter.caught());
      assert.deepEqual(replayed.usable, []);
    } finally {
      squatter?.stop();
      await close();
      await hub?.stop();
      shared.cleanup();
      fs.rmSync(opened, { force: true });
      fs.rmSync(opener, { force: true });
      h.cleanup();
    }
  });
}
