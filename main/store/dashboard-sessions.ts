import type { Db } from './db.js';

/**
 * Signed-in dashboards, by the SHA-256 of their id and key (never the values
 * themselves), so a dashboard stays signed in across a hub restart and a copy
 * of pincer.db signs nobody in.
 */
export class DashboardSessionsRepo {
  constructor(private db: Db) {}

  keyHash(idHash: string): string | undefined {
    return (this.db.prepare('SELECT key_hash FROM dashboard_sessions WHERE id_hash = ?').get(idHash) as { key_hash: string } | undefined)?.key_hash;
  }

  insert(idHash: string, keyHash: string, max: number): void {
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO dashboard_sessions (id_hash, key_hash, created_at) VALUES (?, ?, ?)').run(idHash, keyHash, Date.now());
      this.db.prepare('DELETE FROM dashboard_sessions WHERE rowid IN (SELECT rowid FROM dashboard_sessions ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)').run(max);
    }).immediate();
  }

  delete(idHash: string): boolean {
    return this.db.prepare('DELETE FROM dashboard_sessions WHERE id_hash = ?').run(idHash).changes > 0;
  }

  clear(): number {
    return this.db.prepare('DELETE FROM dashboard_sessions').run().changes;
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM dashboard_sessions').get() as { n: number }).n;
  }
}
