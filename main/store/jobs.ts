import { z } from 'zod';
import type { Db } from './db.js';
import { dataVersion, prepared } from './statements.js';

export const JobStatus = z.enum(['starting', 'running', 'exited', 'killed', 'lost']);
export const JobRow = z.object({
  id: z.number().int(),
  command: z.string(),
  cwd: z.string(),
  pid: z.number().int().nullable(),
  status: JobStatus,
  exit_code: z.number().int().nullable(),
  started_at: z.number(),
  ended_at: z.number().nullable(),
  read_offset: z.number().int(),
  log_path: z.string(),
  exit_path: z.string(),
  session: z.string().nullable(),
  note: z.string().nullable(),
  /** The log's size when the job ended (migration 8), for retention by bytes; null while it runs. */
  log_bytes: z.number().int().nullable(),
});
export type JobRow = z.infer<typeof JobRow>;

/**
 * Which jobs a list shows: `failed` is every job that did not exit 0 (a non-zero exit, killed or lost),
 * `ended` every job that is not running.
 */
export const JOB_FILTERS = ['all', 'running', 'ended', 'succeeded', 'failed', 'killed', 'lost'] as const;
export type JobFilter = (typeof JOB_FILTERS)[number];

const FILTER_SQL: Record<JobFilter, string | undefined> = {
  all: undefined,
  running: `status IN ('starting','running')`,
  ended: `status NOT IN ('starting','running')`,
  succeeded: `status = 'exited' AND exit_code = 0`,
  failed: `(status IN ('killed','lost') OR (status = 'exited' AND exit_code != 0))`,
  killed: `status = 'killed'`,
  lost: `status = 'lost'`,
};

export interface JobQuery {
  status?: JobFilter;
  /** Matches the command or the folder, case-insensitively. */
  q?: string;
  /** Newest first from this many newest matches on (paging by position). */
  offset?: number;
  /** Only jobs older than this id (paging by cursor). */
  before?: number;
  limit: number;
}

/** One page of jobs, newest first, and how many match in all. */
export interface JobPage {
  rows: readonly JobRow[];
  total: number;
}

/** A page as last read, and the database's data_version when it was read. */
interface Snapshot {
  version: number;
  key: string;
  page: JobPage;
  byId: Map<number, JobRow>;
}

/**
 * The jobs table. Every state change is a conditional UPDATE so two processes never overwrite each other.
 *
 * Reads of the newest jobs are served from memory while the table cannot have changed (bench/RESULTS.md:
 * ListBgTasks is the call clients poll, and the query cost more than the rest of the call — a WAL
 * read lock per statement and a zod parse per row). Every write through this repo drops the
 * snapshot; a write by any other connection (another Pincer process sharing the data folder)
 * changes SQLite's `PRAGMA data_version`, which is checked on every read instead of the query.
 */
export class JobsRepo {
  private snapshot?: Snapshot;

  constructor(private db: Db) {}

  /** The snapshot, when nothing can have changed the table since it was taken. */
  private current(): Snapshot | undefined {
    const s = this.snapshot;
    if (s && s.version === dataVersion(this.db)) return s;
    this.snapshot = undefined;
    return undefined;
  }

  private write<T>(change: () => T): T {
    // Dropped before and after: a failed or rolled-back write may still have changed nothing or everything.
    this.snapshot = undefined;
    try {
      return change();
    } finally {
      this.snapshot = undefined;
    }
  }

  insert(job: { command: string; cwd: string; logPath: (id: number) => string; exitPath: (id: number) => string; session?: string; at?: number }): JobRow {
    return this.write(() => this.db.transaction(() => {
      const info = prepared(this.db, `INSERT INTO jobs (command, cwd, status, started_at, log_path, exit_path, session) VALUES (?, ?, 'starting', ?, '', '', ?)`)
        .run(job.command, job.cwd, job.at ?? Date.now(), job.session ?? null);
      const id = Number(info.lastInsertRowid);
      prepared(this.db, 'UPDATE jobs SET log_path = ?, exit_path = ? WHERE id = ?').run(job.logPath(id), job.exitPath(id), id);
      return this.get(id)!;
    }).immediate());
  }

  get(id: number): JobRow | undefined {
    const known = this.current()?.byId.get(id);
    if (known) return known;
    const row = prepared(this.db, 'SELECT * FROM jobs WHERE id = ?').get(id);
    return row ? freeze(JobRow.parse(row)) : undefined;
  }

  /**
   * One page of jobs, newest first, and the number that match. Served from the snapshot while nothing can
   * have changed the table (ListBgTasks and the Jobs page ask the same page again and again).
   */
  page(query: JobQuery): JobPage {
    // One data_version read decides both whether the snapshot still holds and what a new one is taken at.
    const version = dataVersion(this.db);
    const key = JSON.stringify([query.status ?? 'all', query.q ?? '', query.offset ?? 0, query.before ?? 0, query.limit]);
    const s = this.snapshot;
    if (s && s.version === version && s.key === key) return s.page;
    const where: string[] = [];
    const params: (string | number)[] = [];
    const filter = FILTER_SQL[query.status ?? 'all'];
    if (filter) where.push(filter);
    if (query.q) {
      where.push("instr(lower(command || ' ' || cwd), ?) > 0");
      params.push(query.q.toLowerCase());
    }
    const cond = where.length ? `WHERE ${where.join(' AND ')}` : '';
    // Failed jobs without a text filter are counted in the index's three ranges rather than row by row.
    const total = query.status === 'failed' && !query.q ? this.counts().failed : (prepared(this.db, `SELECT COUNT(*) AS n FROM jobs ${cond}`).get(...params) as { n: number }).n;
    const pageCond = query.before !== undefined ? `${cond ? `${cond} AND` : 'WHERE'} id < ?` : cond;
    const pageParams = query.before !== undefined ? [...params, query.before] : params;
    const rows = (prepared(this.db, `SELECT * FROM jobs ${pageCond} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...pageParams, query.limit, query.offset ?? 0) as unknown[]).map((r) => freeze(JobRow.parse(r)));
    const page = { rows, total };
    this.snapshot = { version, key, page, byId: new Map(rows.map((r) => [r.id, r])) };
    return page;
  }

  /** How many jobs there are, running, and failed (the Jobs page's counters), each counted from an index. */
  counts(): { total: number; running: number; failed: number } {
    return prepared(
      this.db,
      `SELECT (SELECT COUNT(*) FROM jobs) AS total, (SELECT COUNT(*) FROM jobs WHERE status IN ('starting','running')) AS running,
        (SELECT COUNT(*) FROM jobs WHERE status IN ('killed','lost')) + (SELECT COUNT(*) FROM jobs WHERE status = 'exited' AND exit_code > 0)
          + (SELECT COUNT(*) FROM jobs WHERE status = 'exited' AND exit_code < 0) AS failed`,
    ).get() as { total: number; running: number; failed: number };
  }

  /** The newest job a client started with this exact command (a chat view finding the call it shows), or undefined. */
  newestOf(callerId: string, command: string): JobRow | undefined {
    const row = prepared(this.db, 'SELECT * FROM jobs WHERE session = ? AND command = ? ORDER BY id DESC LIMIT 1').get(callerId, command);
    return row ? freeze(JobRow.parse(row)) : undefined;
  }

  running(): JobRow[] {
    return (prepared(this.db, `SELECT * FROM jobs WHERE status IN ('starting','running') ORDER BY id`).all() as unknown[]).map((r) => JobRow.parse(r));
  }

  countRunning(): number {
    return (prepared(this.db, `SELECT COUNT(*) AS n FROM jobs WHERE status IN ('starting','running')`).get() as { n: number }).n;
  }

  markRunning(id: number, pid: number): void {
    this.write(() => prepared(this.db, `UPDATE jobs SET status = 'running', pid = ? WHERE id = ? AND status = 'starting'`).run(pid, id));
  }

  /** Ends a job once; returns false when another process already recorded its end. `logBytes`: its log's size by then. */
  finish(id: number, status: 'exited' | 'killed' | 'lost', exitCode: number | null, endedAt: number, note?: string, logBytes?: number): boolean {
    const r = this.write(() =>
      prepared(this.db, `UPDATE jobs SET status = ?, exit_code = ?, ended_at = ?, note = COALESCE(?, note), log_bytes = ? WHERE id = ? AND status IN ('starting','running')`)
        .run(status, exitCode, endedAt, note ?? null, logBytes ?? null, id),
    );
    return r.changes > 0;
  }

  /**
   * The ended jobs retention removes, oldest first: ended before `endedBefore`, beyond the newest `keep`
   * ended ones, and the oldest while the logs of all ended jobs exceed `maxBytes`. Running jobs never.
   */
  expired(endedBefore: number, keep: number, maxBytes: number, limit: number): JobRow[] {
    const sql = `
      WITH ended AS (
        SELECT id, ended_at, COALESCE(log_bytes, 0) AS bytes,
               ROW_NUMBER() OVER (ORDER BY id DESC) AS newer,
               SUM(COALESCE(log_bytes, 0)) OVER (ORDER BY id DESC ROWS UNBOUNDED PRECEDING) AS kept_bytes
        FROM jobs WHERE status NOT IN ('starting','running'))
      SELECT jobs.* FROM jobs JOIN ended USING (id)
      WHERE ended.ended_at < ? OR ended.newer > ? OR ended.kept_bytes > ?
      ORDER BY jobs.id LIMIT ?`;
    return (prepared(this.db, sql).all(endedBefore, keep, maxBytes, limit) as unknown[]).map((r) => JobRow.parse(r));
  }

  /** Every job id (the retention sweep tells a job's files from leftovers by it). */
  ids(): Set<number> {
    return new Set((prepared(this.db, 'SELECT id FROM jobs').all() as { id: number }[]).map((r) => r.id));
  }

  /** The bytes of the logs of ended jobs, and how many ended jobs there are. */
  keptBytes(): { jobs: number; bytes: number } {
    // Ended jobs are those with an end: the jobs_ended index holds both columns.
    return prepared(this.db, `SELECT COUNT(*) AS jobs, COALESCE(SUM(log_bytes), 0) AS bytes FROM jobs WHERE ended_at IS NOT NULL`).get() as { jobs: number; bytes: number };
  }

  /** Deletes a job that ended; false when it is still running (or gone). */
  remove(id: number): boolean {
    return this.write(() => prepared(this.db, `DELETE FROM jobs WHERE id = ? AND status NOT IN ('starting','running')`).run(id).changes > 0);
  }

  /** Moves the read position only if nobody moved it since we looked (compare-and-set). */
  advanceOffset(id: number, from: number, to: number): boolean {
    return this.write(() => prepared(this.db, 'UPDATE jobs SET read_offset = ? WHERE id = ? AND read_offset = ?').run(to, id, from).changes > 0);
  }
}

function freeze(row: JobRow): JobRow {
  return Object.freeze(row);
}
