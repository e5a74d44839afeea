import type { Db } from './db.js';

export interface DashboardSessionRow {
  key_hash: string;
  created_at: number;
  /** Null until first used after sign-in (and for rows older than migration 6). */
  last_used_at: number | null;
  /** Which token the session was opened under (an HMAC of it); null for rows older than migration 6. */
  token_tag: string | null;
}

/**
 * Signed-in dashboards, by the SHA-256 of their id and key (never the values
 * themselves), so a dashboard stays signed in across a hub restart and a copy
 * of pincer.db signs nobody in.
 */
export class DashboardSessionsRepo {
  constructor(private db: Db) {}

  get(idHash: string): DashboardSessionRow | undefined {
    return this.db.prepare('SELECT key_hash, created_at, last_used_at, token_tag FROM dashboard_sessions WHERE id_hash = ?').get(idHash) as DashboardSessionRow | undefined;
  }

  insert(idHash: string, keyHash: string, tokenTag: string, max: number, now = Date.now()): void {
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO dashboard_sessions (id_hash, key_hash, created_at, last_used_at, token_tag) VALUES (?, ?, ?, ?, ?)').run(idHash, keyHash, now, now, tokenTag);
      this.db.prepare('DELETE FROM dashboard_sessions WHERE rowid IN (SELECT rowid FROM dashboard_sessions ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)').run(max);
    }).immediate();
  }

  touch(idHash: string, now: number): void {
    this.db.prepare('UPDATE dashboard_sessions SET last_used_at = ? WHERE id_hash = ?').run(now, idHash);
  }

  /** Sessions past either limit or opened under another token: removed, and their hashes returned. */
  deleteEnded(tokenTag: string, idleBefore: number, createdBefore: number): string[] {
    // Read first: the sweep runs every few seconds and nearly always finds nothing, so it takes no write lock then.
    const where = 'token_tag IS NULL OR token_tag <> ? OR created_at <= ? OR COALESCE(last_used_at, created_at) <= ?';
    const ended = (this.db.prepare(`SELECT id_hash FROM dashboard_sessions WHERE ${where}`).all(tokenTag, createdBefore, idleBefore) as { id_hash: string }[]).map((r) => r.id_hash);
    if (ended.length === 0) return [];
    const remove = this.db.prepare(`DELETE FROM dashboard_sessions WHERE id_hash = ? AND (${where})`);
    return this.db.transaction(() => ended.filter((id) => remove.run(id, tokenTag, createdBefore, idleBefore).changes > 0)).immediate();
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
