import type Database from 'better-sqlite3';

type Db = Database.Database;

// Preparing compiles the SQL each time (~tens of µs); the repositories run the same
// few statements on every tool call, so each connection keeps the ones it has compiled.
const byDb = new WeakMap<Db, Map<string, Database.Statement>>();

/** The compiled statement for `sql` on `db`, compiled on first use and reused after. */
export function prepared(db: Db, sql: string): Database.Statement {
  let cache = byDb.get(db);
  if (!cache) {
    cache = new Map();
    byDb.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}

/**
 * SQLite's `PRAGMA data_version`: changes whenever another connection (another Pincer process on the
 * same data folder) committed to the database, and never for this connection's own writes. A repo
 * that keeps what it read in memory checks it instead of reading again, and forgets what it kept on
 * each of its own writes.
 */
export function dataVersion(db: Db): number {
  return (prepared(db, 'PRAGMA data_version').get() as { data_version: number }).data_version;
}
