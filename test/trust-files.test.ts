/**
 * Written as the attacks on what Pincer keeps on disk: settings edits that would lock the
 * user out, a data folder someone else owns, and secrets leaving the hub in clear.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startHubProcess, tokenOf } from './helpers/hub.js';
import { tempHome, pincerEnv, PINCER_BIN, waitFor, WAIT_MS } from './helpers/env.js';
import { launchChromium, signIn } from './helpers/browser.js';
import { notHere, onlyOn, IS_ROOT } from './helpers/prerequisites.js';
import { FakeElectron, isolateHome } from './helpers/fake-electron.js';
import { startDesktop } from '../main/desktop/app.js';

function pincer(home: string, args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [PINCER_BIN, ...args], { env: pincerEnv(home), cwd: home, encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

interface Answer {
  status: number;
  body: { success?: boolean; code?: string; error?: { message: string } };
}

test('no settings edit through the dashboard API can lock the user out: too large, not UTF-8 or token-less is refused and the hub keeps working', async () => {
  const h = tempHome();
  const file = path.join(h.home, 'pincer-env.txt');
  const hub = await startHubProcess(h.home);
  try {
    const token = hub.token;
    const send = async (method: string, route: string, payload: unknown): Promise<Answer> => {
      const res = await fetch(`${hub.url}${route}`, { method, headers: hub.headers(), body: typeof payload === 'string' ? payload : JSON.stringify(payload) });
      return { status: res.status, body: (await res.json()) as Answer['body'] };
    };
    const before = fs.readFileSync(file);

    // 1. The whole file, past the loader's 1 MiB: the loader would drop it and with it the token.
    const big = await send('PUT', '/api/settings/file', { text: `AUTH_TOKEN=${token}\n# ${'x'.repeat(1024 * 1024)}\n` });
    assert.equal(big.status, 400, JSON.stringify(big.body));
    assert.equal(big.body.code, 'SETTINGS_FILE_TOO_LARGE');
    assert.match(big.body.error!.message, /would be 104\d{4} bytes, more than the 1048576 bytes Pincer reads from .*pincer-env\.txt; remove lines .*Nothing was saved\./);

    // 2. The same size reached one key at a time.
    const grown: number[] = [];
    for (let i = 0; i < 5; i++) grown.push((await send('POST', '/api/settings/key', { key: `PADDING_${i}`, value: 'p'.repeat(300 * 1024) })).status);
    assert.deepEqual(grown, [200, 200, 200, 400, 400], 'keys are taken until the file would pass the limit');
    const last = await send('POST', '/api/settings/key', { key: 'PADDING_9', value: 'p'.repeat(300 * 1024) });
    assert.equal(last.body.code, 'SETTINGS_FILE_TOO_LARGE');
    assert.ok(fs.statSync(file).size <= 1024 * 1024);

    // 3. Text that does not survive UTF-8 (a lone surrogate, sent as a JSON escape), in the file and in a key.
    const lone = await send('PUT', '/api/settings/file', `{"text": "AUTH_TOKEN=${token}\\n# caf\\ud800\\n"}`);
    assert.deepEqual([lone.status, lone.body.code], [400, 'SETTINGS_ENCODING_INVALID'], JSON.stringify(lone.body));
    assert.match(lone.body.error!.message, /cannot be written as UTF-8/);
    const loneKey = await send('POST', '/api/settings/key', `{"key": "USER_AGENT_SEARCH", "value": "a\\udc00b"}`);
    assert.deepEqual([loneKey.status, loneKey.body.code], [400, 'SETTINGS_ENCODING_INVALID']);

    // 4. No usable token: missing, empty, or only an invalid line.
    for (const text of ['TOOLS=true\n', 'AUTH_TOKEN=\n', 'AUTH_TOKEN= # none\n', `AUTH_TOKEN=${token}\u0007\n`]) {
      const r = await send('PUT', '/api/settings/file', { text });
      assert.equal(r.status, 400, JSON.stringify(text));
      assert.ok(r.body.code === 'TOKEN_REQUIRED' || r.body.code === 'SETTING_VALUE_INVALID', `${JSON.stringify(text)}: ${r.body.code}`);
    }
    const dropped = await send('POST', '/api/settings/key', { key: 'AUTH_TOKEN', value: '   ' });
    assert.deepEqual([dropped.status, dropped.body.code], [400, 'TOKEN_REQUIRED']);

    // The file holds the token and only the keys that fitted; it is private and no temp file is left.
    assert.equal(tokenOf(h.home), token);
    assert.ok(fs.readFileSync(file).subarray(0, before.length).equals(before), 'what was there is kept');
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(h.home).filter((f) => f.endsWith('.tmp')), []);

    // The hub still works: sign-in with the token, the API, and after a restart, `token rotate` and `serve`.
    const login = await fetch(`${hub.url}/api/dashboard/link`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(login.status, 200, 'sign-in still works');
    assert.equal((await fetch(`${hub.url}/api/settings`, { headers: hub.headers() })).status, 200);
    await hub.stop();
    const rotate = pincer(h.home, ['token', 'rotate']);
    assert.equal(rotate.status, 0, rotate.err);
    const again = await startHubProcess(h.home);
    try {
      assert.notEqual(again.token, token);
      assert.equal((await fetch(`${again.url}/api/settings`, { headers: again.headers() })).status, 200);
    } finally {
      await again.stop();
    }
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('secrets never leave in clear: the settings API masks them, activity previews mask secret-looking values, commands do not inherit them', async () => {
  const h = tempHome();
  const file = path.join(h.home, 'pincer-env.txt');
  const token = 'Tk7-user-token-QxR4vN8pL2mZ9wB3cD6fG1hJ';
  const brave = 'BSA-brave-key-Zq8Wm3Xr5Ty7Uv9';
  const tavily = 'tvly-tavily-key-Hj2Kl4Mn6Pq8';
  fs.writeFileSync(file, `AUTH_TOKEN=${token}\nBRAVE_API_KEY=${brave}\n`);
  // TAVILY_API_KEY and the token also reach the hub through its environment, as a user's shell may set them.
  const hub = await startHubProcess(h.home, { AUTH_TOKEN: token, TAVILY_API_KEY: tavily });
  try {
    const get = async (route: string, headers: Record<string, string> = hub.headers()) => {
      const res = await fetch(`${hub.url}${route}`, { headers });
      return { status: res.status, text: await res.text() };
    };
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name, arguments: args }) });
      assert.equal(res.status, 200);
      return JSON.stringify(await res.json());
    };

    // 1. GET /api/settings: no secret value anywhere in the answer; each says whether it is set.
    const settings = await get('/api/settings');
    assert.equal(settings.status, 200);
    for (const secret of [token, brave, tavily]) assert.ok(!settings.text.includes(secret), `GET /api/settings holds ${secret.slice(0, 12)}…`);
    const keys = (JSON.parse(settings.text) as { keys: { key: string; value: string; secret?: { isSet: boolean } }[] }).keys;
    const key = (k: string) => keys.find((x) => x.key === k)!;
    assert.deepEqual([key('AUTH_TOKEN').value, key('AUTH_TOKEN').secret], ['', { isSet: true }]);
    assert.deepEqual([key('BRAVE_API_KEY').value, key('BRAVE_API_KEY').secret], ['', { isSet: true }]);
    assert.deepEqual([key('MARGINALIA_API_KEY').value, key('MARGINALIA_API_KEY').secret], ['', { isSet: false }]);
    assert.equal(key('HTTP_HOST').value, '127.0.0.1', 'other values are still shown');

    // Revealed one key at a time, only to a holder of the token (or a dashboard session), never cached.
    const reveal = await fetch(`${hub.url}/api/settings/secret/BRAVE_API_KEY`, { headers: hub.headers() });
    assert.equal(reveal.status, 200);
    assert.equal(reveal.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await reveal.json(), { key: 'BRAVE_API_KEY', value: brave, source: 'user' });
    assert.equal((await get('/api/settings/secret/BRAVE_API_KEY', {})).status, 401);
    assert.equal((await get('/api/settings/secret/BRAVE_API_KEY', { Authorization: 'Bearer wrong' })).status, 401);
    assert.equal((await get('/api/settings/secret/HTTP_HOST')).status, 404, 'not a secret: not served here');
    const set = await fetch(`${hub.url}/api/settings/key`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ key: 'MARGINALIA_API_KEY', value: 'marg-new-key-123456' }) });
    assert.deepEqual(await set.json(), { success: true, value: '' }, 'a saved secret is not echoed back');

    // 2. Commands run by Bash and BackgroundBash: none of Pincer's secrets in their environment.
    const env = await call('Bash', { command: 'env' });
    assert.match(env, /PINCER_HOME=/, 'the command saw its environment');
    for (const secret of [token, tavily]) assert.ok(!env.includes(secret), `Bash's environment holds ${secret.slice(0, 12)}…`);
    assert.doesNotMatch(env, /AUTH_TOKEN|TAVILY_API_KEY/);
    const started = JSON.parse(await call('BackgroundBash', { command: 'echo "token=[${AUTH_TOKEN:-none}] tavily=[${TAVILY_API_KEY:-none}]"' })) as { structuredContent: { task_id: number } };
    const out = await call('ReadBgOutput', { task_id: started.structuredContent.task_id, wait_ms: 5000 });
    assert.match(out, /token=\[none\] tavily=\[none\]/);

    // 3. Activity previews: what the dashboard keeps of each call's arguments and result is masked.
    const leaks = [
      `curl -H "Authorization: Bearer aZ3kQ9mW7xP2vL5nR8tY" https://example.invalid`,
      `export GITHUB_TOKEN=ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5 && git push`,
      `mysql --password=hunter2-of-the-user -u root`,
      `echo OPENAI_API_KEY=sk-proj-Xy7kP2mQ9vL4nR8sT1wZ5bC3`,
      `echo ${token}`,
    ];
    for (const command of leaks) await call('Bash', { command });
    const activity = await get('/api/activity?limit=50');
    assert.equal(activity.status, 200);
    for (const secret of ['aZ3kQ9mW7xP2vL5nR8tY', 'ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5', 'hunter2-of-the-user', 'sk-proj-Xy7kP2mQ9vL4nR8sT1wZ5bC3', token, tavily]) {
      assert.ok(!activity.text.includes(secret), `the activity log holds ${secret.slice(0, 12)}…`);
    }
    assert.match(activity.text, /Authorization: Bearer \*\*\*/);
    assert.match(activity.text, /--password=\*\*\*/);
    assert.match(activity.text, /git push/, 'the rest of the command stays readable');
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('the dashboard shows an API key only when Show is pressed for it, and an untouched field keeps it', async () => {
  const h = tempHome();
  const file = path.join(h.home, 'pincer-env.txt');
  const brave = 'BSA-dashboard-key-Qw4Er6Ty8';
  fs.writeFileSync(file, `AUTH_TOKEN=dashboard-secret-test-token-0123456789\nBRAVE_API_KEY=${brave}\n`);
  const hub = await startHubProcess(h.home);
  const chromium = await launchChromium();
  try {
    const page = await chromium.browser.newPage();
    const bodies: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/') && !r.url().includes('/api/settings/secret/')) void r.text().then((t) => bodies.push(t), () => undefined);
    });
    await signIn(page, hub.url, hub.token);
    await page.goto(`${hub.url}/#/settings`);
    const field = page.locator('#setting-BRAVE_API_KEY');
    await field.waitFor();
    assert.equal(await field.inputValue(), '', 'the page never received the key');
    assert.equal(await field.getAttribute('type'), 'password');
    // Set with the field untouched changes nothing.
    await page.locator('[data-setting="BRAVE_API_KEY"]').getByRole('button', { name: 'Set' }).click();
    await page.locator('[data-setting="BRAVE_API_KEY"]').getByRole('button', { name: 'Show' }).click();
    await waitFor(async () => (await field.inputValue()) === brave, 'the key to be shown');
    assert.equal(await field.getAttribute('type'), 'text');
    await page.locator('[data-setting="BRAVE_API_KEY"]').getByRole('button', { name: 'Hide' }).click();
    await waitFor(async () => (await field.inputValue()) === '', 'the key to be hidden again');
    assert.match(fs.readFileSync(file, 'utf8'), new RegExp(`^BRAVE_API_KEY=${brave}$`, 'm'));
    assert.ok(bodies.length > 0);
    for (const b of bodies) assert.ok(!b.includes(brave) && !b.includes(hub.token), 'no other answer carried a secret');
  } finally {
    await chromium.close();
    await hub.stop();
    h.cleanup();
  }
});

const STRANGER = 12345;
const notRoot = notHere(onlyOn(['linux', 'darwin', 'freebsd'], 'POSIX owners and modes (Windows relies on the profile ACL)') ?? (IS_ROOT ? undefined : 'making files owned by another user (chown) takes root; this account is not'));

/** Every pincer command that opens the data folder refuses it, naming the path, the owner and what to do, and reads nothing from it. */
function assertRefused(home: string, culprit: string, token?: string, owner = STRANGER): void {
  for (const args of [['token'], ['status'], ['serve', '--quiet'], ['stdio', '--standalone']]) {
    const r = spawnSync(process.execPath, [PINCER_BIN, ...args], { env: pincerEnv(home, { HTTP_PORT: 'auto' }), cwd: path.dirname(home), encoding: 'utf8', timeout: WAIT_MS, input: '' });
    assert.equal(r.status, 1, `pincer ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`${culprit} belongs to ${owner === 0 ? 'root (uid 0)' : `uid ${owner}`}, not to you (uid ${process.getuid!()})`), `pincer ${args.join(' ')} (${culprit}): ${r.stderr} ${r.stdout}`);
    assert.match(r.stderr, /run commands as you, so Pincer will not use it\. (Use a folder of your own|Remove it)/);
    if (token) assert.ok(!r.stdout.includes(token), 'the planted token was not used');
  }
  assert.ok(!fs.existsSync(path.join(home, 'hub.json')), 'no hub started');
}

test('a data folder another user owns, or a file in it another user owns or planted as a link, is refused with a message naming it', { skip: notRoot }, () => {
  const h = tempHome();
  try {
    // 1. The whole folder made by someone else (who waits for the victim to use it).
    const home = path.join(h.home, 'theirs');
    fs.mkdirSync(home, { mode: 0o755 });
    fs.writeFileSync(path.join(home, 'pincer-env.txt'), 'AUTH_TOKEN=planted-by-the-other-user-0123456789\nBASH_SHELL=/tmp/evil\n');
    fs.chownSync(home, STRANGER, STRANGER);
    assertRefused(home, home, 'planted-by-the-other-user-0123456789');

    // 2. The folder is the user's, the settings file in it is not.
    const mine = path.join(h.home, 'mine');
    fs.mkdirSync(mine, { mode: 0o700 });
    const settings = path.join(mine, 'pincer-env.txt');
    fs.writeFileSync(settings, 'AUTH_TOKEN=swapped-by-the-other-user-0123456789\n', { mode: 0o600 });
    fs.chownSync(settings, STRANGER, STRANGER);
    assertRefused(mine, settings, 'swapped-by-the-other-user-0123456789');

    // 3. A link planted in the user's folder by someone else is not followed.
    fs.rmSync(settings);
    const elsewhere = path.join(h.home, 'elsewhere.txt');
    fs.writeFileSync(elsewhere, 'AUTH_TOKEN=through-a-planted-link-0123456789\n');
    fs.symlinkSync(elsewhere, settings);
    fs.lchownSync(settings, STRANGER, STRANGER);
    assertRefused(mine, settings, 'through-a-planted-link-0123456789');

    // 4. The user's own link to a file someone else owns: what it points at counts.
    fs.rmSync(settings);
    fs.symlinkSync(elsewhere, settings);
    fs.chownSync(elsewhere, STRANGER, STRANGER);
    assertRefused(mine, `${elsewhere} (linked from ${settings})`, 'through-a-planted-link-0123456789');

    // 5. A job's file planted in a jobs folder that was left open to everyone.
    fs.rmSync(settings);
    const jobs = path.join(mine, 'jobs');
    fs.mkdirSync(jobs);
    fs.chmodSync(jobs, 0o777);
    const planted = path.join(jobs, '7.exit');
    fs.writeFileSync(planted, '0\n');
    fs.chownSync(planted, STRANGER, STRANGER);
    assertRefused(mine, planted);

    // Once the stranger's file is gone, the same folder works, tightened.
    fs.rmSync(planted);
    const token = pincer(mine, ['token']);
    assert.equal(token.status, 0, token.err);
    assert.equal(fs.statSync(jobs).mode & 0o777, 0o700);
  } finally {
    h.cleanup();
  }
});

// The same refusal where the suite runs as an ordinary account (GitHub's runners, most developers):
// a folder root owns is someone else's, and nothing needs chown to show it.
test('as an ordinary account, a data folder root owns is refused with a message naming it', { skip: notHere(onlyOn(['linux', 'darwin', 'freebsd'], 'POSIX owners') ?? (IS_ROOT ? 'this account is root, which owns every such folder; the chown test above covers it' : undefined)) }, () => {
  const rootOwned = '/usr/share';
  assert.equal(fs.statSync(rootOwned).uid, 0);
  assertRefused(rootOwned, rootOwned, undefined, 0);
});

test('a data folder the user owns but left group- or world-writable is tightened, not refused, and used', { skip: notHere(process.platform === 'win32' && 'POSIX modes') }, async () => {
  const h = tempHome();
  try {
    const home = path.join(h.home, 'open');
    fs.mkdirSync(home);
    fs.chmodSync(home, 0o777);
    for (const dir of ['jobs', 'logs', 'skills']) {
      fs.mkdirSync(path.join(home, dir));
      fs.chmodSync(path.join(home, dir), 0o775);
    }
    fs.writeFileSync(path.join(home, 'pincer-env.txt'), 'AUTH_TOKEN=open-folder-token-0123456789abcdef\n');
    fs.chmodSync(path.join(home, 'pincer-env.txt'), 0o666);
    const hub = await startHubProcess(home);
    try {
      assert.equal((await fetch(`${hub.url}/api/settings`, { headers: hub.headers() })).status, 200);
      for (const [p, mode] of [['.', 0o700], ['jobs', 0o700], ['logs', 0o700], ['skills', 0o700], ['pincer-env.txt', 0o600]] as const) {
        assert.equal(fs.statSync(path.join(home, p)).mode & 0o777, mode, `${p} tightened`);
      }
    } finally {
      await hub.stop();
    }
  } finally {
    h.cleanup();
  }
});

test('Windows: a data folder outside the user profile (which gives it a private ACL) is warned about', async () => {
  const { outsideProfileWarning } = await import('../main/core/ownership.js');
  assert.equal(outsideProfileWarning('C:\\Users\\Ann\\.pincer', 'C:\\Users\\Ann', 'win32'), undefined);
  assert.equal(outsideProfileWarning('c:\\users\\ann\\AppData\\pincer', 'C:\\Users\\Ann', 'win32'), undefined, 'case does not matter on Windows');
  assert.match(outsideProfileWarning('D:\\shared\\pincer', 'C:\\Users\\Ann', 'win32')!, /The data folder D:\\shared\\pincer is outside your user profile \(C:\\Users\\Ann\).*Move it under your profile/);
  assert.ok(outsideProfileWarning('C:\\Users\\Annabel\\.pincer', 'C:\\Users\\Ann', 'win32'), 'a sibling profile is not inside');
  assert.equal(outsideProfileWarning('/srv/pincer', '/home/ann', 'linux'), undefined, 'POSIX checks owners and modes instead');
});

test('the tray app neither serves from nor shows the hub of a data folder another user owns', { skip: notRoot }, async () => {
  const h = tempHome();
  const home = path.join(h.home, 'data');
  fs.mkdirSync(home, { mode: 0o700 });
  const restore = isolateHome(h.home);
  // The other user runs a hub there, which proves itself with that folder's hub-secret: theirs.
  const theirs = await startHubProcess(home);
  fs.chownSync(home, STRANGER, STRANGER);
  const fake = new FakeElectron();
  try {
    const desk = (await startDesktop(fake.api(), { home, platform: 'linux' }))!;
    assert.equal(desk.hub, undefined);
    assert.equal(desk.state(), 'error');
    assert.match(desk.facts().error ?? '', new RegExp(`Pincer's data folder ${home} belongs to uid ${STRANGER}, not to you`));
    desk.dashboard.open();
    const loaded = fake.windows.flatMap((w) => w.urls);
    assert.ok(!loaded.some((u) => u.startsWith(theirs.url)), `the window opened their hub: ${loaded.join(', ')}`);
    await desk.quit();
  } finally {
    await theirs.stop();
    restore();
    h.cleanup();
  }
});
