import { z } from 'zod';
import type { Db } from './db.js';
import { prepared } from './statements.js';

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

/** The jobs table. Every state change is a conditional UPDATE so two processes never overwrite each other. */
export class JobsRepo {
  constructor(private db: Db) {}

  insert(job: { command: string; cwd: string; logPath: (id: number) => string; exitPath: (id: number) => string; session?: string }): JobRow {
    return this.db.transaction(() => {
      const info = prepared(this.db, `INSERT INTO jobs (command, cwd, status, started_at, log_path, exit_path, session) VALUES (?, ?, 'starting', ?, '', '', ?)`)
        .run(job.command, job.cwd, Date.now(), job.session ?? null);
      const id = Number(info.lastInsertRowid);
      prepared(this.db, 'UPDATE jobs SET log_path = ?, exit_path = ? WHERE id = ?').run(job.logPath(id), job.exitPath(id), id);
      return this.get(id)!;
    }).immediate();
  }

  get(id: number): JobRow | undefined {
    const row = prepared(this.db, 'SELECT * FROM jobs WHERE id = ?').get(id);
    return row ? JobRow.parse(row) : undefined;
  }

  list(limit = 500): JobRow[] {
    return (prepared(this.db, 'SELECT * FROM jobs ORDER BY id DESC LIMIT ?').all(limit) as unknown[]).map((r) => JobRow.parse(r)).reverse();
  }

  running(): JobRow[] {
    return (prepared(this.db, `SELECT * FROM jobs WHERE status IN ('starting','running') ORDER BY id`).all() as unknown[]).map((r) => JobRow.parse(r));
  }

  countRunning(): number {
    return (prepared(this.db, `SELECT COUNT(*) AS n FROM jobs WHERE status IN ('starting','running')`).get() as { n: number }).n;
  }

  markRunning(id: number, pid: number): void {
    prepared(this.db, `UPDATE jobs SET status = 'running', pid = ? WHERE id = ? AND status = 'starting'`).run(pid, id);
  }

  /** Ends a job once; returns false when another process already recorded its end. */
  finish(id: number, status: 'exited' | 'killed' | 'lost', exitCode: number | null, endedAt: number, note?: string): boolean {
    const r = prepared(this.db, `UPDATE jobs SET status = ?, exit_code = ?, ended_at = ?, note = COALESCE(?, note) WHERE id = ? AND status IN ('starting','running')`)
      .run(status, exitCode, endedAt, note ?? null, id);
    return r.changes > 0;
  }

  /** Moves the read position only if nobody moved it since we looked (compare-and-set). */
  advanceOffset(id: number, from: number, to: number): boolean {
    return prepared(this.db, 'UPDATE jobs SET read_offset = ? WHERE id = ? AND read_offset = ?').run(to, id, from).changes > 0;
  }
}
