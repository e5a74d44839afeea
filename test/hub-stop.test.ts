import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import { PINCER_BIN, pincerEnv, tempHome, waitFor } from './helpers/env.js';
import { startHubProcess } from './helpers/hub.js';
import { signHandover, homeSecret } from '../main/hub/identity.js';
import { pincerPaths } from '../main/core/paths.js';

/** `pincer stop`, run to its end: its exit code and what it printed. */
function pincerStop(home: string): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PINCER_BIN, 'stop'], { env: pincerEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d));
    child.stderr!.on('data', (d: Buffer) => (out += d));
    child.on('close', (status) => resolve({ status, out }));
  });
}

test('pincer stop asks the hub with a signed request (the same on every OS): a call in flight finishes, then the hub exits', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { PINCER_LOG_LEVEL: 'info' });
  try {
    const started = path.join(h.home, 'started');
    const gate = path.join(h.home, 'gate');
    const command = `touch ${started}; while [ ! -e ${gate} ]; do sleep 0.05; done; echo finished-while-draining`;
    const inFlight = fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'Bash', arguments: { command } }) }).then((r) => r.json() as Promise<{ structuredContent: { output: string } }>);
    // The call is under way when the stop arrives, and still running while the hub drains (its health says so).
    await waitFor(() => fs.existsSync(started), 'the call to be under way');
    const stopping = pincerStop(h.home);
    await waitFor(async () => (await fetch(`${hub.url}/api/mcp/health`)).status === 503, 'the hub to drain');
    fs.writeFileSync(gate, '');
    const stopped = await stopping;
    assert.equal(stopped.status, 0, stopped.out);
    assert.match(stopped.out, new RegExp(`Stopped the Pincer hub \\(pid ${hub.child.pid}, headless\\)`));
    assert.equal((await inFlight).structuredContent.output, 'finished-while-draining\n', 'the call in flight got its answer');
    await waitFor(() => hub.child.exitCode !== null, 'the hub to exit');
    assert.equal(hub.child.exitCode, 0);
    assert.equal(hub.child.signalCode, null, 'no signal: it stopped on the request');
    const log = fs.readFileSync(path.join(h.home, 'logs', 'hub.log'), 'utf8');
    assert.match(log, /stopped at the request of pid \d+/);
    assert.equal(fs.existsSync(path.join(h.home, 'hub.json')), false);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a stop request signed with another secret, or a handover signature relabelled as a stop, is refused and the hub serves on', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const post = (body: unknown) => fetch(`${hub.url}/api/hub/handover`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const base = { pid: process.pid, role: 'headless' as const, force: false, at: Date.now() };
    const forged = signHandover(crypto.randomBytes(32), { ...base, stop: true, nonce: crypto.randomBytes(24).toString('base64url') });
    assert.equal((await post(forged)).status, 403);
    const secret = homeSecret(pincerPaths(h.home))!;
    // A real handover's MAC does not cover a stop (and the reverse): one cannot be turned into the other.
    const handover = signHandover(secret, { ...base, nonce: crypto.randomBytes(24).toString('base64url') });
    assert.equal((await post({ ...handover, stop: true })).status, 403);
    assert.ok((await fetch(`${hub.url}/api/mcp/health`)).ok, 'the hub still serves');
    assert.equal(hub.child.exitCode, null);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
