import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { startHubProcess, tokenOf, type HubProcess } from './helpers/hub.js';
import { tempHome, waitFor, PINCER_BIN, pincerEnv } from './helpers/env.js';
import { launchChromium, watchProblems, signIn } from './helpers/browser.js';

/** Another local web server, as a dev server running someone's npm code would be: it records every request's cookies. */
function otherLocalServer(): Promise<{ port: number; cookies: string[]; setCookies: string[]; close(): Promise<void> }> {
  const cookies: string[] = [];
  const setCookies: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.headers.cookie) cookies.push(req.headers.cookie);
    if (setCookies.length) res.setHeader('Set-Cookie', setCookies);
    res.setHeader('Content-Type', 'text/html');
    // The page also asks its own server for more, with credentials, as a script there would.
    res.end(`<!doctype html><title>dev server</title><img src="/pixel.png" alt="">`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as AddressInfo).port, cookies, setCookies, close: () => new Promise((r) => server.close(() => r())) })),
  );
}

function cookieValues(header: string): string[] {
  return header.split(';').map((p) => p.trim().slice(p.trim().indexOf('=') + 1)).filter(Boolean);
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

describe('the dashboard session is not the token (issue 11)', () => {
  const h = tempHome();
  let hub: HubProcess;
  let chromium: { browser: Browser; close(): Promise<void> };
  let ctx: BrowserContext;
  let page: Page;
  let problems: string[];
  let other: Awaited<ReturnType<typeof otherLocalServer>>;

  /** This tab's session cookie: the one its key's tag names. */
  const sessionCookie = async () => {
    const key = await page.evaluate(() => sessionStorage.getItem('pincer-session-key'));
    return (await ctx.cookies(hub.url)).find((c) => key && c.name === `pincer_session_${hub.port}_${key.slice(0, 8)}`);
  };
  const replay = async (headers: Record<string, string>, path = '/api/overview') => (await fetch(`${hub.url}${path}`, { headers })).status;

  before(async () => {
    hub = await startHubProcess(h.home);
    other = await otherLocalServer();
    chromium = await launchChromium();
    ctx = await chromium.browser.newContext();
    page = await ctx.newPage();
    problems = watchProblems(page).problems;
  });
  after(async () => {
    await chromium?.close();
    await other?.close();
    await hub?.stop();
    h.cleanup();
  });

  test('after a real sign-in, a server on another port of 127.0.0.1 receives neither the token nor a usable session', async () => {
    await signIn(page, hub.url, hub.token);
    const cookie = await sessionCookie();
    assert.ok(cookie, 'the session cookie is set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.notEqual(cookie.value, hub.token);
    for (const c of await ctx.cookies()) assert.ok(!c.value.includes(hub.token) && !decodeURIComponent(c.value).includes(hub.token), `cookie ${c.name} carries the token`);
    // The person then opens a local dev server in the same browser.
    await page.goto(`http://127.0.0.1:${other.port}/`);
    await waitFor(() => other.cookies.length >= 2, 'the other server to be asked for the page and its image');
    const received = other.cookies.join('; ');
    // Browsers send 127.0.0.1's cookies to every port: the other server does see the session cookie, so this test can fail…
    assert.match(received, new RegExp(`pincer_session_${hub.port}_[\\w-]{8}=`));
    // …but never the token…
    assert.ok(!received.includes(hub.token) && !decodeURIComponent(received).includes(hub.token), 'the other server received the token');
    // …and nothing it received opens the hub: not as a Bearer token, not replayed as the cookie.
    for (const v of cookieValues(received)) {
      assert.equal(await replay({ Authorization: `Bearer ${v}` }, '/api/mcp/tools'), 401);
      assert.equal(await replay({ Authorization: `Bearer ${decodeURIComponent(v)}` }), 401);
    }
    assert.equal(await replay({ Cookie: received }), 401);
    assert.equal(await replay({ Cookie: received }, '/api/token'), 401);
    assert.equal(await tryWs(hub.port, { Cookie: received }), 401);
    // The dashboard itself still works: its key never left its own origin.
    await page.goto(`${hub.url}/#/overview`);
    await page.locator('main h1', { hasText: 'Overview' }).waitFor();
    await page.getByRole('link', { name: /Running jobs/ }).waitFor();
  });

  test('the dashboard bundle is served with its CSP and revalidated by ETag (304), not downloaded again', async () => {
    for (const asset of ['/assets/app.js', '/assets/app.css', '/']) {
      const first = await fetch(`${hub.url}${asset}`);
      assert.equal(first.status, 200, asset);
      assert.match(first.headers.get('content-security-policy') ?? '', /style-src 'self';/);
      const etag = first.headers.get('etag');
      assert.ok(etag, `${asset} has an ETag`);
      // node:http, as a browser revalidates (fetch() would add Cache-Control: no-cache to a conditional request).
      const status = await new Promise<number>((resolve, reject) => http.get(`${hub.url}${asset}`, { headers: { 'If-None-Match': etag } }, (res) => (res.resume(), resolve(res.statusCode!))).on('error', reject));
      assert.equal(status, 304, asset);
    }
    for (const path of ['/assets/..%2fpackage.json', '/assets/%2e%2e/%2e%2e/package.json', '/assets/app.js%00']) {
      const status = await new Promise<number>((resolve, reject) => http.get({ host: '127.0.0.1', port: hub.port, path }, (res) => (res.resume(), resolve(res.statusCode!))).on('error', reject));
      assert.ok(status === 400 || status === 401 || status === 403 || status === 404, `${path} answered ${status}`);
    }
    assert.equal((await fetch(`${hub.url}/build.mjs`)).status, 401, 'nothing but the page, the bundle and the icon is served without a session');
  });

  test('a broken or planted cookie is a 401 or ignored, never a 500 or a crash; the WebSocket upgrade too', async () => {
    const key = (await page.evaluate(() => sessionStorage.getItem('pincer-session-key')))!;
    // The other server sees the cookie's name (browsers send it there), so it can plant one under it.
    const name = `pincer_session_${hub.port}_${key.slice(0, 8)}`;
    for (const bad of [`${name}=%`, `${name}=%E0%A4%A`, `pincer_token=%; ${name}=%zz`, `${name}="unterminated`, `${name}=${'a'.repeat(5000)}`, '=; ;;=%;']) {
      assert.equal(await replay({ Cookie: bad, 'X-Pincer-Session-Key': 'whatever' }), 401, bad);
      assert.equal(await replay({ Cookie: bad, 'X-Pincer-Session-Key': key }), 401, bad);
      assert.equal(await replay({ Cookie: bad, Authorization: `Bearer ${hub.token}` }), 200, `the token still works beside ${bad}`);
      assert.equal(await tryWs(hub.port, { Cookie: bad }), 401, bad);
      assert.equal(await tryWs(hub.port, { Cookie: bad, Authorization: `Bearer ${hub.token}` }), 101, bad);
    }
    assert.equal((await (await fetch(`${hub.url}/api/mcp/health`)).json()).status, 'healthy');
    // A page on another port plants a broken session cookie: the dashboard asks to sign in again instead of failing.
    other.setCookies.push(`${name}=%; Path=/`);
    await page.goto(`http://127.0.0.1:${other.port}/planted`);
    await page.goto(`${hub.url}/?after-plant#/overview`);
    await page.locator('#token').waitFor();
    await signIn(page, hub.url, hub.token);
    other.setCookies.length = 0;
    assert.deepEqual(problems.splice(0), [], 'no errors in the console');
  });

  test('the key lives in this tab only: another tab of the same browser on the hub\'s origin (as a page of a program squatting the port would be) finds none', async () => {
    await page.goto(`${hub.url}/?tab#/overview`);
    await page.locator('main h1', { hasText: 'Overview' }).waitFor();
    assert.ok(await page.evaluate(() => sessionStorage.getItem('pincer-session-key')), 'this tab keeps its key');
    const tab = await ctx.newPage();
    // A key an older dashboard left in localStorage (which every tab and every page of the origin reads) is removed at sign-in.
    await tab.goto(`${hub.url}/icon.svg`);
    await tab.evaluate(() => localStorage.setItem('pincer-session-key', 'left-by-an-older-dashboard'));
    await tab.goto(`${hub.url}/?new-tab#/overview`);
    await tab.locator('#token').waitFor();
    assert.equal(await tab.evaluate(() => sessionStorage.getItem('pincer-session-key')), null);
    await signIn(tab, hub.url, hub.token);
    assert.equal(await tab.evaluate(() => localStorage.getItem('pincer-session-key')), null, 'nothing in localStorage');
    await tab.close();
    // Each tab's sign-in has a cookie of its own: the first tab is still signed in.
    const first = (await sessionCookie())!;
    const firstKey = (await page.evaluate(() => sessionStorage.getItem('pincer-session-key')))!;
    assert.equal(await replay({ Cookie: `${first.name}=${first.value}`, 'X-Pincer-Session-Key': firstKey }), 200);
    assert.deepEqual(problems.splice(0), []);
  });

  test('a session unused for 2 hours ends, and the open dashboard notices by itself; one in use is kept and its last use recorded', async () => {
    const key = await page.evaluate(() => sessionStorage.getItem('pincer-session-key'));
    const cookie = (await sessionCookie())!;
    const headers = { Cookie: `${cookie.name}=${cookie.value}`, 'X-Pincer-Session-Key': key! };
    assert.equal(await replay(headers), 200);
    const db = new Database(path.join(h.home, 'pincer.db'));
    try {
      // Just inside the limit: still a session, and using it moves its last use to now.
      const nearly = Date.now() - 2 * 3600_000 + 120_000;
      db.prepare('UPDATE dashboard_sessions SET last_used_at = ?').run(nearly);
      assert.equal(await replay(headers), 200);
      const idHash = crypto.createHash('sha256').update(cookie.value).digest('hex');
      const used = (db.prepare('SELECT last_used_at AS t FROM dashboard_sessions WHERE id_hash = ?').get(idHash) as { t: number }).t;
      assert.ok(used > nearly + 60_000, 'the use was recorded');
      // Past it: the page, left open and untouched, shows the sign-in form and says why.
      db.prepare('UPDATE dashboard_sessions SET last_used_at = ?').run(Date.now() - 2 * 3600_000 - 1000);
      await page.locator('#token').waitFor({ timeout: 30_000 });
      await page.locator('#session-ended').waitFor();
      assert.equal(await replay(headers), 401);
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM dashboard_sessions').get() as { n: number }).n, 0, 'the ended session is gone from pincer.db');
    } finally {
      db.close();
    }
    await signIn(page, hub.url, hub.token);
    problems.splice(0);
  });

  test('Sign out (a button, confirmed) revokes the session', async () => {
    const key = await page.evaluate(() => sessionStorage.getItem('pincer-session-key'));
    const cookie = (await sessionCookie())!;
    const headers = { Cookie: `${cookie.name}=${cookie.value}`, 'X-Pincer-Session-Key': key! };
    assert.equal(await replay(headers), 200, 'cookie plus key is a session');
    assert.equal(await replay({ Cookie: headers.Cookie }), 401, 'the cookie alone is not');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#token').waitFor();
    assert.equal(await replay(headers), 401, 'the old session is revoked');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('pincer-session-key')), null);
  });

  test('Rotate in the dashboard: this dashboard stays signed in with a fresh session, every other one is signed out', async () => {
    await signIn(page, hub.url, hub.token);
    const other = await chromium.browser.newContext();
    const otherPage = await other.newPage();
    await signIn(otherPage, hub.url, hub.token);
    const otherKey = await otherPage.evaluate(() => sessionStorage.getItem('pincer-session-key'));
    const otherCookie = (await other.cookies(hub.url)).find((c) => c.name === `pincer_session_${hub.port}_${otherKey!.slice(0, 8)}`)!;
    await page.goto(`${hub.url}/?rotate#/overview`);
    await page.getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    await waitFor(() => tokenOf(h.home) !== hub.token, 'the token in pincer-env.txt to change');
    const fresh = tokenOf(h.home);
    await page.getByRole('button', { name: 'Show' }).click();
    await waitFor(async () => (await page.locator('#token-value').inputValue()) === fresh, 'the new token to be shown');
    // The other browser is signed out: its old session no longer opens the API, and its page asks for the token.
    assert.equal(await replay({ Cookie: `${otherCookie.name}=${otherCookie.value}`, 'X-Pincer-Session-Key': otherKey! }), 401);
    await otherPage.locator('#token').waitFor();
    await other.close();
    // This one carries on: a page load later it is still signed in, without the banner.
    await page.waitForTimeout(1500);
    await page.goto(`${hub.url}/?after-rotate#/tools`);
    await page.locator('[data-tool="Bash"]').waitFor();
    assert.equal(await page.getByRole('alert').filter({ hasText: 'not answering' }).count(), 0);
    hub.token = fresh;
  });

  test('`pincer token rotate` signs every dashboard out; the page asks for the new token', async () => {
    // Still signed in from the dashboard's own rotation above.
    await page.goto(`${hub.url}/?before-cli-rotate#/overview`);
    await page.getByRole('link', { name: /Running jobs/ }).waitFor();
    const key = await page.evaluate(() => sessionStorage.getItem('pincer-session-key'));
    const cookie = (await sessionCookie())!;
    const headers = { Cookie: `${cookie.name}=${cookie.value}`, 'X-Pincer-Session-Key': key! };
    assert.equal(await replay(headers), 200);
    const before = tokenOf(h.home);
    const r = spawnSync(process.execPath, [PINCER_BIN, 'token', 'rotate'], { env: pincerEnv(h.home), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    await waitFor(async () => (await replay(headers)) === 401, 'the session to be revoked after rotation');
    // The open dashboard notices by itself (its event stream is closed) and shows the sign-in form.
    await page.locator('#token').waitFor();
    assert.notEqual(tokenOf(h.home), before);
    await signIn(page, hub.url, tokenOf(h.home));
    assert.equal(await replay({ Authorization: `Bearer ${tokenOf(h.home)}` }), 200);
  });
});

describe('dashboard sessions end (no browser needed)', () => {
  const h = tempHome();
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess(h.home);
  });
  after(async () => {
    await hub?.stop();
    h.cleanup();
  });

  /** Signs in as the dashboard does; the headers that then prove the session on a hub at `port`. */
  async function login(): Promise<{ id: string; key: string }> {
    const r = await fetch(`${hub.url}/api/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: tokenOf(h.home) }) });
    assert.equal(r.status, 200);
    const id = /pincer_session_\d+_[\w-]{8}=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')![1]!;
    return { id, key: ((await r.json()) as { key: string }).key };
  }
  const status = async (s: { id: string; key: string }) => (await fetch(`${hub.url}/api/overview`, { headers: { Cookie: `pincer_session_${hub.port}_${s.key.slice(0, 8)}=${s.id}`, 'X-Pincer-Session-Key': s.key } })).status;

  test('no session outlives 24 hours, however busy; a WebSocket it opened closes with it', async () => {
    const s = await login();
    assert.equal(await status(s), 200);
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/mcp/ws`, { headers: { Cookie: `pincer_session_${hub.port}_${s.key.slice(0, 8)}=${s.id}`, 'X-Pincer-Session-Key': s.key } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let closed = false;
    ws.once('close', () => (closed = true));
    const db = new Database(path.join(h.home, 'pincer.db'));
    try {
      db.prepare('UPDATE dashboard_sessions SET created_at = ?, last_used_at = ?').run(Date.now() - 24 * 3600_000 - 1000, Date.now());
    } finally {
      db.close();
    }
    // Untouched, the hub's sweep ends it and closes what it opened.
    await waitFor(() => closed, 'the WebSocket the session opened to close', 30_000);
    assert.equal(await status(s), 401);
  });

  test('a token changed while no hub ran (`pincer token rotate`) ends the sessions opened under the old one', async () => {
    const s = await login();
    assert.equal(await status(s), 200);
    await hub.stop();
    const r = spawnSync(process.execPath, [PINCER_BIN, 'token', 'rotate'], { env: pincerEnv(h.home), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    hub = await startHubProcess(h.home);
    assert.equal(await status(s), 401);
    // A session opened under the new token works, and survives a restart of the hub.
    const fresh = await login();
    await hub.stop();
    hub = await startHubProcess(h.home);
    assert.equal(await status(fresh), 200);
  });
});
