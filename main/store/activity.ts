import { z } from 'zod';
import type { Db } from './db.js';
import { prepared } from './statements.js';
import { indexSome, searchCount, searchRows, unindexed } from './activity-search.js';

export const CallRow = z.object({
  id: z.string(),
  tool: z.string(),
  session: z.string().nullable(),
  client: z.string().nullable(),
  args: z.string(),
  started_at: z.number(),
  ms: z.number().nullable(),
  is_error: z.number().nullable(),
  summary: z.string().nullable(),
});
export type CallRow = z.infer<typeof CallRow>;

export const ActivityFilter = z.object({
  tool: z.string().optional(),
  client: z.string().optional(),
  q: z.string().optional(),
  errors: z.boolean().optional(),
  from: z.number().optional(),
  to: z.number().optional(),
  limit: z.number().int().min(1).max(1000).default(200),
});
export type ActivityFilter = z.input<typeof ActivityFilter>;

/** Where a page of activity ended: the next page starts after this call (its start and row). */
export const ActivityCursor = z.object({ at: z.number(), seq: z.number().int() });
export type ActivityCursor = z.infer<typeof ActivityCursor>;

function conditions(f: z.output<typeof ActivityFilter>, t = ''): { where: string[]; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (f.tool) (where.push(`${t}tool = ?`), params.push(f.tool));
  if (f.client) (where.push(`${t}client = ?`), params.push(f.client));
  if (f.errors) where.push(`${t}is_error = 1`);
  if (f.from !== undefined) (where.push(`${t}started_at >= ?`), params.push(f.from));
  if (f.to !== undefined) (where.push(`${t}started_at < ?`), params.push(f.to));
  if (f.q) {
    // The exact match (the index only names candidates, store/activity-search.ts); LIKE is case-insensitive
    // for ASCII as lower() is, without building a lowered copy of every row.
    const like = `%${f.q.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    where.push(`(${t}tool LIKE ? ESCAPE '\\' OR ${t}args LIKE ? ESCAPE '\\' OR ${t}summary LIKE ? ESCAPE '\\' OR ${t}client LIKE ? ESCAPE '\\')`);
    params.push(like, like, like, like);
  }
  return { where, params };
}

export interface CallStarted {
  id: string;
  tool: string;
  session?: string;
  client?: string;
  args: string;
  at: number;
}

export interface CallFinished {
  id: string;
  ms: number;
  isError: boolean;
  summary: string;
}

export interface ToolTotals {
  tool: string;
  calls: number;
  errors: number;
}

/** A finished call's timing, for charts: when it started, how long it took. */
export interface Timing {
  tool: string;
  started_at: number;
  ms: number;
}

/**
 * Every tool call the hub served, in SQLite so Activity and the per-tool
 * statistics survive a restart. Bounded by age and by count (`prune`).
 */
export class ActivityRepo {
  constructor(private db: Db) {}

  started(c: CallStarted): void {
    prepared(this.db, 'INSERT OR IGNORE INTO tool_calls (id, tool, session, client, args, started_at) VALUES (?, ?, ?, ?, ?, ?)').run(c.id, c.tool, c.session ?? null, c.client ?? null, c.args, c.at);
  }

  private startedAndFinished(c: CallStarted, end: CallFinished): void {
    prepared(this.db, 'INSERT OR IGNORE INTO tool_calls (id, tool, session, client, args, started_at, ms, is_error, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(c.id, c.tool, c.session ?? null, c.client ?? null, c.args, c.at, end.ms, end.isError ? 1 : 0, end.summary);
  }

  finished(c: CallFinished): void {
    prepared(this.db, 'UPDATE tool_calls SET ms = ?, is_error = ?, summary = ? WHERE id = ?').run(c.ms, c.isError ? 1 : 0, c.summary, c.id);
  }

  /**
   * Many starts and finishes in one transaction, in the order they happened. A call whose start and
   * finish are both in the batch is written as one finished row: one INSERT instead of an INSERT and
   * an UPDATE through four indexes (most calls end before their start is written).
   */
  record(batch: ({ kind: 'started' } & CallStarted | { kind: 'finished' } & CallFinished)[]): void {
    const finishes = new Map<string, CallFinished>();
    for (const e of batch) if (e.kind === 'finished') finishes.set(e.id, e);
    // The activity log is a record for the person, not state a client was told is saved: its batches
    // skip the fsync every other commit waits for (db.ts); the next such commit carries them to disk.
    this.db.pragma('synchronous = NORMAL');
    try {
      this.writeBatch(batch, finishes);
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  private writeBatch(batch: Parameters<ActivityRepo['record']>[0], finishes: Map<string, CallFinished>): void {
    this.db.transaction(() => {
      for (const e of batch) {
        if (e.kind === 'started') {
          const end = finishes.get(e.id);
          if (end) {
            this.startedAndFinished(e, end);
            finishes.delete(e.id);
          } else {
            this.started(e);
          }
        } else if (finishes.has(e.id)) {
          this.finished(e);
        }
      }
    })();
  }

  get(id: string): CallRow | undefined {
    const r = this.db.prepare('SELECT * FROM tool_calls WHERE id = ?').get(id);
    return r ? CallRow.parse(r) : undefined;
  }

  /** Newest first. `q` matches tool, arguments, result and client, case-insensitively. */
  list(filter: ActivityFilter = {}): CallRow[] {
    return this.page(filter).rows;
  }

  /**
   * One page, newest first, from the cursor on (`before`: the `next` of the previous page), so that a page
   * deep in a long history costs what the first does.
   */
  page(filter: ActivityFilter = {}, before?: ActivityCursor): { rows: (CallRow & { seq: number })[]; next?: ActivityCursor } {
    const f = ActivityFilter.parse(filter);
    let raw: Record<string, unknown>[];
    if (f.q) {
      // A text search goes by row, newest first: the unindexed newest rows, then the index's candidates.
      const { where, params } = conditions(f, 'c.');
      raw = searchRows(this.db, f.q, where, params, f.limit + 1, before?.seq);
    } else {
      const { where, params } = conditions(f);
      if (before) (where.push('(started_at < ? OR (started_at = ? AND rowid < ?))'), params.push(before.at, before.at, before.seq));
      const sql = `SELECT rowid AS seq, * FROM tool_calls ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, rowid DESC LIMIT ?`;
      raw = prepared(this.db, sql).all(...params, f.limit + 1) as Record<string, unknown>[];
    }
    const more = raw.length > f.limit;
    const shown = more ? raw.slice(0, f.limit) : raw;
    const last = shown.at(-1);
    return { rows: shown.map((r) => ({ ...CallRow.parse(r), seq: Number(r.seq) })), ...(more && last ? { next: { at: Number(last.started_at), seq: Number(last.seq) } } : {}) };
  }

  /**
   * How many calls match, counted up to `cap`: a filter that matches most of a long history would read
   * every row it counts, so past the cap the count says "at least".
   */
  countMatching(filter: Omit<ActivityFilter, 'limit'>, cap: number): { n: number; capped: boolean } {
    const f = ActivityFilter.parse(filter);
    let n: number;
    if (f.q) {
      const { where, params } = conditions(f, 'c.');
      n = searchCount(this.db, f.q, where, params, cap);
    } else {
      const { where, params } = conditions(f);
      if (where.length === 0) return { n: this.count(), capped: false };
      n = (prepared(this.db, `SELECT COUNT(*) AS n FROM (SELECT 1 FROM tool_calls WHERE ${where.join(' AND ')} LIMIT ?)`).get(...params, cap + 1) as { n: number }).n;
    }
    return n > cap ? { n: cap, capped: true } : { n, capped: false };
  }

  /** Indexes up to `limit` calls for text search (store/activity-search.ts); how many it indexed. */
  indexSome(limit: number): number {
    return indexSome(this.db, limit);
  }

  unindexed(): number {
    return unindexed(this.db);
  }

  /** One tool's finished calls and errors. */
  totalsFor(tool: string): ToolTotals {
    // Kept by triggers on tool_calls (migration 8): one row, however many calls there are.
    const r = prepared(this.db, 'SELECT calls, errors FROM tool_totals WHERE tool = ?').get(tool) as { calls: number; errors: number } | undefined;
    return { tool, calls: r?.calls ?? 0, errors: r?.errors ?? 0 };
  }

  /** The latencies of one tool's newest finished calls, for its median and p95. */
  recentLatencies(tool: string, n = 500): number[] {
    // Read from the (tool, started_at, ms) index alone (migration 8): the Tools page asks for every tool.
    return (prepared(this.db, 'SELECT ms FROM tool_calls WHERE tool = ? AND ms IS NOT NULL ORDER BY started_at DESC LIMIT ?').all(tool, n) as { ms: number }[]).map((r) => r.ms);
  }

  /** Finished calls since a moment (at most `cap`, newest kept), for the charts. */
  timingsSince(since: number, cap = 50_000): Timing[] {
    return this.db.prepare('SELECT tool, started_at, ms FROM tool_calls WHERE started_at >= ? AND ms IS NOT NULL ORDER BY started_at DESC LIMIT ?').all(since, cap) as Timing[];
  }

  /** The client name a session last called with (jobs and questions record only the session). */
  clientOf(callerId: string): string | undefined {
    return (this.db.prepare('SELECT client FROM tool_calls WHERE session = ? AND client IS NOT NULL ORDER BY started_at DESC LIMIT 1').get(callerId) as { client: string } | undefined)?.client;
  }

  /**
   * The tools and clients that appear, each read by a skip scan of its index (one seek per distinct
   * value) rather than SELECT DISTINCT over every row, so that it costs the same at 100 000 calls as at 100.
   */
  facets(): { tools: string[]; clients: string[] } {
    const distinct = (column: 'tool' | 'client') =>
      (
        prepared(
          this.db,
          `WITH RECURSIVE v(x) AS (SELECT (SELECT MIN(${column}) FROM tool_calls) UNION ALL SELECT (SELECT MIN(${column}) FROM tool_calls WHERE ${column} > v.x) FROM v WHERE v.x IS NOT NULL) SELECT x FROM v WHERE x IS NOT NULL`,
        ).all() as { x: string }[]
      ).map((r) => r.x);
    return { tools: distinct('tool'), clients: distinct('client') };
  }

  /** Drops calls older than `olderThan` and all but the newest `keep`. Returns how many went. */
  prune(olderThan: number, keep: number): number {
    return this.db.transaction(() => {
      const byAge = this.db.prepare('DELETE FROM tool_calls WHERE started_at < ?').run(olderThan).changes;
      const byCount = this.db.prepare('DELETE FROM tool_calls WHERE rowid IN (SELECT rowid FROM tool_calls ORDER BY started_at DESC, rowid DESC LIMIT -1 OFFSET ?)').run(keep).changes;
      return byAge + byCount;
    }).immediate();
  }

  count(): number {
    return (prepared(this.db, 'SELECT COUNT(*) AS n FROM tool_calls').get() as { n: number }).n;
  }
}
