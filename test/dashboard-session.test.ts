import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { startHubProcess, tokenOf, type HubProcess } from './helpers/hub.js';
import { tempHome, waitFor, PINCER_BIN, pincerEnv, WAIT_MS } from './helpers/env.js';
import { launchChromium, watchProblems, signIn, signInLink } from './helpers/browser.js';
import { signInWithCode, type DashboardClient } from './helpers/dashboard-client.js';
import { SignIns, CODE_TTL_MS, SIGN_IN_IDLE_MS, SIGN_IN_LIFETIME_MS } from '../main/http/dashboard/sign-ins.js';
import { detailsAsker, linkAnswerMac, linkRequestMac, newChallenge } from '../main/core/hub-proof.js';

/** Answers of node:http, which never follows a redirect and sends the Host it is given. */
function raw(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

function tryWs(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/mcp/ws`, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
    ws.on('error', () => resolve(-1));
  });
}

async function link(hub: HubProcess, kind: 'browser' | 'desktop' = 'browser'): Promise<DashboardClient> {
  const url = await signInLink(hub.url, hub.token, kind);
  return (await signInWithCode(hub.url, /#signin=(.+)$/.exec(url)![1]!))!;
}

describe('the dashboard session in a browser: signed in by a one-time link, never the token', () => {
  const h = tempHome();
  let hub: HubProcess;
  let chromium: { browser: Browser; close(): Promise<void> };
  let ctx: BrowserContext;
  let page: Page;
  let problems: string[];

  before(async () => {
    hub = await startHubProcess(h.home);
    chromium = await launchChromium();
    ctx = await chromium.browser.newContext();
    page = await ctx.newPage();
    problems = watchProblems(page).problems;
  });
  after(async () => {
    await chromium?.close();
    await hub?.stop();
    h.cleanup();
  });

  test('a sign-in link opens the dashboard at its own origin; the code leaves the address, no cookie is set, the token reaches no page, and a reload keeps the session', async () => {
    const bodies: string[] = [];
    page.on('response', (r) => void r.text().then((t) => bodies.push(t), () => undefined));
    await signIn(page, hub.url, hub.token);
    const here = new URL(page.url());
    assert.match(here.hostname, /^[0-9a-f]{32}\.pincer\.localhost$/);
    assert.equal(here.port, String(hub.port));
    assert.equal(here.hash, '#/overview', 'the sign-in code left the address');
    assert.deepEqual(await ctx.cookies(), [], 'no cookie');
    const kept = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
    assert.ok(!kept.includes(hub.token), 'the token is stored nowhere');
    await page.locator('#serving-status', { hasText: 'Serving' }).waitFor();
    await page.reload();
    await page.getByRole('link', { name: /Running jobs/ }).waitFor();
    assert.equal(await page.locator('#signin-help').count(), 0, 'still signed in after a reload');
    // A browser's session never gets the token: no Show, and no answer the page got carried it.
    assert.equal(await page.getByRole('button', { name: 'Show' }).count(), 0);
    assert.ok(bodies.length > 5);
    for (const b of bodies) assert.ok(!b.includes(hub.token), 'an answer carried the token');
    assert.deepEqual(problems.splice(0), []);
  });

  test("the hub's address and localhost send the page to the dashboard's origin and clear what another program left there; the page refuses framing and openers", async () => {
    const dashboard = new URL(page.url()).origin;
    for (const host of [`127.0.0.1:${hub.port}`, `localhost:${hub.port}`, `0123456789abcdef0123456789abcdef.pincer.localhost:${hub.port}`]) {
      const r = await raw(`${hub.url}/?x=1`, { Host: host });
      assert.equal(r.status, 307, host);
      assert.equal(r.headers.location, `${dashboard}/?x=1`);
      assert.equal(r.headers['clear-site-data'], '"cache", "storage"');
    }
    const own = await raw(`${hub.url}/`, { Host: new URL(dashboard).host });
    assert.equal(own.status, 200);
    assert.equal(own.headers['cross-origin-opener-policy'], 'same-origin');
    assert.equal(own.headers['x-frame-options'], 'DENY');
    assert.match(String(own.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(own.headers['clear-site-data'], undefined, 'nothing to clear at its own origin');
    // A browser that cannot reach *.localhost names (Safari) asks for the hub's own address.
    const here = await raw(`${hub.url}/?here`);
    assert.equal(here.status, 200);
    assert.equal(here.headers['clear-site-data'], '"cache", "storage"');
    // Any service worker script fetch (a worker's update check) gets one that removes itself, and the origin is cleared.
    const sw = await raw(`${hub.url}/sw.js`, { 'Service-Worker': 'script' });
    assert.equal(sw.status, 200);
    assert.match(sw.body, /registration\.unregister\(\)/);
    assert.equal(sw.headers['clear-site-data'], '"cache", "storage"');
  });

  test('another tab of the same browser finds no session', async () => {
    const tab = await ctx.newPage();
    await tab.goto(`${hub.url}/#/overview`);
    await tab.locator('#signin-help').waitFor();
    assert.equal(await tab.locator('#token').count(), 0, 'no token field: the dashboard never asks for the token');
    await tab.close();
  });

  test('Sign out (confirmed) ends the session: its credential opens nothing afterwards', async () => {
    const credential = await page.evaluate(() => sessionStorage.getItem('pincer-dashboard-session'));
    assert.ok(credential);
    const sent: string[] = [];
    page.on('request', (r) => {
      const v = r.headers()['x-pincer-session'];
      if (v) sent.push(v);
    });
    await page.goto(`${hub.url}/?before-signout#/jobs`);
    await page.locator('main h1', { hasText: 'Jobs' }).waitFor();
    const used = await waitFor(() => sent.at(-1), 'a request with the session');
    assert.equal((await fetch(`${hub.url}/api/overview`, { headers: { 'X-Pincer-Session': used } })).status, 200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#signin-help').waitFor();
    assert.equal((await fetch(`${hub.url}/api/overview`, { headers: { 'X-Pincer-Session': used } })).status, 401);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('pincer-dashboard-session')), null, 'the tab forgot it');
  });

  test('Rotate in a browser: this dashboard stays signed in (a new session) without seeing the token; every other dashboard is signed out', async () => {
    await signIn(page, hub.url, hub.token);
    const other = await chromium.browser.newContext();
    const otherPage = await other.newPage();
    await signIn(otherPage, hub.url, hub.token);
    await page.goto(`${hub.url}/?rotate#/overview`);
    await page.getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    await waitFor(() => tokenOf(h.home) !== hub.token, 'the token in pincer-env.txt to change');
    const fresh = tokenOf(h.home);
    // The hub has rotated; this page holds its new session once the answer has reached it (it says so). A page
    // load before that, which a loaded machine allows, would find the session the rotation ended.
    await waitFor(async () => (await page.getByRole('status').textContent()) === 'Token rotated', 'the page to take its new session');
    await otherPage.locator('#signin-help').waitFor();
    await other.close();
    // This one carries on, and still never sees the token.
    await page.goto(`${hub.url}/?after-rotate#/tools`);
    await page.locator('[data-tool="Bash"]').waitFor();
    assert.ok(!(await page.content()).includes(fresh));
    hub.token = fresh;
  });

  test('`pincer token rotate` signs every dashboard out; the page says how to sign in again', async () => {
    await page.goto(`${hub.url}/?before-cli-rotate#/overview`);
    await page.getByRole('link', { name: /Running jobs/ }).waitFor();
    const r = spawnSync(process.execPath, [PINCER_BIN, 'token', 'rotate'], { env: pincerEnv(h.home), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    await page.locator('#signin-help').waitFor();
    await page.locator('#session-ended').waitFor();
    hub.token = tokenOf(h.home);
  });

  test('`pincer dashboard` opens a page of the user\'s own that sends the browser to a one-time link: signed in, and the link works once', async () => {
    const opened = path.join(h.home, '..', `${path.basename(h.home)}-opened.txt`);
    const opener = path.join(h.home, '..', `${path.basename(h.home)}-opener.sh`);
    fs.writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o700 });
    try {
      const r = spawnSync(process.execPath, [PINCER_BIN, 'dashboard'], { env: pincerEnv(h.home, { PINCER_OPEN: opener }), encoding: 'utf8', timeout: WAIT_MS });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /Opened the Pincer dashboard in your browser, signed in \(a one-time link, good for 120 s\)/);
      const file = await waitFor(() => (fs.existsSync(opened) ? fs.readFileSync(opened, 'utf8') : undefined), 'the opener to run');
      assert.equal(path.dirname(file), h.home);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'only the user reads the link');
      const tab = await ctx.newPage();
      await tab.goto(`file://${file}`);
      await tab.getByRole('link', { name: /Running jobs/ }).waitFor();
      assert.match(new URL(tab.url()).hostname, /\.pincer\.localhost$/);
      // The same link a second time signs nobody in.
      const code = /#signin=([^"]+)"/.exec(fs.readFileSync(file, 'utf8'))![1]!;
      assert.equal(await signInWithCode(hub.url, code), undefined);
      await tab.close();
      const printed = spawnSync(process.execPath, [PINCER_BIN, 'dashboard', '--print'], { env: pincerEnv(h.home), encoding: 'utf8', timeout: WAIT_MS });
      assert.equal(printed.status, 0, printed.stderr);
      assert.match(printed.stdout.trim(), /^http:\/\/[0-9a-f]{32}\.pincer\.localhost:\d+\/#signin=[\w-]+\.[\w-]+$/);
    } finally {
      fs.rmSync(opened, { force: true });
      fs.rmSync(opener, { force: true });
    }
  });
});

describe('what a dashboard session may do, on a real hub (no browser needed)', () => {
  const h = tempHome();
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess(h.home);
  });
  after(async () => {
    await hub?.stop();
    h.cleanup();
  });

  test("a browser's session reads no token and changes no setting that chooses a program, path or address; the desktop's may; neither runs a tool", async () => {
    fs.appendFileSync(path.join(h.home, 'pincer-env.txt'), 'BRAVE_API_KEY=brave-key-for-the-session-test\n');
    await waitFor(async () => (await fetch(`${hub.url}/api/settings/secret/BRAVE_API_KEY`, { headers: hub.headers() })).ok, 'the key to load');
    const browser = await link(hub);
    const status = async (c: DashboardClient, p: string, body?: unknown, method?: string) => (await c.fetch(p, { body, method })).status;
    assert.equal(await status(browser, '/api/overview'), 200);
    assert.equal(await status(browser, '/api/token'), 403);
    assert.equal(await status(browser, '/api/settings/secret/AUTH_TOKEN'), 403);
    assert.equal(await status(browser, '/api/settings/secret/BRAVE_API_KEY'), 200, 'an API key may be shown');
    const refused = await browser.fetch('/api/settings/key', { body: { key: 'BASH_SHELL', value: 'cmd' } });
    assert.equal(refused.status, 403);
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /cannot change BASH_SHELL: it chooses the program that runs commands.*pincer-env\.txt/);
    for (const key of ['AUTH_TOKEN', 'HTTP_HOST', 'BASH_CWD', 'BROWSER_PATH', 'ADDITIONAL_SKILLS', 'SEARCH_URL_BING']) assert.equal(await status(browser, '/api/settings/key', { key, value: 'x' }), 403, key);
    assert.equal(await status(browser, '/api/settings/key', { key: 'TOOL_WEBSEARCH', value: 'false' }), 200, 'a tool switch is the dashboard\'s to flip');
    const file = fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8');
    const viaFile = await browser.fetch('/api/settings/file', { method: 'PUT', body: { text: `${file}BASH_CWD=/tmp\n` } });
    assert.equal(viaFile.status, 403);
    assert.equal(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'), file, 'nothing was saved');
    assert.equal(await status(browser, '/api/settings/file', { text: `${file}TOOL_WEBSEARCH=true\n` }, 'PUT'), 200);
    // No surface but the dashboard's takes a session: not MCP, not the compatibility API, not an upgrade.
    const headers = await browser.headers();
    const mcp = await fetch(`${hub.url}/mcp`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.equal(mcp.status, 401);
    assert.equal(await status(browser, '/api/mcp/tools/call', { name: 'Bash', arguments: { command: 'echo no' } }), 401);
    assert.equal(await status(browser, '/api/mcp/jsonrpc', { jsonrpc: '2.0', id: 1, method: 'tools/list' }), 401);
    assert.equal(await tryWs(hub.port, headers), 401);

    const desktop = await link(hub, 'desktop');
    assert.equal(((await (await desktop.fetch('/api/token')).json()) as { token: string }).token, hub.token);
    assert.equal(await status(desktop, '/api/settings/key', { key: 'BASH_CWD', value: h.home }), 200);
    assert.equal(await status(desktop, '/api/mcp/tools/call', { name: 'Bash', arguments: { command: 'echo no' } }), 401);
  });

  test('a session answers carry the MAC of the request they answer; a request without the credential of this hub process opens nothing', async () => {
    const c = await link(hub);
    const res = await fetch(`${hub.url}/api/overview`, { headers: { ...(await c.headers()), 'X-Pincer-Request': 'request-id-0123456789' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('x-pincer-answer') ?? '', /^[\w-]{43}$/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const [sid] = (await c.headers())['X-Pincer-Session']!.split('.');
    for (const forged of [`${sid}.${'A'.repeat(43)}`, `${sid}`, `${sid}.`, 'x'.repeat(300), `${'A'.repeat(22)}.${'A'.repeat(43)}`]) {
      assert.equal((await fetch(`${hub.url}/api/overview`, { headers: { 'X-Pincer-Session': forged } })).status, 401, forged.slice(0, 40));
    }
  });

  test('sign-in links: the token or a request signed with hub-secret for this hub process, once and fresh; the answer is signed; codes work once', async () => {
    const secret = Buffer.from(fs.readFileSync(path.join(h.home, 'hub-secret'), 'utf8').trim(), 'hex');
    const ask = (body: unknown) => fetch(`${hub.url}/api/dashboard/link`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await ask({})).status, 401);
    const unsigned = { pid: process.pid, target: hub.child.pid!, kind: 'browser' as const, nonce: newChallenge(), at: Date.now() };
    const signed = { ...unsigned, mac: linkRequestMac(secret, unsigned) };
    const first = await ask(signed);
    assert.equal(first.status, 200);
    const answer = (await first.json()) as { url: string; mac: string };
    assert.equal(answer.mac, linkAnswerMac(secret, unsigned.nonce, answer.url));
    assert.equal((await ask(signed)).status, 403, 'a replay');
    const otherHub = { ...unsigned, nonce: newChallenge(), target: hub.child.pid! + 1 };
    assert.equal((await ask({ ...otherHub, mac: linkRequestMac(secret, otherHub) })).status, 403, 'signed for another hub process');
    const stale = { ...unsigned, nonce: newChallenge(), at: Date.now() - 120_000 };
    assert.equal((await ask({ ...stale, mac: linkRequestMac(secret, stale) })).status, 403, 'too old');
    const code = /#signin=(.+)$/.exec(answer.url)![1]!;
    const [id] = code.split('.');
    const redeem = () => fetch(`${hub.url}/api/dashboard/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code: id }) });
    assert.equal((await redeem()).status, 200);
    const again = await redeem();
    assert.equal(again.status, 401);
    assert.match(((await again.json()) as { error: { message: string } }).error.message, /used already.*pincer dashboard/);
  });

  test('health tells anyone only that the hub is alive and who it is; the counts only to the token or a holder of hub-secret', async () => {
    const bare = (await (await fetch(`${hub.url}/api/mcp/health`)).json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(bare).sort(), ['name', 'status', 'success', 'version']);
    const challenge = newChallenge();
    const proved = (await (await fetch(`${hub.url}/api/mcp/health?challenge=${challenge}`)).json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(proved).sort(), ['hub', 'name', 'status', 'success', 'version']);
    const secret = Buffer.from(fs.readFileSync(path.join(h.home, 'hub-secret'), 'utf8').trim(), 'hex');
    for (const headers of [hub.headers(), {}]) {
      const url = Object.keys(headers).length ? `${hub.url}/api/mcp/health` : `${hub.url}/api/mcp/health?challenge=${challenge}&asker=${detailsAsker(secret, challenge)}`;
      const told = (await (await fetch(url, { headers })).json()) as Record<string, unknown>;
      assert.equal(typeof told.sessions, 'number');
      assert.equal(typeof told.toolsCount, 'number');
    }
    const wrong = (await (await fetch(`${hub.url}/api/mcp/health?challenge=${challenge}&asker=${detailsAsker(crypto.randomBytes(32), challenge)}`)).json()) as Record<string, unknown>;
    assert.equal(wrong.sessions, undefined);
    const status = spawnSync(process.execPath, [PINCER_BIN, 'status'], { env: pincerEnv(h.home), encoding: 'utf8' });
    assert.match(status.stdout, /\d+ session\(s\), \d+ tool\(s\)/);
  });

  test('a session ends with the hub process that made it: after a restart its credential and its code open nothing', async () => {
    const c = await link(hub);
    const pending = await signInLink(hub.url, hub.token);
    assert.equal((await c.fetch('/api/overview')).status, 200);
    const headers = await c.headers();
    await hub.stop();
    hub = await startHubProcess(h.home);
    assert.equal((await fetch(`${hub.url}/api/overview`, { headers })).status, 401);
    const hello = (await (await fetch(`${hub.url}/api/dashboard/hello?sid=${c.sid}&challenge=${newChallenge()}`)).json()) as { known: boolean; proof?: string };
    assert.deepEqual([hello.known, hello.proof], [false, undefined]);
    assert.equal(await signInWithCode(hub.url, /#signin=(.+)$/.exec(pending)![1]!), undefined);
  });
});

describe('SignIns (in process, with a clock of its own)', () => {
  let now = 1_000_000;
  const sessions = new SignIns(() => now);
  after(() => sessions.close());
  const cred = (sid: string) => crypto.createHmac('sha256', sessions['signIns'].get(sid)!.key).update(['pincer-dashboard-request', sessions.epoch].join('\n')).digest('base64url');

  test('a code is good once and for two minutes; at most 16 wait', () => {
    const a = sessions.createCode('browser').split('.')[0]!;
    assert.ok(sessions.redeem(a));
    assert.equal(sessions.redeem(a), undefined);
    const late = sessions.createCode('browser').split('.')[0]!;
    now += CODE_TTL_MS;
    assert.equal(sessions.redeem(late), undefined);
    const first = sessions.createCode('browser').split('.')[0]!;
    for (let i = 0; i < 16; i++) sessions.createCode('browser');
    assert.equal(sessions.redeem(first), undefined, 'the oldest went');
  });

  test('a session ends after 2 hours unused and 24 hours after sign-in however busy, and says so to whatever it held open', () => {
    const sid = sessions.redeem(sessions.createCode('browser').split('.')[0]!)!.sid;
    let ended = 0;
    sessions.onEnd(sid, () => ended++);
    const header = `${sid}.${cred(sid)}`;
    const auth = () => sessions.authenticate({ 'x-pincer-session': header });
    assert.ok(auth());
    now += SIGN_IN_IDLE_MS - 1000;
    assert.ok(auth(), 'just inside the idle limit, and its use counts');
    now += SIGN_IN_IDLE_MS - 1000;
    assert.ok(auth());
    now += SIGN_IN_LIFETIME_MS;
    sessions.sweep();
    assert.equal(auth(), undefined);
    assert.equal(ended, 1);
  });

  test('the hub proves itself to a tab for the address it was reached at; an unknown session gets no proof', () => {
    const sid = sessions.redeem(sessions.createCode('desktop').split('.')[0]!)!.sid;
    const hello = sessions.hello(sid, 'challenge-challenge-0123', '127.0.0.1:7717')!;
    assert.equal(hello.known, true);
    assert.equal(hello.proof, crypto.createHmac('sha256', sessions['signIns'].get(sid)!.key).update(['pincer-dashboard-hub', 'challenge-challenge-0123', '127.0.0.1:7717', sessions.epoch].join('\n')).digest('base64url'));
    assert.deepEqual(sessions.hello('unknown-session-id-000', 'challenge-challenge-0123', '127.0.0.1:7717'), { known: false, at: '127.0.0.1:7717', epoch: sessions.epoch });
    assert.equal(sessions.hello(sid, 'short', '127.0.0.1:7717'), undefined);
    sessions.revokeAll();
    assert.equal(sessions.hello(sid, 'challenge-challenge-0123', '127.0.0.1:7717')!.known, false);
  });
});

