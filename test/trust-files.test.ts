/**
 * Issue 23, written as the attacks on what Pincer keeps on disk: settings edits that would lock the
 * user out, a data folder someone else owns, and secrets leaving the hub in clear.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startHubProcess, tokenOf } from './helpers/hub.js';
import { tempHome, pincerEnv, PINCER_BIN } from './helpers/env.js';

function pincer(home: string, args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [PINCER_BIN, ...args], { env: pincerEnv(home), cwd: home, encoding: 'utf8', timeout: 30_000 });
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
    const login = await fetch(`${hub.url}/api/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) });
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
