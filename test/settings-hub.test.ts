/**
 * Settings against the real hub: keys named like
 * Object.prototype members, the settings editor dropping AUTH_TOKEN, values
 * with control or separator characters, and project warnings on the dashboard.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startHubProcess, readHubJson, stopHubOf } from './helpers/hub.js';
import { connectV2, textOf } from './helpers/clients.js';
import { launchChromium, signIn } from './helpers/browser.js';
import { tempHome, waitFor, pidAlive, pincerEnv, PINCER_BIN, WAIT_MS } from './helpers/env.js';
import { startHub } from '../main/hub/hub.js';

const TOKEN = 'settings-hub-test-token-0123456789';
const PROTO_KEYS = 'constructor=1\ntoString=1\n__proto__=1\nhasOwnProperty=1\n';

function pincer(home: string, args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [PINCER_BIN, ...args], { env: pincerEnv(home), cwd: home, encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

interface SettingsBody {
  diagnostics: { file: string; line: number; key?: string; severity: string; message: string }[];
}

test('keys named like Object.prototype members in the user file never stop the hub, and every pincer command works', async () => {
  const h = tempHome();
  const file = path.join(h.home, 'pincer-env.txt');
  fs.writeFileSync(file, `AUTH_TOKEN=${TOKEN}\n${PROTO_KEYS}`);
  try {
    const hub = await startHubProcess(h.home);
    const auth = { Authorization: `Bearer ${TOKEN}` };
    // The same lines arriving while it runs (the watcher's reload was where it fell over).
    fs.appendFileSync(file, 'valueOf=1\nisPrototypeOf=1\nTOOL_BASH=true\n');
    const body = await waitFor(async () => {
      const b = (await (await fetch(`${hub.url}/api/settings`, { headers: auth })).json()) as SettingsBody;
      return b.diagnostics.some((d) => d.key === 'isPrototypeOf') ? b : undefined;
    }, 'the hub to re-read the file');
    const warned = body.diagnostics.filter((d) => d.file === file).map((d) => [d.line, d.key, d.severity]);
    assert.deepEqual(warned, [
      [2, 'constructor', 'warning'],
      [3, 'toString', 'warning'],
      [4, '__proto__', 'warning'],
      [5, 'hasOwnProperty', 'warning'],
      [6, 'valueOf', 'warning'],
      [7, 'isPrototypeOf', 'warning'],
    ]);
    assert.equal((await fetch(`${hub.url}/api/mcp/health`)).status, 200);
    assert.ok(pidAlive(hub.child.pid!));

    assert.equal(pincer(h.home, ['--version']).status, 0);
    const status = pincer(h.home, ['status']);
    assert.equal(status.status, 0, status.err);
    assert.match(status.out, new RegExp(`at ${hub.url.replace(/[.]/g, '\\.')}`));
    const token = pincer(h.home, ['token']);
    assert.equal(token.status, 0, token.err);
    assert.equal(token.out.trim(), TOKEN);

    const bridge = await connectV2({ home: h.home, args: ['stdio'] });
    try {
      assert.equal(textOf(await bridge.client.callTool({ name: 'Bash', arguments: { command: 'echo through-the-hub' } })), 'through-the-hub');
    } finally {
      await bridge.client.close();
    }
    const standalone = await connectV2({ home: h.home, args: ['stdio', '--standalone'] });
    try {
      assert.equal(textOf(await standalone.client.callTool({ name: 'Bash', arguments: { command: 'echo in-process' } })), 'in-process');
    } finally {
      await standalone.client.close();
    }
    const connect = pincer(h.home, ['connect', 'cursor']);
    assert.equal(connect.status, 0, connect.err);
    assert.equal(pincer(h.home, ['disconnect', 'cursor']).status, 0);

    const rotate = pincer(h.home, ['token', 'rotate']);
    assert.equal(rotate.status, 0, rotate.err);
    const rotated = rotate.out.split('\n')[0]!.trim();
    await waitFor(async () => (await fetch(`${hub.url}/api/settings`, { headers: { Authorization: `Bearer ${rotated}` } })).ok, 'the hub to take the rotated token');
    assert.match(fs.readFileSync(file, 'utf8'), /^constructor=1$/m, 'the rotation kept the other lines');

    const stop = pincer(h.home, ['stop']);
    assert.equal(stop.status, 0, stop.err);
    await waitFor(() => hub.child.exitCode !== null, 'the hub to exit');
    assert.equal(readHubJson(h.home), undefined);
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('the settings API refuses to drop or empty AUTH_TOKEN and refuses control or separator characters, saving nothing', async () => {
  const h = tempHome();
  const file = path.join(h.home, 'pincer-env.txt');
  const original = `# mine\nAUTH_TOKEN=${TOKEN}\nUSER_AGENT_SEARCH=good agent\n`;
  fs.writeFileSync(file, original);
  const hub = await startHubProcess(h.home);
  try {
    const send = async (method: string, route: string, payload: unknown) => {
      const res = await fetch(`${hub.url}${route}`, { method, headers: hub.headers(), body: JSON.stringify(payload) });
      return { status: res.status, body: (await res.json()) as { success: boolean; error?: { message: string }; code?: string; errors?: { line: number; message: string }[] } };
    };
    for (const text of ['# mine\nUSER_AGENT_SEARCH=good agent\n', `AUTH_TOKEN=\nUSER_AGENT_SEARCH=x\n`, `AUTH_TOKEN=${TOKEN}\nAUTH_TOKEN=   \n`]) {
      const r = await send('PUT', '/api/settings/file', { text });
      assert.equal(r.status, 400, text);
      assert.equal(r.body.code, 'TOKEN_REQUIRED');
      assert.match(r.body.error!.message, /AUTH_TOKEN cannot be removed or emptied.*Nothing was saved\./);
    }
    const emptied = await send('POST', '/api/settings/key', { key: 'AUTH_TOKEN', value: '' });
    assert.deepEqual([emptied.status, emptied.body.code], [400, 'TOKEN_REQUIRED']);

    const sep = await send('PUT', '/api/settings/file', { text: `AUTH_TOKEN=${TOKEN}\nUSER_AGENT_SEARCH=evil\u2028agent\n` });
    assert.equal(sep.status, 400);
    assert.equal(sep.body.code, 'SETTING_VALUE_INVALID');
    assert.equal(sep.body.errors?.[0]?.line, 2);
    assert.match(sep.body.errors![0]!.message, /USER_AGENT_SEARCH=evil<U\+2028>agent: contains the invisible character U\+2028 \(LINE SEPARATOR\)/);
    for (const value of ['evil\u2028agent', 'a\u2029b', 'nel\u0085x', 'nul\u0000x', 'esc\u001b[31m']) {
      const r = await send('POST', '/api/settings/key', { key: 'USER_AGENT_SEARCH', value });
      assert.equal(r.status, 400, JSON.stringify(value));
      assert.equal(r.body.code, 'SETTING_VALUE_INVALID');
      assert.match(r.body.error!.message, /^USER_AGENT_SEARCH: contains the invisible character U\+[0-9A-F]{4}/);
    }
    assert.equal(fs.readFileSync(file, 'utf8'), original, 'nothing was written');
    assert.equal((await fetch(`${hub.url}/api/settings`, { headers: hub.headers() })).status, 200, 'the token still works');

    const ok = await send('PUT', '/api/settings/file', { text: `${original}STREAMING=false\n` });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a project view\'s refused lines reach the dashboard, naming file and line', async () => {
  const h = tempHome();
  const repo = path.join(h.home, 'repo');
  const projectFile = path.join(repo, '.pincer', 'pincer-env.txt');
  fs.mkdirSync(path.dirname(projectFile), { recursive: true });
  fs.writeFileSync(projectFile, 'BASH_TIMEOUT_MS=1000\nAUTH_TOKEN=attacker\n');
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `AUTH_TOKEN=${TOKEN}\n`);
  const hub = await startHub({ home: h.home, env: { HTTP_PORT: 'auto' } });
  const chromium = await launchChromium();
  try {
    // What the call path does for a client working in `repo`.
    const view = hub.runtime.settings.forProject(repo);
    assert.equal(view.get('BASH_TIMEOUT_MS'), 1000);
    assert.equal(view.get('AUTH_TOKEN'), TOKEN);
    const body = (await (await fetch(`${hub.url}/api/settings`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as SettingsBody & { projectFiles: string[] };
    assert.deepEqual(body.projectFiles, [projectFile]);
    const warning = body.diagnostics.find((d) => d.file === projectFile);
    assert.deepEqual([warning?.line, warning?.key, warning?.severity], [2, 'AUTH_TOKEN', 'warning']);
    assert.match(warning!.message, /a project cannot set AUTH_TOKEN/);

    const page = await chromium.browser.newPage();
    await signIn(page, hub.url, TOKEN);
    await page.goto(`${hub.url}/#/settings`);
    await page.locator('ul.diag li', { hasText: `${projectFile} line 2: AUTH_TOKEN=(hidden): a project cannot set AUTH_TOKEN` }).waitFor();

    // The editor refuses a file without the token, and says why.
    const editor = page.locator('#settings-file');
    await editor.fill('# no token here\nSTREAMING=false\n');
    await page.locator('#save-settings').click();
    await page.locator('ul.diag li', { hasText: 'AUTH_TOKEN cannot be removed or emptied' }).waitFor();
    assert.match(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'), new RegExp(`^AUTH_TOKEN=${TOKEN}$`, 'm'));
  } finally {
    await chromium.close();
    await hub.close();
    h.cleanup();
  }
});

test('the settings editor masks every line of a secret key, duplicates and commented-out ones too, and saving its text keeps the secrets', async () => {
  // Security review: only the last line of each secret key was masked; earlier duplicates and `# KEY=value` lines showed in clear.
  const h = tempHome();
  const file = path.join(h.home, 'pincer-env.txt');
  const secrets = ['BSA-commented-old-key-111', 'tvly-commented-key-222', 'BSA-first-duplicate-333', 'BSA-effective-key-444', 'marg-lowercase-555'];
  const original =
    `# an old key, kept for later\n# BRAVE_API_KEY=${secrets[0]}\n#TAVILY_API_KEY = ${secrets[1]} # trial\n` +
    `AUTH_TOKEN=${TOKEN}\nBRAVE_API_KEY=${secrets[2]}\nUSER_AGENT_SEARCH=agent # not secret\nBRAVE_API_KEY=${secrets[3]}\n# marginalia_api_key=${secrets[4]}\n`;
  fs.writeFileSync(file, original);
  const hub = await startHubProcess(h.home);
  try {
    const res = await fetch(`${hub.url}/api/settings`, { headers: hub.headers() });
    assert.equal(res.status, 200);
    const raw = await res.text();
    for (const secret of [TOKEN, ...secrets]) assert.ok(!raw.includes(secret), `GET /api/settings holds ${secret}`);
    const text = (JSON.parse(raw) as { text: string }).text;
    assert.equal(text.split('\n').filter((l) => l.includes('(hidden: use Show beside the key)')).length, 6, text);
    assert.match(text, /^USER_AGENT_SEARCH=agent # not secret$/m, 'other lines are shown as they are');

    // Saving the editor's text back, with one unrelated edit, keeps every secret line as it was.
    const put = await fetch(`${hub.url}/api/settings/file`, { method: 'PUT', headers: hub.headers(), body: JSON.stringify({ text: `${text}STREAMING=false\n` }) });
    assert.equal(put.status, 200, await put.text());
    assert.equal(fs.readFileSync(file, 'utf8'), `${original}STREAMING=false\n`);
    const shown = (await (await fetch(`${hub.url}/api/settings/secret/BRAVE_API_KEY`, { headers: hub.headers() })).json()) as { value: string };
    assert.equal(shown.value, secrets[3], 'the effective key is still the last line');
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
