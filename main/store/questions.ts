import { z } from 'zod';
import type { Db } from './db.js';
import { prepared } from './statements.js';

export const QuestionRow = z.object({
  id: z.number().int(),
  session: z.string().nullable(),
  client: z.string().nullable(),
  questions: z.string(),
  status: z.enum(['pending', 'answered', 'declined', 'timeout', 'cancelled']),
  answer: z.string().nullable(),
  purpose: z.string(),
  created_at: z.number(),
  answered_at: z.number().nullable(),
});
export type QuestionRow = z.infer<typeof QuestionRow>;

export class QuestionsRepo {
  constructor(private db: Db) {}

  insert(q: { session?: string; client?: string; questions: unknown; purpose: string; at?: number }): QuestionRow {
    const id = Number(
      prepared(this.db, `INSERT INTO questions (session, client, questions, status, purpose, created_at) VALUES (?, ?, ?, 'pending', ?, ?)`)
        .run(q.session ?? null, q.client ?? null, JSON.stringify(q.questions), q.purpose, q.at ?? Date.now()).lastInsertRowid,
    );
    return this.get(id)!;
  }

  get(id: number): QuestionRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM questions WHERE id = ?').get(id);
    return r ? QuestionRow.parse(r) : undefined;
  }

  /** Records the outcome once; false when it was already answered, declined or timed out. */
  settle(id: number, status: 'answered' | 'declined' | 'timeout' | 'cancelled', answer?: unknown, at = Date.now()): boolean {
    return (
      prepared(this.db, `UPDATE questions SET status = ?, answer = ?, answered_at = ? WHERE id = ? AND status = 'pending'`)
        .run(status, answer === undefined ? null : JSON.stringify(answer), at, id).changes > 0
    );
  }

  /** The newest question a client put with exactly these questions (as stored), or undefined: a chat view finding the call it shows. */
  newestOf(callerId: string, questions: unknown): QuestionRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM questions WHERE session = ? AND questions = ? ORDER BY id DESC LIMIT 1').get(callerId, JSON.stringify(questions));
    return r ? QuestionRow.parse(r) : undefined;
  }

  pending(): QuestionRow[] {
    return (prepared(this.db, `SELECT * FROM questions WHERE status = 'pending' ORDER BY id`).all() as unknown[]).map((r) => QuestionRow.parse(r));
  }

  history(limit = 100): QuestionRow[] {
    return (prepared(this.db, `SELECT * FROM questions WHERE status != 'pending' ORDER BY id DESC LIMIT ?`).all(limit) as unknown[]).map((r) => QuestionRow.parse(r));
  }

  /** Deletes settled questions (answered, declined, timed out, cancelled) settled before `before`; waiting ones never. */
  deleteSettledBefore(before: number, limit: number): number {
    return prepared(this.db, `DELETE FROM questions WHERE id IN (SELECT id FROM questions WHERE status != 'pending' AND answered_at < ? LIMIT ?)`).run(before, limit).changes;
  }

  count(): { pending: number; settled: number } {
    // Grouped by status, the count reads only the status index, not each question's text.
    const rows = prepared(this.db, `SELECT status, COUNT(*) AS n FROM questions GROUP BY status`).all() as { status: string; n: number }[];
    const pending = rows.find((r) => r.status === 'pending')?.n ?? 0;
    return { pending, settled: rows.reduce((sum, r) => sum + r.n, 0) - pending };
  }
}
