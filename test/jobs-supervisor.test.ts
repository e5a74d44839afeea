import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { connectV2, textOf, bgRead } from './helpers/clients.js';
import { tempHome, waitFor, pidAlive } from './helpers/env.js';

const posixOnly = process.platform === 'win32' ? 'POSIX process groups and /proc' : false;

type Started = { task_id: number; pid: number };
type Read = { status: string; output: string; exit_code: number | null };

/** A PATH holding only the named programs (symlinks), so that a test can take perl (or bash) away. */
function onlyPrograms(dir: string, names: string[]): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const name of names) {
    const real = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
    fs.symlinkSync(real, path.join(dir, name));
  }
  return dir;
}

test('with no perl on PATH the log cap holds: 3 MB of output, 100 kB kept, the dropped bytes noted', { skip: posixOnly }, async () => {
  const h = tempHome();
  const bin = onlyPrograms(path.join(h.home, 'bin'), ['bash', 'head', 'tr']);
  const { client } = await connectV2({ home: h.home, env: { PATH: bin, JOB_LOG_MAX_BYTES: '102400' } });
  try {
    const noPerl = await client.callTool({ name: 'Bash', arguments: { command: 'command -v perl || echo no-perl' } });
    assert.match(textOf(noPerl), /no-perl/);
    const started = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'head -c 3000000 /dev/zero | tr "\\0" y; exit 7' } });
    const { task_id: id } = started.structuredContent as Started;
    let total = 0;
    const done = await waitFor(async () => {
      const r = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 1000, max_bytes: 1048576 } });
      total += bgRead(r).output.length;
      return bgRead(r).status !== 'running' ? textOf(r) : undefined;
    }, 'the job to end');
    assert.equal(total, 102400, 'exactly the cap was kept');
    assert.match(done, /exited 7/);
    assert.match(done, /output beyond 102400 bytes was dropped \(JOB_LOG_MAX_BYTES\): 2\.\d MB not kept/);
    assert.equal(fs.statSync(path.join(h.home, 'jobs', `${id}.log`)).size, 102400);
  } finally {
    await client.close();
    h.cleanup();
  }
});

test('KillBgTask stops the whole tree and says how: terminated, or killed after 3 s when it ignores the request', { skip: posixOnly }, async () => {
  const h = tempHome();
  const { client } = await connectV2({ home: h.home });
  try {
    // Two grandchildren in the background; their pids come out in the log.
    const a = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'sleep 300 & echo "child $!"; sleep 300 & echo "child $!"; wait' } });
    const idA = (a.structuredContent as Started).task_id;
    let out = '';
    await waitFor(async () => {
      out += bgRead(await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: idA, wait_ms: 1000 } })).output;
      return (out.match(/child \d+/g) ?? []).length === 2;
    }, 'both children to start');
    const children = [...out.matchAll(/child (\d+)/g)].map((m) => Number(m[1]));
    const killedA = await client.callTool({ name: 'KillBgTask', arguments: { task_id: idA } });
    assert.ok(!killedA.isError, textOf(killedA));
    assert.match(textOf(killedA), new RegExp(`Killed task ${idA} .* and every process it started: terminated`));
    assert.equal((killedA.structuredContent as { forced: boolean }).forced, false);
    await waitFor(() => children.every((p) => !pidAlive(p)), 'the grandchildren to be gone');

    const b = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'trap "" TERM; echo armed; while :; do sleep 0.1; done' } });
    const idB = (b.structuredContent as Started).task_id;
    await waitFor(async () => bgRead(await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: idB, wait_ms: 1000 } })).output.includes('armed'), 'the trap');
    const killedB = await client.callTool({ name: 'KillBgTask', arguments: { task_id: idB } });
    assert.match(textOf(killedB), /killed after 3(\.\d)? s: it did not stop when asked/);
    assert.equal((killedB.structuredContent as { forced: boolean }).forced, true);
    const listed = textOf(await client.callTool({ name: 'ListBgTasks', arguments: {} }));
    assert.match(listed, new RegExp(`\\b${idA}\\s+killed`));
    assert.match(listed, new RegExp(`\\b${idB}\\s+killed`));
  } finally {
    await client.close();
    h.cleanup();
  }
});

test('after the hub and a job\'s supervisor die, a stranger at the recorded pid is reported lost and never signalled', { skip: posixOnly }, async () => {
  const h = tempHome();
  const stranger = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  try {
    const first = await connectV2({ home: h.home });
    const started = await first.client.callTool({ name: 'BackgroundBash', arguments: { command: 'sleep 300' } });
    const { task_id: id, pid } = started.structuredContent as Started;
    const runFile = path.join(h.home, 'jobs', `${id}.run`);
    const run = await waitFor(() => (fs.existsSync(runFile) ? (JSON.parse(fs.readFileSync(runFile, 'utf8')) as { supervisorPid: number; shellPid: number; supervisorStart: string }) : undefined), 'the run record');
    assert.equal(run.supervisorPid, pid);
    // The hub, the supervisor and the shell all die; nobody writes an exit file.
    process.kill(first.transport.pid!, 'SIGKILL');
    process.kill(-run.supervisorPid, 'SIGKILL');
    await waitFor(() => !pidAlive(run.supervisorPid) && !pidAlive(run.shellPid), 'the job to die');
    await first.client.close().catch(() => undefined);
    // The stranger gets the pids (what pid reuse does): the records keep the old start times.
    fs.writeFileSync(runFile, JSON.stringify({ ...run, supervisorPid: stranger.pid, shellPid: stranger.pid }));
    const db = new Database(path.join(h.home, 'pincer.db'));
    db.prepare('UPDATE jobs SET pid = ? WHERE id = ?').run(stranger.pid, id);
    db.close();

    const second = await connectV2({ home: h.home });
    try {
      const killed = await second.client.callTool({ name: 'KillBgTask', arguments: { task_id: id } });
      assert.equal(killed.isError, true);
      assert.match(textOf(killed), new RegExp(`task ${id} already lost`));
      assert.ok(pidAlive(stranger.pid!), 'the stranger was not signalled');
      assert.equal(stranger.exitCode, null);
      assert.equal(stranger.signalCode, null);
    } finally {
      await second.client.close();
    }
  } finally {
    stranger.kill('SIGKILL');
    h.cleanup();
  }
});

test('a job started by one hub is stopped by the next one, which adopted it after a SIGKILL', { skip: posixOnly }, async () => {
  const h = tempHome();
  try {
    const first = await connectV2({ home: h.home });
    const started = await first.client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo up; sleep 300' } });
    const { task_id: id, pid } = started.structuredContent as Started;
    process.kill(first.transport.pid!, 'SIGKILL');
    await first.client.close().catch(() => undefined);
    const second = await connectV2({ home: h.home });
    try {
      const read = await second.client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 5000 } });
      assert.match(textOf(read), /up/);
      const killed = await second.client.callTool({ name: 'KillBgTask', arguments: { task_id: id } });
      assert.match(textOf(killed), /terminated/);
      await waitFor(() => !pidAlive(pid), 'the supervisor to end');
    } finally {
      await second.client.close();
    }
  } finally {
    h.cleanup();
  }
});

test('a supervisor that wrote no run record is known by its command line: its group is stopped, a stranger at a recorded pid is not', { skip: posixOnly }, async () => {
  const h = tempHome();
  const jobs = path.join(h.home, 'jobs');
  const wrapperExit = path.join(jobs, '1.exit');
  // In the process table a supervisor names its job's spec file: <node> job-supervisor.js <id>.spec.
  const wrapper = spawn('bash', ['-c', 'sleep 300; exit 0', 'job-supervisor.js', path.join(jobs, '1.spec')], { detached: true, stdio: 'ignore' });
  const stranger = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  try {
    const first = await connectV2({ home: h.home });
    await first.client.close();
    const db = new Database(path.join(h.home, 'pincer.db'));
    const insert = db.prepare(`INSERT INTO jobs (id, command, cwd, pid, status, started_at, log_path, exit_path) VALUES (?, 'sleep 300', ?, ?, 'running', ?, ?, ?)`);
    insert.run(1, h.home, wrapper.pid, Date.now(), path.join(jobs, '1.log'), wrapperExit);
    insert.run(2, h.home, stranger.pid, Date.now(), path.join(jobs, '2.log'), path.join(jobs, '2.exit'));
    db.close();
    const second = await connectV2({ home: h.home });
    try {
      const killed = await second.client.callTool({ name: 'KillBgTask', arguments: { task_id: 1 } });
      assert.match(textOf(killed), /Killed task 1 .*terminated/);
      await waitFor(() => wrapper.exitCode !== null || wrapper.signalCode !== null, 'the supervisor without a run record to stop');
      const lost = await second.client.callTool({ name: 'KillBgTask', arguments: { task_id: 2 } });
      assert.match(textOf(lost), /task 2 already lost/);
      assert.ok(pidAlive(stranger.pid!), 'the stranger was not signalled');
    } finally {
      await second.client.close();
    }
  } finally {
    wrapper.kill('SIGKILL');
    stranger.kill('SIGKILL');
    h.cleanup();
  }
});
