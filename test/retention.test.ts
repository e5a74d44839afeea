import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createRuntime, type Runtime } from '../main/calls/runtime.js';
import { McpTasksRepo } from '../main/store/mcp-tasks.js';
import { openStore } from '../main/store/db.js';
import { startHubProcess } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';
import { seedYear, type SeedCounts } from './helpers/year-seed.js';

const DAY = 86_400_000;
const SMALL: SeedCounts = { jobs: 400, activity: 20_000, tasks: 400, mcpTasks: 200, questions: 200, callbacks: 40, plans: 40 };

/** Runs retention passes until one leaves nothing more to do (each pass is bounded). */
function prune(rt: Runtime): void {
  for (let i = 0; i < 50; i++) if (!rt.retention.run(Date.now(), true).more) return;
  assert.fail('retention still had work after 50 passes');
}

/** pincer.db's own size once its write-ahead log is folded in. */
function fileBytes(home: string, db?: Database.Database): number {
  db?.pragma('wal_checkpoint(TRUNCATE)');
  return fs.statSync(path.join(home, 'pincer.db')).size;
}

test('retention deletes what is past its limits with its files, never what still runs or waits, and gives the space back', async () => {
  const h = tempHome();
  // A year of jobs, tasks, questions, callbacks and plans; MCP tasks whose time to live has passed.
  seedYear(h.home, { counts: SMALL, logScale: 1, mcpTtlMs: 1 });
  const rt = createRuntime({
    home: h.home,
    watch: false,
    role: 'hub',
    env: { ACTIVITY_MAX_CALLS: '100', JOB_MAX_KEPT: '50', JOB_MAX_KEPT_BYTES: String(2 * 1024 * 1024), JOB_RETENTION_DAYS: '30', TASK_RETENTION_DAYS: '90', QUESTION_RETENTION_DAYS: '30', CALLBACK_RETENTION_DAYS: '30', PLAN_RETENTION_DAYS: '90' },
  });
  const s = rt.services;
  try {
    // What must survive however old: a running job, an open task, a waiting question, an active callback.
    const running = s.jobs.start('echo still-here; sleep 60').job;
    const oldOpen = s.todos.create('an open task from last year', Date.now() - 400 * DAY);
    const waiting = s.questions.insert({ questions: [{ question: 'still waiting?' }], purpose: 'ask', at: Date.now() - 400 * DAY });
    const active = s.callbacks.insert({ message: 'still active', delayS: 3600, repeatTotal: -1, max: 8, at: Date.now() - 400 * DAY })!;
    const before = fileBytes(h.home, s.db);
    const jobFiles = () => fs.readdirSync(s.paths.jobsDir).length;
    const filesBefore = jobFiles();

    prune(rt);

    const kept = rt.retention.kept();
    assert.ok(kept.jobs.ended <= 50, `${kept.jobs.ended} ended jobs kept`);
    assert.ok(kept.jobs.logBytes <= 2 * 1024 * 1024, `${kept.jobs.logBytes} bytes of logs kept`);
    const db = s.db;
    const oldestEnded = (db.prepare(`SELECT MIN(ended_at) AS t FROM jobs WHERE status NOT IN ('starting','running')`).get() as { t: number }).t;
    assert.ok(oldestEnded >= Date.now() - 30 * DAY, 'no ended job older than JOB_RETENTION_DAYS');
    // The files of deleted jobs go with them (off the hub's thread, so waited for); the kept ones still have theirs.
    const ids = new Set((db.prepare('SELECT id FROM jobs').all() as { id: number }[]).map((r) => r.id));
    const strays = () => fs.readdirSync(s.paths.jobsDir).filter((f) => !ids.has(Number(f.split('.')[0])));
    await waitFor(() => strays().length === 0, `the deleted jobs' files to go (${strays().slice(0, 3).join(', ')} …)`);
    assert.ok(jobFiles() < filesBefore / 4, `${jobFiles()} files left of ${filesBefore}`);
    for (const id of ids) assert.ok(fs.existsSync(path.join(s.paths.jobsDir, `${id}.log`)), `kept job ${id} has its log`);
    assert.equal(s.jobs.repo.get(running.id)?.status, 'running');
    assert.ok(fs.existsSync(running.log_path));
    // Tasks: no finished task older than TASK_RETENTION_DAYS; every open one, however old.
    const finishedOld = (db.prepare('SELECT COUNT(*) AS n FROM tasks WHERE completed_at IS NOT NULL AND completed_at < ?').get(Date.now() - 90 * DAY) as { n: number }).n;
    assert.equal(finishedOld, 0);
    assert.ok(s.todos.get(oldOpen.id));
    assert.ok(s.todos.counts().open >= 2);
    assert.equal(s.questions.get(waiting.id)?.status, 'pending');
    assert.ok((db.prepare('SELECT COUNT(*) AS n FROM questions WHERE status != ? AND answered_at < ?').get('pending', Date.now() - 30 * DAY) as { n: number }).n === 0);
    assert.equal(s.callbacks.get(active.id)?.status, 'active');
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM callback_fires WHERE fired_at < ?').get(Date.now() - 30 * DAY) as { n: number }).n, 0);
    assert.ok(s.plans.current(), 'the newest plan stays');
    assert.equal(kept.mcpTasks.ended, 0, 'MCP tasks past their time to live are gone');
    // The space came back: a new file gives pages back as rows go.
    assert.equal(kept.store.incremental, true);
    const after = fileBytes(h.home, s.db);
    assert.ok(after < before * 0.6, `pincer.db ${before} -> ${after} bytes`);
    await s.jobs.kill(running.id);
  } finally {
    rt.close();
    h.cleanup();
  }
});

test('a running hub prunes while it runs, not only when it starts: ended jobs past JOB_MAX_KEPT, MCP tasks past their time to live', { timeout: 180_000 }, async () => {
  const h = tempHome();
  seedYear(h.home, { counts: { ...SMALL, jobs: 120, mcpTasks: 0 }, logScale: 0.1 });
  const hub = await startHubProcess(h.home, { JOB_MAX_KEPT: '10' });
  try {
    const kept = async () => (await (await fetch(`${hub.url}/api/kept`, { headers: hub.headers() })).json()) as { jobs: { ended: number }; mcpTasks: { ended: number } };
    await waitFor(async () => (await kept()).jobs.ended <= 10, 'the hub to prune ended jobs down to JOB_MAX_KEPT', 60_000);
    // Finished MCP tasks written after the hub started (its start-up reconcile is past): gone on a later pass.
    const store = openStore(path.join(h.home, 'pincer.db'));
    const repo = new McpTasksRepo(store.db);
    for (let i = 0; i < 20; i++) {
      repo.create({ id: `late-${i}`, tool: 'Bash', requestor: 'a-client', owner: 'elsewhere', ttlMs: 1 });
      repo.settle(`late-${i}`, 'completed', { result: { content: [] } });
    }
    store.db.close();
    assert.equal((await kept()).mcpTasks.ended, 20);
    await waitFor(async () => (await kept()).mcpTasks.ended === 0, 'the running hub to expire the finished MCP tasks', 90_000);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
