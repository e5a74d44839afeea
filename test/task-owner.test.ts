import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { newTaskOwner, ownerRunning } from '../main/calls/task-owner.js';
import { processStartTime } from '../main/core/process-identity.js';

// Who runs an MCP task (calls/task-owner.ts): the hub leaves a live standalone's tasks alone, takes
// every other hub's as stopped, and never trusts a pid whose start time differs (a reused pid).

test('a task owner is running while its process is, as the hub and a standalone see it', { skip: process.platform === 'win32' ? 'start times are POSIX here' : false }, async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    const hub = newTaskOwner('hub');
    const standalone = newTaskOwner('standalone', child.pid);
    assert.match(standalone, new RegExp(`^[0-9a-f-]{36} ${child.pid} \\S.* standalone$`));
    assert.equal(ownerRunning(standalone, hub), true, 'a live standalone process keeps its tasks');
    assert.equal(ownerRunning(standalone, standalone), false, 'its own tasks are not "another live process"');
    assert.equal(ownerRunning(newTaskOwner('hub', child.pid), hub), false, 'a hub counts every other hub as stopped');
    assert.equal(ownerRunning(newTaskOwner('hub', child.pid), newTaskOwner('standalone')), true, 'a standalone does not');
    // The same pid with another start time is another process (a reused pid); a start written with spaces (macOS `ps -o lstart`) is parsed whole.
    const uuid = standalone.split(' ')[0];
    assert.equal(ownerRunning(`${uuid} ${child.pid} Wed Nov 25 21:00:00 2026 standalone`, hub), false);
    assert.equal(ownerRunning(`${uuid} ${child.pid} ${processStartTime(child.pid!)} standalone`, hub), true);
    // An owner without a pid and start (a bare UUID) names no process: stopped.
    assert.equal(ownerRunning(uuid!, hub), false);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.equal(ownerRunning(standalone, hub), false, "once the process has ended its tasks are the hub's to reconcile");
  } finally {
    child.kill('SIGKILL');
  }
});
