import { z } from 'zod';
import type { Db } from './db.js';
import { prepared } from './statements.js';

export const PlanRow = z.object({
  id: z.number().int(),
  goal: z.string(),
  status: z.enum(['active', 'submitted', 'approved', 'rejected', 'reset']),
  started_at: z.number(),
  exited_at: z.number().nullable(),
  plan_file: z.string().nullable(),
  plan_text: z.string().nullable(),
  comment: z.string().nullable(),
});
export type PlanRow = z.infer<typeof PlanRow>;

/** Plan mode: the newest row is the current plan. */
export class PlansRepo {
  constructor(private db: Db) {}

  current(): PlanRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM plans ORDER BY id DESC LIMIT 1').get();
    return r ? PlanRow.parse(r) : undefined;
  }

  enter(goal: string, at = Date.now()): PlanRow {
    return this.db.transaction(() => {
      prepared(this.db, `UPDATE plans SET status = 'reset', exited_at = ? WHERE status = 'active'`).run(at);
      const id = Number(prepared(this.db, `INSERT INTO plans (goal, status, started_at) VALUES (?, 'active', ?)`).run(goal, at).lastInsertRowid);
      return PlanRow.parse(prepared(this.db, 'SELECT * FROM plans WHERE id = ?').get(id));
    }).immediate();
  }

  exit(id: number, planFile: string, text: string, status: 'submitted' | 'approved' | 'rejected', comment?: string, at = Date.now()): void {
    prepared(this.db, 'UPDATE plans SET status = ?, exited_at = ?, plan_file = ?, plan_text = ?, comment = ? WHERE id = ?').run(status, at, planFile, text, comment ?? null, id);
  }

  reset(): boolean {
    return prepared(this.db, `UPDATE plans SET status = 'reset', exited_at = COALESCE(exited_at, ?) WHERE status IN ('active','submitted')`).run(Date.now()).changes > 0;
  }

  /** Deletes finished plans that ended before `before`; never the active one, nor the newest (PlanMode status shows it). */
  deleteFinishedBefore(before: number, limit: number): number {
    return prepared(
      this.db,
      `DELETE FROM plans WHERE id IN (SELECT id FROM plans WHERE status != 'active' AND exited_at < ? AND id < (SELECT MAX(id) FROM plans) LIMIT ?)`,
    ).run(before, limit).changes;
  }

  count(): number {
    return (prepared(this.db, 'SELECT COUNT(*) AS n FROM plans').get() as { n: number }).n;
  }
}
