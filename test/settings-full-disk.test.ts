import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PINCER_BIN, pincerEnv, waitFor, pidAlive } from './helpers/env.js';
import { osFreePort } from './helpers/ports.js';

// A full disk under the settings file, for real: the hub runs with its data folder on a small tmpfs
// mounted in its own user and mount namespaces (unshare), and Bash fills it.
const namespaces = spawnSync('unshare', ['-rm', 'true']).status === 0;

test('a settings edit on a full disk is refused naming the full disk (507), the file is unchanged, and the next edit after space is freed works', { skip: namespaces ? false : 'needs unshare -rm (user and mount namespaces) to mount a small tmpfs as the data folder' }, async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-full-'));
  const port = await osFreePort();
  const token = 'full-disk-test-token-0123456789abcdef';
  const script = `mount -t tmpfs -o size=4m,mode=0700 pincer-full "$PINCER_HOME" && exec "$0" "$@"`;
  const child = spawn('unshare', ['-rm', 'sh', '-c', script, process.execPath, PINCER_BIN, 'serve', '--quiet'], {
    env: pincerEnv(home, { HTTP_PORT: String(port), AUTH_TOKEN: token }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const call = async (name: string, args: Record<string, unknown>) => (await (await fetch(`${url}/api/mcp/tools/call`, { method: 'POST', headers, body: JSON.stringify({ name, arguments: args }) })).json()) as { content: { text: string }[] };
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`the hub exited ${child.exitCode}: ${err}`);
      return (await fetch(`${url}/api/mcp/health`).catch(() => undefined))?.ok;
    }, 'the hub on its tmpfs to answer');
    const setKey = (value: string) => fetch(`${url}/api/settings/key`, { method: 'POST', headers, body: JSON.stringify({ key: 'BASH_TIMEOUT_MS', value }) });
    assert.equal((await setKey('120000')).status, 200);
    // Fill the disk (the command fails once it is full), then edit a setting.
    const filled = await call('Bash', { command: 'head -c 8000000 /dev/zero > "$PINCER_HOME/filler"; df -k "$PINCER_HOME" | tail -1' });
    assert.match(filled.content.map((c) => c.text).join(''), /100%/);
    const refused = await setKey('130000');
    assert.equal(refused.status, 507);
    const body = (await refused.json()) as { code: string; error: { message: string } };
    assert.equal(body.code, 'SETTINGS_DISK_FULL');
    assert.match(body.error.message, /^The settings were not saved: the disk holding .*pincer-env\.txt is full\. Free some space and save again; the file is unchanged\.$/);
    // A switch on the Tools page writes the same file: the same answer, never an internal error.
    const toggled = await fetch(`${url}/api/tools/WebSearch`, { method: 'POST', headers, body: JSON.stringify({ enabled: false }) });
    assert.equal(toggled.status, 507);
    assert.equal(((await toggled.json()) as { code: string }).code, 'SETTINGS_DISK_FULL');
    const file = await call('Bash', { command: 'rm -f "$PINCER_HOME/filler"; grep BASH_TIMEOUT_MS "$PINCER_HOME/pincer-env.txt"; ls "$PINCER_HOME" | grep -c "\\.tmp$" || true' });
    assert.match(file.content.map((c) => c.text).join(''), /^BASH_TIMEOUT_MS=120000\n0\s*$/, 'the old value is kept and no temporary file is left');
    assert.equal((await setKey('140000')).status, 200);
    assert.ok(pidAlive(child.pid!));
  } finally {
    child.kill('SIGTERM');
    await waitFor(() => child.exitCode !== null, 'the hub to exit').catch(() => child.kill('SIGKILL'));
    fs.rmSync(home, { recursive: true, force: true });
  }
});
