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
});
export type JobRow = z.infer<typeof JobRow>;

/** The newest jobs as last read, and the database's data_version when they were read. */
interface Snapshot {
  version: number;
  limit: number;
  rows: readonly JobRow[];
  byId: Map<number, JobRow>;
}

/**
 * The jobs table. Every state change is a conditional UPDATE so two processes never overwrite each other.
 *
 * Reads of the newest jobs are served from memory while the table cannot have changed (issue 17:
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

  insert(job: { command: string; cwd: string; logPath: (id: number) => string; exitPath: (id: number) => string; session?: string }): JobRow {
    return this.write(() => this.db.transaction(() => {
      const info = prepared(this.db, `INSERT INTO jobs (command, cwd, status, started_at, log_path, exit_path, session) VALUES (?, ?, 'starting', ?, '', '', ?)`)
        .run(job.command, job.cwd, Date.now(), job.session ?? null);
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

  /** The newest `limit` jobs, oldest first. The rows are frozen: they may be shared with later reads. */
  list(limit = 500): readonly JobRow[] {
    // One data_version read decides both whether the snapshot still holds and what a new one is taken at.
    const version = dataVersion(this.db);
    const s = this.snapshot;
    if (s && s.version === version && s.limit === limit) return s.rows;
    const rows = (prepared(this.db, 'SELECT * FROM jobs ORDER BY id DESC LIMIT ?').all(limit) as unknown[]).map((r) => freeze(JobRow.parse(r))).reverse();
    this.snapshot = { version, limit, rows, byId: new Map(rows.map((r) => [r.id, r])) };
    return rows;
  }

  /** The newest job a client started with this exact command (a chat view finding the call it shows), or undefined. */
  newestOf(session: string, command: string): JobRow | undefined {
    const row = prepared(this.db, 'SELECT * FROM jobs WHERE session = ? AND command = ? ORDER BY id DESC LIMIT 1').get(session, command);
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

  /** Ends a job once; returns false when another process already recorded its end. */
  finish(id: number, status: 'exited' | 'killed' | 'lost', exitCode: number | null, endedAt: number, note?: string): boolean {
    const r = this.write(() =>
      prepared(this.db, `UPDATE jobs SET status = ?, exit_code = ?, ended_at = ?, note = COALESCE(?, note) WHERE id = ? AND status IN ('starting','running')`)
        .run(status, exitCode, endedAt, note ?? null, id),
    );
    return r.changes > 0;
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
