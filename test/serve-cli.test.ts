import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { tempHome, waitFor, PINCER_BIN, pincerEnv, pidAlive } from './helpers/env.js';
import { osFreePort } from './helpers/ports.js';
import { tokenOf, readHubJson } from './helpers/hub.js';
import net from 'node:net';

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
    assert.ok(lines.some((l) => new RegExp(`^Dashboard: run "pincer dashboard" \\("npx pincer dashboard" in a checkout\\): it opens http://[0-9a-f]{32}\\.pincer\\.localhost:${new URL(url).port}/ in your browser, signed in\\.$`).test(l)), out);
    const settingsFile = path.join(h.home, 'pincer-env.txt');
    assert.ok(lines.some((l) => l.startsWith(`Token: kept as AUTH_TOKEN in ${settingsFile}; "pincer token" prints it`)), out);
    assert.ok(out.includes(`Bearer ${tokenOf(h.home)}`), 'the token itself is in the client config it prints');
    // The banner ends with the next step: the command that connects a client (npm start's last line).
    await waitFor(() => out.endsWith('connect claude-code\n'), 'the connect line');
    // `npx pincer` in the checkout, unless an `npm link`ed pincer on the PATH leads here (the checkout's own node_modules/.bin does not count).
    assert.match(out, /Next, connect your AI client \(claude-desktop, claude-code, cursor, vscode, windsurf, gemini, codex\); from then on it starts Pincer by itself\. In another terminal, or on the dashboard's Connect page:\n {2}(npx )?pincer connect claude-code\n$/);
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
    await waitFor(() => child.exitCode !== null || !pidAlive(child.pid!), 'the hub to stop');
    h.cleanup();
  }
});

test('pincer serve --port with something that is not a port: says what to give, exit 2, nothing started', () => {
  const h = tempHome();
  try {
    const r = spawnSync(process.execPath, [PINCER_BIN, 'serve', '--port', '99999'], { env: pincerEnv(h.home), encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'pincer serve: --port "99999" is not a port: give a number from 1 to 65535, or "auto" for a free one (HTTP_PORT in pincer-env.txt sets it for every run). Run "pincer help" for the usage.\n');
    assert.ok(!fs.existsSync(path.join(h.home, 'hub.json')));
  } finally {
    h.cleanup();
  }
});

test('pincer serve --quiet --port auto prints one line, the address it chose, and nothing else', async () => {
  const h = tempHome();
  const child = spawn(process.execPath, [PINCER_BIN, 'serve', '--quiet', '--port', 'auto'], { env: pincerEnv(h.home), cwd: h.home, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const info = await waitFor(() => readHubJson(h.home), 'the hub to write hub.json');
    await waitFor(() => out.includes('\n'), 'the address line');
    assert.equal(out, `${info.url}\n`);
    assert.ok((await fetch(`${out.trim()}/api/mcp/health`)).ok, 'the line is the address a script can use');
  } finally {
    child.kill('SIGTERM');
    await waitFor(() => child.exitCode !== null || !pidAlive(child.pid!), 'the hub to stop');
    h.cleanup();
  }
});

test("a hub that cannot get its predecessor's port after a handover says which port it wanted, which it took and why", async () => {
  const h = tempHome();
  const port = await osFreePort();
  // A gap exists only where the newcomer cannot listen beside the old hub (macOS, Windows: drain, release, listen);
  // PINCER_SHARE_PORT=0 takes that order here. On Linux the newcomer listens first and no one can take the port.
  const spawnServe = (args: string[]) => spawn(process.execPath, [PINCER_BIN, 'serve', ...args], { env: pincerEnv(h.home, { HTTP_PORT: 'auto', PINCER_SHARE_PORT: '0' }), cwd: h.home, stdio: ['ignore', 'pipe', 'pipe'] });
  const first = spawnServe(['--quiet', '--port', String(port)]);
  first.stdout.resume();
  let second: ReturnType<typeof spawnServe> | undefined;
  // Another program grabs the port the moment the first hub lets go of it (bounded: 2 000 tries, 15 ms apart).
  const squatter = net.createServer();
  let squatting = true;
  const tryListen = () =>
    new Promise<boolean>((resolve) => {
      const done = (got: boolean) => {
        squatter.removeAllListeners('error').removeAllListeners('listening');
        resolve(got);
      };
      squatter.once('error', () => done(false));
      squatter.once('listening', () => done(true));
      squatter.listen(port, '127.0.0.1');
    });
  let squat: Promise<boolean> = Promise.resolve(false);
  try {
    await waitFor(() => readHubJson(h.home)?.pid === first.pid, 'the first hub');
    squat = (async () => {
      for (let i = 0; i < 2000 && squatting; i++) {
        if (await tryListen()) return true;
        await new Promise((r) => setTimeout(r, 15));
      }
      return false;
    })();
    second = spawnServe([]);
    let err = '';
    second.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    second.stdout!.resume();
    const info = await waitFor(() => {
      const j = readHubJson(h.home);
      return j && j.pid === second!.pid ? j : undefined;
    }, 'the second hub');
    assert.ok(await squat, 'the squatter got the port');
    assert.notEqual(info.port, port);
    await waitFor(() => err.includes('need the new address'), 'the warning');
    assert.match(err, new RegExp(`The hub that handed over listened on port ${port}, but port ${port} on 127\\.0\\.0\\.1 is already in use( by [^;]+)? now; this hub listens on port ${info.port} instead \\(HTTP_PORT=auto: the first free port from 7717\\)\\. Clients configured with port ${port} need the new address\\.`));
  } finally {
    squatting = false;
    await squat;
    squatter.close();
    for (const c of [first, second]) {
      if (c?.pid && c.exitCode === null) c.kill('SIGTERM');
      if (c?.pid) await waitFor(() => c.exitCode !== null || !pidAlive(c.pid!), 'a hub to stop');
    }
    h.cleanup();
  }
});
