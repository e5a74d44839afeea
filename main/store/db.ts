import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS, LATEST_VERSION, type Migration } from './migrations.js';
import { logger } from '../core/log.js';
import { ensurePrivateFile } from '../core/paths.js';

const log = logger('store');

export type Db = Database.Database;

export interface OpenedStore {
  db: Db;
  /** True when the file was written by a newer Pincer: nothing may be written. */
  readOnly: boolean;
  version: number;
  warning?: string;
}

/**
 * Opens `pincer.db`: WAL so readers never block the writer, synchronous=FULL so an acknowledged
 * write survives power loss, a busy timeout so two Pincer processes wait for each other instead of
 * failing, foreign keys on.
 */
export function openStore(file: string, migrations: Migration[] = MIGRATIONS): OpenedStore {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // SQLite creates files 0644; made 0600 first, the -wal and -shm files follow its mode.
  ensurePrivateFile(file);
  const latest = migrations.length ? Math.max(...migrations.map((m) => m.version)) : 0;
  let db = new Database(file);
  configure(db);
  const current = userVersion(db);
  if (current > latest) {
    db.close();
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const warning = `${file} was written by a newer Pincer (database version ${current}, this Pincer knows ${latest}). It is opened read-only and nothing will be saved: update Pincer.`;
    log.warn(warning);
    return { db, readOnly: true, version: current, warning };
  }
  migrate(db, migrations);
  return { db, readOnly: false, version: userVersion(db) };
}

function configure(db: Db): void {
  db.pragma('busy_timeout = 10000');
  // A new file gives pages back as retention deletes rows (store/space.ts); only possible before its first table.
  if (db.pragma('page_count', { simple: true }) === 0) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  // FULL: a commit returns only once the WAL is on disk, so a job, task, plan, callback or question
  // the hub acknowledged survives a power cut (NORMAL could drop the last commits; test/durability.test.ts). The
  // cost, one fsync per write transaction, is in bench/RESULTS.md ("Durability"). On macOS fsync does
  // not flush the drive's cache; F_FULLFSYNC (fullfsync) does.
  db.pragma('synchronous = FULL');
  if (process.platform === 'darwin') db.pragma('fullfsync = ON');
  db.pragma('foreign_keys = ON');
}

function userVersion(db: Db): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

function migrate(db: Db, migrations: Migration[]): void {
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    // IMMEDIATE takes the write lock first, so two processes starting together
    // cannot both apply the same migration.
    db.transaction(() => {
      const done = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version);
      if (done) return;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
      log.info(`applied migration ${m.version}: ${m.name}`);
    }).immediate();
  }
}

export { LATEST_VERSION };
