import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { tempHome, waitFor, PINCER_BIN, pincerEnv, pidAlive } from './helpers/env.js';
import { osFreePort } from './helpers/ports.js';
import { tokenOf } from './helpers/hub.js';

test('pincer serve --port/--host: a one-off listen address; the banner names the dashboard and where the token is; commands do not see the override', async () => {
  const h = tempHome();
  const port = await osFreePort();
  const child = spawn(process.execPath, [PINCER_BIN, 'serve', '--port', String(port), '--host', '127.0.0.1'], { env: pincerEnv(h.home), cwd: h.home, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitFor(() => out.includes('Press Ctrl+C'), 'the banner');
    const lines = out.split('\n');
    assert.equal(lines[0], `Pincer hub listening on ${url}`);
    assert.ok(lines.includes(`Dashboard: ${url}/ (open it in a browser and sign in with the token)`), out);
    const settingsFile = path.join(h.home, 'pincer-env.txt');
    assert.ok(lines.some((l) => l.startsWith(`Token: kept as AUTH_TOKEN in ${settingsFile}; "pincer token" prints it`)), out);
    assert.ok(out.includes(`Bearer ${tokenOf(h.home)}`), 'the token itself is in the client config it prints');
    assert.ok((await fetch(`${url}/api/mcp/health`)).ok);
    assert.doesNotMatch(fs.readFileSync(settingsFile, 'utf8'), /^HTTP_(PORT|HOST)=/m, 'the settings file is left as it was');
    const r = await fetch(`${url}/api/mcp/tools/call`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenOf(h.home)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Bash', arguments: { command: 'echo "port=${HTTP_PORT:-unset} host=${HTTP_HOST:-unset}"' } }),
    });
    const body = (await r.json()) as { content: { text: string }[] };
    assert.equal(body.content[0]!.text, 'port=unset host=unset');
  } finally {
    child.kill('SIGTERM');
    await waitFor(() => child.exitCode !== null || !pidAlive(child.pid!), 'the hub to stop', 15_000);
    h.cleanup();
  }
});

test('pincer serve --port with something that is not a port: says what to give, exit 2, nothing started', () => {
  const h = tempHome();
  try {
    const r = spawnSync(process.execPath, [PINCER_BIN, 'serve', '--port', '99999'], { env: pincerEnv(h.home), encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'pincer serve: --port "99999" is not a port: give a number from 1 to 65535, or "auto" for a free one (HTTP_PORT in pincer-env.txt sets it for every run).\n');
    assert.ok(!fs.existsSync(path.join(h.home, 'hub.json')));
  } finally {
    h.cleanup();
  }
});
