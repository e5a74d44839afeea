import { z } from 'zod';
import type { Db } from './db.js';
import { prepared } from './statements.js';

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
   * an UPDATE through four indexes (issue 17: most calls end before their start is written).
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
    const f = ActivityFilter.parse(filter);
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (f.tool) (where.push('tool = ?'), params.push(f.tool));
    if (f.client) (where.push('client = ?'), params.push(f.client));
    if (f.errors) where.push('is_error = 1');
    if (f.from !== undefined) (where.push('started_at >= ?'), params.push(f.from));
    if (f.to !== undefined) (where.push('started_at < ?'), params.push(f.to));
    if (f.q) {
      where.push("instr(lower(tool || ' ' || args || ' ' || coalesce(summary, '') || ' ' || coalesce(client, '')), ?) > 0");
      params.push(f.q.toLowerCase());
    }
    const sql = `SELECT * FROM tool_calls ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, rowid DESC LIMIT ?`;
    return this.db.prepare(sql).all(...params, f.limit).map((r) => CallRow.parse(r));
  }

  /** One tool's finished calls and errors (the (tool, started_at) index keeps this a range scan). */
  totalsFor(tool: string): ToolTotals {
    const r = this.db.prepare('SELECT COUNT(*) AS calls, COALESCE(SUM(is_error), 0) AS errors FROM tool_calls WHERE tool = ? AND ms IS NOT NULL').get(tool) as { calls: number; errors: number };
    return { tool, ...r };
  }

  /** The latencies of one tool's newest finished calls, for its median and p95. */
  recentLatencies(tool: string, n = 500): number[] {
    return (this.db.prepare('SELECT ms FROM tool_calls WHERE tool = ? AND ms IS NOT NULL ORDER BY started_at DESC LIMIT ?').all(tool, n) as { ms: number }[]).map((r) => r.ms);
  }

  /** Finished calls since a moment (at most `cap`, newest kept), for the charts. */
  timingsSince(since: number, cap = 50_000): Timing[] {
    return this.db.prepare('SELECT tool, started_at, ms FROM tool_calls WHERE started_at >= ? AND ms IS NOT NULL ORDER BY started_at DESC LIMIT ?').all(since, cap) as Timing[];
  }

  /** The client name a session last called with (jobs and questions record only the session). */
  clientOf(session: string): string | undefined {
    return (this.db.prepare('SELECT client FROM tool_calls WHERE session = ? AND client IS NOT NULL ORDER BY started_at DESC LIMIT 1').get(session) as { client: string } | undefined)?.client;
  }

  facets(): { tools: string[]; clients: string[] } {
    const tools = (this.db.prepare('SELECT DISTINCT tool FROM tool_calls ORDER BY tool').all() as { tool: string }[]).map((r) => r.tool);
    const clients = (this.db.prepare('SELECT DISTINCT client FROM tool_calls WHERE client IS NOT NULL ORDER BY client').all() as { client: string }[]).map((r) => r.client);
    return { tools, clients };
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
    return (this.db.prepare('SELECT COUNT(*) AS n FROM tool_calls').get() as { n: number }).n;
  }
}
