import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { configureLogging } from '../../main/core/log.js';
import { shutdownPath, type DrainStep, type ShutdownReason } from '../../main/hub/lifecycle.js';
import { tempHome } from '../helpers/env.js';

/*
 * The hub's one shutdown path (hub/lifecycle.ts), in-process: every way a hub ends passes its reason
 * to shutdown(reason); the drain is a named list run in order, a failing step logged by name and the
 * later ones run anyway. The process-level tests (handover, hub-stop, hub-home-watch, desktop) show
 * the same path end to end.
 */

function recorder(fail?: string) {
  const ran: string[] = [];
  const steps: DrainStep[] = ['forget hub.json', 'close sessions', 'release the lock'].map((name) => ({
    name,
    run: async () => {
      ran.push(name);
      if (name === fail) throw new Error(`${name} broke`);
    },
  }));
  const calls = { drained: 0, kept: 0 };
  const path = shutdownPath({
    drainCalls: async () => {
      calls.drained++;
      ran.push('drain calls');
      return { unfinished: 0 };
    },
    keepPendingQuestions: () => {
      calls.kept++;
      ran.push('keep questions');
    },
    steps,
  });
  return { ran, calls, path };
}

test('a handover drains calls, keeps questions, runs the steps in order and settles ended with its reason', async () => {
  const { ran, calls, path: p } = recorder();
  const reason: ShutdownReason = { kind: 'handover', to: { pid: 4242, role: 'desktop', shared: false } };
  assert.equal(p.started(), false);
  await p.shutdown(reason);
  assert.equal(p.started(), true);
  assert.deepEqual(ran, ['drain calls', 'keep questions', 'forget hub.json', 'close sessions', 'release the lock']);
  assert.deepEqual(await p.ended, reason);
  assert.deepEqual(calls, { drained: 1, kept: 1 });
});

test("the owner's close does not wait on calls or keep questions; the first reason wins and later ones share its end", async () => {
  const { ran, calls, path: p } = recorder();
  const first = p.shutdown({ kind: 'closed', by: 'SIGTERM' });
  const second = p.shutdown({ kind: 'stop-request', by: 99 });
  await Promise.all([first, second]);
  assert.deepEqual(ran, ['forget hub.json', 'close sessions', 'release the lock'], 'the steps ran once');
  assert.deepEqual(await p.ended, { kind: 'closed', by: 'SIGTERM' });
  assert.deepEqual(calls, { drained: 0, kept: 0 });
});

test('a step that fails is logged with its name and the later steps still run', async () => {
  const h = tempHome();
  try {
    configureLogging({ logsDir: h.home, fileName: 'hub.log', stderr: false });
    const { ran, path: p } = recorder('close sessions');
    await p.shutdown({ kind: 'home-lost', reason: 'the data folder was deleted' });
    assert.deepEqual(ran, ['drain calls', 'forget hub.json', 'close sessions', 'release the lock']);
    assert.deepEqual(await p.ended, { kind: 'home-lost', reason: 'the data folder was deleted' });
    const lines = fs.readFileSync(path.join(h.home, 'hub.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: string; msg: string; err?: { message: string } });
    const failed = lines.find((l) => l.msg.includes('"close sessions" failed'));
    assert.equal(failed?.level, 'warn');
    assert.equal(failed?.err?.message, 'close sessions broke', 'logged with its error');
    assert.ok(lines.some((l) => l.msg.startsWith('stopping: the data folder was deleted')), 'the reason is said first');
  } finally {
    configureLogging({ stderr: false });
    h.cleanup();
  }
});
