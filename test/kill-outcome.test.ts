import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { signalGroup } from '../main/tools/shell/process.js';
import { processStartTime } from '../main/core/process-identity.js';
import { pidAlive } from '../main/core/pid.js';
import { tempHome, waitFor } from './helpers/env.js';

/**
 * A kill is recorded as done only when it was: signalling a job's process group says whether the
 * signal was delivered, found nothing, or was refused — and a lost job whose leftovers could not be
 * stopped says so instead of "stopped".
 */

const posixOnly = process.platform === 'win32' ? 'POSIX process groups' : false;
const here = path.dirname(fileURLToPath(import.meta.url));
const NOBODY = 65534;
const asRoot = posixOnly || (process.getuid?.() !== 0 ? 'acting as a second user (setpriv) needs root' : false);

test('signalling a group: sent to one that is there, gone when none is', { skip: posixOnly }, async () => {
  const p = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  try {
    assert.equal(signalGroup(p.pid!, 'SIGKILL'), 'sent');
    await waitFor(() => p.signalCode === 'SIGKILL', 'the group to die');
    assert.equal(signalGroup(p.pid!, 'SIGKILL'), 'gone');
  } finally {
    p.kill('SIGKILL');
  }
});

test("a signal the system refuses is named as refused, and the group lives on", { skip: asRoot }, async () => {
  const victim = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  try {
    const out = execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '--input-type=module', '-e',
      `import { signalGroup } from ${JSON.stringify(path.join(here, '..', 'main', 'tools', 'shell', 'process.js'))}; process.stdout.write(JSON.stringify(signalGroup(${victim.pid}, 'SIGKILL')));`], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), { refused: `SIGKILL to process group ${victim.pid}: EPERM` });
    assert.ok(pidAlive(victim.pid!));
  } finally {
    victim.kill('SIGKILL');
  }
});

test('a lost job whose leftover commands cannot be signalled is not recorded as having stopped them', { skip: asRoot }, async () => {
  const h = tempHome();
  // Another user's process, leading its group, named by the lost job's run file as its still-running shell.
  const victim = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  try {
    fs.chownSync(h.home, NOBODY, NOBODY);
    const start = processStartTime(victim.pid!);
    assert.ok(start, "the other user's process has a start time");
    const out = execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, path.join(here, 'helpers', 'lose-worker.js'), h.home, String(victim.pid), start], {
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, HOME: h.home },
      timeout: 120_000,
    });
    const job = JSON.parse(out) as { status: string; note: string };
    assert.equal(job.status, 'lost');
    assert.match(job.note, new RegExp(`the commands it left running could not be stopped \\(SIGKILL to process group ${victim.pid}: EPERM\\)`));
    assert.doesNotMatch(job.note, /were stopped/);
    assert.ok(pidAlive(victim.pid!), 'nothing was stopped');
  } finally {
    victim.kill('SIGKILL');
    h.cleanup();
  }
});
