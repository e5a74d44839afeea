import { z } from 'zod';
import type { Db } from './db.js';
import { prepared } from './statements.js';

export const TaskRow = z.object({ id: z.number().int(), name: z.string(), created_at: z.number(), completed_at: z.number().nullable() });
export const StepRow = z.object({ id: z.number().int(), task_id: z.number().int(), text: z.string(), created_at: z.number(), done_at: z.number().nullable() });
export type TaskRow = z.infer<typeof TaskRow>;
export type StepRow = z.infer<typeof StepRow>;
export interface TaskWithSteps extends TaskRow {
  steps: StepRow[];
  active: boolean;
}

const ACTIVE_KEY = 'active_task_id';

/** Tasks and their steps; the active task id lives in the kv table so every process sees the same one. */
export class TasksRepo {
  constructor(private db: Db) {}

  activeId(): number | undefined {
    const row = prepared(this.db, 'SELECT value FROM kv WHERE key = ?').get(ACTIVE_KEY) as { value: string } | undefined;
    const id = row ? Number(row.value) : NaN;
    return Number.isInteger(id) && this.get(id) ? id : undefined;
  }

  setActive(id: number): void {
    prepared(this.db, 'INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(ACTIVE_KEY, String(id));
  }

  create(name: string): TaskRow {
    return this.db.transaction(() => {
      const id = Number(prepared(this.db, 'INSERT INTO tasks (name, created_at) VALUES (?, ?)').run(name, Date.now()).lastInsertRowid);
      this.setActive(id);
      return this.get(id)!;
    }).immediate();
  }

  get(id: number): TaskRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM tasks WHERE id = ?').get(id);
    return r ? TaskRow.parse(r) : undefined;
  }

  withSteps(id: number): TaskWithSteps | undefined {
    const t = this.get(id);
    if (!t) return undefined;
    return { ...t, steps: this.steps(id), active: this.activeId() === id };
  }

  steps(taskId: number): StepRow[] {
    return (prepared(this.db, 'SELECT * FROM task_steps WHERE task_id = ? ORDER BY id').all(taskId) as unknown[]).map((r) => StepRow.parse(r));
  }

  step(id: number): StepRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM task_steps WHERE id = ?').get(id);
    return r ? StepRow.parse(r) : undefined;
  }

  addStep(taskId: number, text: string): StepRow {
    return this.db.transaction(() => {
      const id = Number(prepared(this.db, 'INSERT INTO task_steps (task_id, text, created_at) VALUES (?, ?, ?)').run(taskId, text, Date.now()).lastInsertRowid);
      // A finished task that gets a new step is open again.
      prepared(this.db, 'UPDATE tasks SET completed_at = NULL WHERE id = ?').run(taskId);
      return this.step(id)!;
    }).immediate();
  }

  completeStep(id: number): void {
    this.db.transaction(() => {
      const step = this.step(id)!;
      prepared(this.db, 'UPDATE task_steps SET done_at = COALESCE(done_at, ?) WHERE id = ?').run(Date.now(), id);
      const open = (prepared(this.db, 'SELECT COUNT(*) AS n FROM task_steps WHERE task_id = ? AND done_at IS NULL').get(step.task_id) as { n: number }).n;
      if (open === 0) prepared(this.db, 'UPDATE tasks SET completed_at = COALESCE(completed_at, ?) WHERE id = ?').run(Date.now(), step.task_id);
    }).immediate();
  }

  /** Completes a task and every open step of it. */
  completeTask(id: number): void {
    this.db.transaction(() => {
      const now = Date.now();
      prepared(this.db, 'UPDATE task_steps SET done_at = ? WHERE task_id = ? AND done_at IS NULL').run(now, id);
      prepared(this.db, 'UPDATE tasks SET completed_at = COALESCE(completed_at, ?) WHERE id = ?').run(now, id);
    }).immediate();
  }

  list(query?: string): TaskWithSteps[] {
    const rows = (query
      ? prepared(this.db, `SELECT * FROM tasks WHERE name LIKE ? ESCAPE '\\' ORDER BY id`).all(`%${query.replace(/[\\%_]/g, (c) => '\\' + c)}%`)
      : prepared(this.db, 'SELECT * FROM tasks ORDER BY id').all()) as unknown[];
    const active = this.activeId();
    return rows.map((r) => {
      const t = TaskRow.parse(r);
      return { ...t, steps: this.steps(t.id), active: t.id === active };
    });
  }
}
