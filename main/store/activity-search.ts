import type { Db } from './db.js';
import { prepared } from './statements.js';
import { trigramQuery } from './search.js';

/**
 * Activity's text search index, filled off the call path: the rows past the `activity_indexed` mark are
 * indexed a batch at a time (Activity calls `indexSome` while the hub is quiet), and a search reads the
 * unindexed newest rows by scanning and the rest through the index. Indexing each call as it is written
 * would cost the hub ~150 µs a call (bench/RESULTS.md, "A year of use"). Triggers (migration 8) keep the
 * index right for indexed rows that change (a long call finishing) or go (pruned).
 */
const MARK = 'activity_indexed';
const BODY = "tool || ' ' || args || ' ' || COALESCE(summary, '') || ' ' || COALESCE(client, '')";

export function indexedUpTo(db: Db): number {
  const r = prepared(db, 'SELECT CAST(value AS INTEGER) AS v FROM kv WHERE key = ?').get(MARK) as { v: number } | undefined;
  return r?.v ?? 0;
}

/** Indexes up to `limit` rows past the mark, in one transaction; returns how many it indexed. */
export function indexSome(db: Db, limit: number): number {
  return db.transaction(() => {
    const from = indexedUpTo(db);
    const top = (prepared(db, 'SELECT MAX(rowid) AS top FROM (SELECT rowid FROM tool_calls WHERE rowid > ? ORDER BY rowid LIMIT ?)').get(from, limit) as { top: number | null }).top;
    if (top === null) return 0;
    const n = prepared(db, `INSERT INTO tool_calls_search (rowid, body) SELECT rowid, ${BODY} FROM tool_calls WHERE rowid > ? AND rowid <= ?`).run(from, top).changes;
    prepared(db, 'INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(MARK, String(top));
    return n;
  }).immediate();
}

/** Rows past the mark (not yet indexed): what a search scans. */
export function unindexed(db: Db): number {
  return (prepared(db, 'SELECT COUNT(*) AS n FROM tool_calls WHERE rowid > ?').get(indexedUpTo(db)) as { n: number }).n;
}

/**
 * A text search's rows, newest first by row: the unindexed newest rows scanned, then the index's
 * candidates, each checked with `where` (the exact match and the other filters, on columns of `c`).
 * `beforeSeq`: only rows older than it (the next page). At most `limit`.
 */
export function searchRows(db: Db, q: string, where: string[], params: (string | number)[], limit: number, beforeSeq?: number): Record<string, unknown>[] {
  const mark = indexedUpTo(db);
  const cond = [...where, ...(beforeSeq !== undefined ? ['c.rowid < ?'] : [])];
  const condParams = [...params, ...(beforeSeq !== undefined ? [beforeSeq] : [])];
  const tail = prepared(db, `SELECT c.rowid AS seq, c.* FROM tool_calls c WHERE c.rowid > ? AND ${cond.join(' AND ')} ORDER BY c.rowid DESC LIMIT ?`).all(mark, ...condParams, limit) as Record<string, unknown>[];
  const match = trigramQuery(q);
  if (tail.length >= limit) return tail;
  if (!match) {
    // Shorter than a trigram: the index cannot name candidates; the indexed rows are scanned too.
    return [...tail, ...(prepared(db, `SELECT c.rowid AS seq, c.* FROM tool_calls c WHERE c.rowid <= ? AND ${cond.join(' AND ')} ORDER BY c.rowid DESC LIMIT ?`).all(mark, ...condParams, limit - tail.length) as Record<string, unknown>[])];
  }
  const indexed = prepared(
    db,
    `SELECT c.rowid AS seq, c.* FROM tool_calls_search s JOIN tool_calls c ON c.rowid = s.rowid WHERE tool_calls_search MATCH ? AND s.rowid <= ? AND ${cond.join(' AND ')} ORDER BY s.rowid DESC LIMIT ?`,
  ).all(match, mark, ...condParams, limit - tail.length) as Record<string, unknown>[];
  return [...tail, ...indexed];
}

/** How many rows a text search matches, up to `cap` (the scanned tail and the index's candidates). */
export function searchCount(db: Db, q: string, where: string[], params: (string | number)[], cap: number): number {
  const mark = indexedUpTo(db);
  const tail = (prepared(db, `SELECT COUNT(*) AS n FROM (SELECT 1 FROM tool_calls c WHERE c.rowid > ? AND ${where.join(' AND ')} LIMIT ?)`).get(mark, ...params, cap + 1) as { n: number }).n;
  const match = trigramQuery(q);
  if (tail > cap) return tail;
  const rest = match
    ? `SELECT 1 FROM tool_calls_search s JOIN tool_calls c ON c.rowid = s.rowid WHERE tool_calls_search MATCH ? AND s.rowid <= ? AND ${where.join(' AND ')} LIMIT ?`
    : `SELECT 1 FROM tool_calls c WHERE c.rowid <= ? AND ${where.join(' AND ')} LIMIT ?`;
  const restParams = match ? [match, mark, ...params, cap + 1 - tail] : [mark, ...params, cap + 1 - tail];
  return tail + (prepared(db, `SELECT COUNT(*) AS n FROM (${rest})`).get(...restParams) as { n: number }).n;
}
