import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openStore } from '../main/store/db.js';
import { MIGRATIONS } from '../main/store/migrations.js';
import { JobsRepo } from '../main/store/jobs.js';
import { McpTasksRepo, workOf } from '../main/store/mcp-tasks.js';
import { tempHome } from './helpers/env.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

test('migrations run once each, are recorded, and WAL + foreign keys are on', () => {
  const { home, cleanup } = tempHome();
  try {
    const file = path.join(home, 'pincer.db');
    const first = openStore(file);
    assert.equal(first.readOnly, false);
    assert.equal(first.db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(first.db.pragma('foreign_keys', { simple: true }), 1);
    assert.ok(Number(first.db.pragma('busy_timeout', { simple: true })) >= 5000);
    const rows = first.db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as { version: number }[];
    assert.deepEqual(rows.map((r) => r.version), MIGRATIONS.map((m) => m.version));
    first.db.close();
    const again = openStore(file);
    assert.equal((again.db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n, MIGRATIONS.length);
    again.db.close();
  } finally {
    cleanup();
  }
});

test('a failing migration leaves no trace: its transaction is rolled back', () => {
  const { home, cleanup } = tempHome();
  try {
    const file = path.join(home, 'pincer.db');
    const broken = [...MIGRATIONS, { version: 999, name: 'broken', sql: 'CREATE TABLE half (x INTEGER); INSERT INTO nope VALUES (1);' }];
    assert.throws(() => openStore(file, broken), /no such table: nope/);
    const db = new Database(file);
    assert.equal(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'half'`).get(), undefined);
    assert.equal(db.prepare('SELECT 1 FROM schema_migrations WHERE version = 999').get(), undefined);
    db.close();
  } finally {
    cleanup();
  }
});

test('a database from a newer Pincer is opened read-only with a clear message and never written', () => {
  const { home, cleanup } = tempHome();
  try {
    const file = path.join(home, 'pincer.db');
    openStore(file).db.close();
    const raw = new Database(file);
    raw.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(9999, 'from the future', Date.now());
    raw.close();
    const opened = openStore(file);
    assert.equal(opened.readOnly, true);
    assert.match(opened.warning!, /newer Pincer .*read-only.*update Pincer/);
    assert.throws(() => opened.db.prepare('DELETE FROM jobs').run(), /readonly/i);
    opened.db.close();
  } finally {
    cleanup();
  }
});

test('two processes updating the same row lose no update', async () => {
  const { home, cleanup } = tempHome();
  try {
    const file = path.join(home, 'pincer.db');
    const { db } = openStore(file);
    const job = new JobsRepo(db).insert({ command: 'x', cwd: home, logPath: () => 'l', exitPath: () => 'e' });
    const worker = path.join(here, 'helpers', 'store-worker.js');
    const results = await Promise.all([1, 2].map(() => run(process.execPath, [worker, file, String(job.id), '300'])));
    for (const r of results) assert.equal(JSON.parse(r.stdout).done, 300);
    assert.equal(new JobsRepo(db).get(job.id)!.read_offset, 600);
    db.close();
  } finally {
    cleanup();
  }
});

test('migration 5 gives a version-4 database the mcp_tasks work column; the repo records and finds the work a task outlives the hub through', () => {
  const { home, cleanup } = tempHome();
  try {
    const file = path.join(home, 'pincer.db');
    // A database as a Pincer with migrations 1–4 left it, with a task already in it.
    const old = openStore(file, MIGRATIONS.filter((m) => m.version <= 4));
    old.db.prepare(`INSERT INTO mcp_tasks (id, tool, status, owner, created_at, updated_at, ttl_ms) VALUES ('old', 'WebSearch', 'working', 'gone', 1, 1, 1000)`).run();
    old.db.close();
    const store = openStore(file);
    const repo = new McpTasksRepo(store.db);
    assert.equal(repo.get('old')?.work, null);
    assert.equal(workOf(repo.get('old')!), undefined);
    repo.create({ id: 'j', tool: 'Bash', requestor: 'client:a', owner: 'me', ttlMs: 1000, work: { kind: 'job', id: 7 } });
    repo.create({ id: 'q', tool: 'AskUserQuestion', requestor: 'client:a', owner: 'me', ttlMs: 1000 });
    // A row from before migration 7 names no client and belongs to none; the live count is per client.
    assert.equal(repo.get('old')?.requestor, null);
    assert.equal(repo.liveCount('client:a'), 2);
    assert.equal(repo.liveCount('client:b'), 0);
    assert.ok(repo.setWork('q', { kind: 'question', id: 3 }));
    assert.deepEqual(workOf(repo.get('j')!), { kind: 'job', id: 7 });
    assert.deepEqual(repo.activeWithWork('job').map((t) => t.id), ['j']);
    assert.deepEqual(repo.activeWithWork('question').map((t) => t.id), ['q']);
    repo.settle('j', 'completed', { result: { content: [] } });
    assert.deepEqual(repo.activeWithWork('job'), []);
    // A shape this Pincer does not know (a newer one wrote it) is no work it can carry on.
    store.db.prepare(`UPDATE mcp_tasks SET work = '{"kind":"robot","id":1}' WHERE id = 'q'`).run();
    assert.equal(workOf(repo.get('q')!), undefined);
    assert.ok(repo.adopt('q', 'next'));
    assert.equal(repo.get('q')?.owner, 'next');
    store.db.close();
  } finally {
    cleanup();
  }
});
