import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { LiveRuns } from '../main/tools/shell/live-runs.js';
import { UserError } from '../main/core/errors.js';

/**
 * What the job view of a running Bash call reads and stops (main/tools/shell/live-runs.ts), in-process: the
 * newest megabyte of output kept, read in windows that never cut a character and start earlier parts at a
 * line start, and a Kill that signals only a shell the OS still shows as the one started, leading its group.
 */

const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `€ line ${from + i} ${'x'.repeat((from + i) % 40)}\n`).join('');

test('the newest megabyte is kept; windows join into what was written, never cutting a character', () => {
  const runs = new LiveRuns();
  const run = runs.start({ session: 's', command: 'c', cwd: '/', pid: 1, stop: () => assert.fail('not stopped here') });
  const text = lines(1, 60_000);
  const bytes = Buffer.from(text);
  // Chunks as pipes hand them over: any size, cut anywhere (inside characters too).
  for (let i = 0, n = 1; i < bytes.length; i += n, n = 1 + ((n * 7919) % 65_536)) run.push(bytes.subarray(i, i + n));
  assert.equal(run.size, bytes.length);
  assert.ok(run.floor > 0 && bytes.length - run.floor >= 1024 * 1024 && bytes.length - run.floor < 1024 * 1024 + 65_536, `kept ${bytes.length - run.floor}`);
  // Read back from the end to the first kept line start: the parts join into the written bytes.
  const parts: string[] = [];
  let w = run.window({}, 64 * 1024);
  assert.equal(w.to, bytes.length);
  while (w.to > w.from) {
    parts.unshift(w.text);
    assert.ok(w.from === run.floor || bytes[w.from - 1] === 0x0a, 'each part starts at a line start');
    w = run.window({ before: w.from }, 50_000);
  }
  const first = bytes.length - Buffer.byteLength(parts.join(''));
  assert.ok(first >= run.floor && first - run.floor < 200, 'read back to the first line start kept');
  assert.equal(parts.join(''), bytes.subarray(first).toString());
  // From an offset inside a character: the window starts after it; below the floor: at the floor.
  const inside = bytes.indexOf('€', run.floor + 10) + 1;
  assert.equal(run.window({ from: inside }, 100).from, inside + 2);
  assert.ok(run.window({ from: 0 }, 100).from >= run.floor);
  assert.ok(!run.window({ from: inside }, 100).text.includes('\uFFFD'));
});

test('readers are told of new output and of the end; ended runs are forgotten past the newest twenty', () => {
  const runs = new LiveRuns();
  const ids = Array.from({ length: 25 }, (_, i) => runs.start({ session: 's', command: `c${i}`, cwd: '/', pid: 1, stop: () => undefined }));
  let told = 0;
  const off = ids[24]!.onChange(() => told++);
  ids[24]!.push(Buffer.from('a'));
  ids[24]!.push(Buffer.from('b'));
  off();
  ids[24]!.push(Buffer.from('c'));
  assert.equal(told, 2);
  assert.equal(runs.newestOf('s', 'c3')?.id, ids[3]!.id);
  assert.equal(runs.newestOf('other', 'c3'), undefined);
  for (const r of ids) r.end({ code: 0, signal: null, at: Date.now() });
  assert.equal(runs.get(ids[4]!.id), undefined, 'the oldest ended runs are gone');
  assert.equal(runs.get(ids[5]!.id)?.id, ids[5]!.id, 'the newest twenty stay a while');
});

test('Kill signals only a shell that is still the one started and leads its own group', async () => {
  const runs = new LiveRuns();
  // Not detached: the child is in this test's process group and leads none of its own.
  const plain = spawn('sleep', ['30'], { stdio: 'ignore' });
  const leader = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
  try {
    let stopped = 0;
    const notLeader = runs.start({ session: 's', command: 'a', cwd: '/', pid: plain.pid!, stop: () => stopped++ });
    assert.throws(() => notLeader.stop(), (err: unknown) => err instanceof UserError && err.code === 'CONFLICT' && /can no longer be proven to be the command's; nothing was signalled/.test(err.message));
    const own = runs.start({ session: 's', command: 'b', cwd: '/', pid: leader.pid!, stop: () => stopped++ });
    own.identify();
    own.stop();
    assert.equal(stopped, 1, 'the group leader started for the call is stopped');
    own.exited = true;
    assert.throws(() => own.stop(), (err: unknown) => err instanceof UserError && err.code === 'CONFLICT' && /already ended/.test(err.message));
    assert.equal(stopped, 1);
  } finally {
    plain.kill();
    leader.kill();
    await Promise.all([once(plain, 'exit'), once(leader, 'exit')]);
  }
});
