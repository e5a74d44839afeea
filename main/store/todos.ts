import { z } from 'zod';
import type { Db } from './db.js';
import { prepared } from './statements.js';
import { trigramQuery } from './search.js';

export const TodoRow = z.object({
  id: z.number().int(),
  name: z.string(),
  created_at: z.number(),
  completed_at: z.number().nullable(),
  /** Set when a finished todo was put away (migration 8): out of the default lists, still kept until retention. */
  archived_at: z.number().nullable(),
});
export const StepRow = z.object({ id: z.number().int(), task_id: z.number().int(), text: z.string(), created_at: z.number(), done_at: z.number().nullable() });
export type TodoRow = z.infer<typeof TodoRow>;
export type StepRow = z.infer<typeof StepRow>;
export interface TodoWithSteps extends TodoRow {
  steps: StepRow[];
  active: boolean;
}

/** `open`: not finished; `done`: finished and not archived; `archived`: put away. */
export const TODO_FILTERS = ['open', 'done', 'archived', 'all'] as const;
export type TodoFilter = (typeof TODO_FILTERS)[number];

const FILTER_SQL: Record<TodoFilter, string | undefined> = {
  open: 'completed_at IS NULL',
  done: 'completed_at IS NOT NULL AND archived_at IS NULL',
  archived: 'archived_at IS NOT NULL',
  all: undefined,
};

export interface TodoQuery {
  status?: TodoFilter;
  /** Matches the todo's name or any of its steps, case-insensitively. */
  q?: string;
  offset?: number;
  limit: number;
}

export interface TodoCounts {
  open: number;
  done: number;
  archived: number;
}

const ACTIVE_KEY = 'active_task_id';

/** How many matches past its page a text search counts before its total says "at least". */
export const SEARCH_COUNT_AHEAD = 200;
/** Candidate steps past which a text is common enough that walking the todos finds a page sooner than the index (measured on a year's 55 000 steps). */
const COMMON_STEP_CANDIDATES = 2000;

/** Todos and their steps; the active todo id lives in the kv table so every process sees the same one. */
export class TodosRepo {
  constructor(private db: Db) {}

  activeId(): number | undefined {
    const row = prepared(this.db, 'SELECT value FROM kv WHERE key = ?').get(ACTIVE_KEY) as { value: string } | undefined;
    const id = row ? Number(row.value) : NaN;
    return Number.isInteger(id) && this.get(id) ? id : undefined;
  }

  setActive(id: number): void {
    prepared(this.db, 'INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(ACTIVE_KEY, String(id));
  }

  create(name: string, at = Date.now()): TodoRow {
    return this.db.transaction(() => {
      const id = Number(prepared(this.db, 'INSERT INTO tasks (name, created_at) VALUES (?, ?)').run(name, at).lastInsertRowid);
      this.setActive(id);
      return this.get(id)!;
    }).immediate();
  }

  get(id: number): TodoRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM tasks WHERE id = ?').get(id);
    return r ? TodoRow.parse(r) : undefined;
  }

  withSteps(id: number): TodoWithSteps | undefined {
    const t = this.get(id);
    if (!t) return undefined;
    return { ...t, steps: this.steps(id), active: this.activeId() === id };
  }

  steps(todoId: number): StepRow[] {
    return (prepared(this.db, 'SELECT * FROM task_steps WHERE task_id = ? ORDER BY id').all(todoId) as unknown[]).map((r) => StepRow.parse(r));
  }

  step(id: number): StepRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM task_steps WHERE id = ?').get(id);
    return r ? StepRow.parse(r) : undefined;
  }

  addStep(todoId: number, text: string, at = Date.now()): StepRow {
    return this.db.transaction(() => {
      const id = Number(prepared(this.db, 'INSERT INTO task_steps (task_id, text, created_at) VALUES (?, ?, ?)').run(todoId, text, at).lastInsertRowid);
      // A finished todo that gets a new step is open again (and so no longer put away).
      prepared(this.db, 'UPDATE tasks SET completed_at = NULL, archived_at = NULL WHERE id = ?').run(todoId);
      return this.step(id)!;
    }).immediate();
  }

  completeStep(id: number, at = Date.now()): void {
    this.db.transaction(() => {
      const step = this.step(id)!;
      prepared(this.db, 'UPDATE task_steps SET done_at = COALESCE(done_at, ?) WHERE id = ?').run(at, id);
      const open = (prepared(this.db, 'SELECT COUNT(*) AS n FROM task_steps WHERE task_id = ? AND done_at IS NULL').get(step.task_id) as { n: number }).n;
      if (open === 0) prepared(this.db, 'UPDATE tasks SET completed_at = COALESCE(completed_at, ?) WHERE id = ?').run(at, step.task_id);
    }).immediate();
  }

  /** Completes a todo and every open step of it. */
  completeTodo(id: number, at = Date.now()): void {
    this.db.transaction(() => {
      prepared(this.db, 'UPDATE task_steps SET done_at = ? WHERE task_id = ? AND done_at IS NULL').run(at, id);
      prepared(this.db, 'UPDATE tasks SET completed_at = COALESCE(completed_at, ?) WHERE id = ?').run(at, id);
    }).immediate();
  }

  /** Puts a finished todo away; false when it is still open (or gone). */
  archive(id: number, at = Date.now()): boolean {
    return prepared(this.db, 'UPDATE tasks SET archived_at = COALESCE(archived_at, ?) WHERE id = ? AND completed_at IS NOT NULL').run(at, id).changes > 0;
  }

  /** Deletes a todo and its steps; the active todo is then none. False when there was no such todo. */
  delete(id: number): boolean {
    return this.db.transaction(() => {
      const gone = prepared(this.db, 'DELETE FROM tasks WHERE id = ?').run(id).changes > 0;
      if (gone) prepared(this.db, 'DELETE FROM kv WHERE key = ? AND value = ?').run(ACTIVE_KEY, String(id));
      return gone;
    }).immediate();
  }

  /**
   * One page of todos, newest first, with their steps (one query for the page's steps), and how many match.
   * A text search counts no further than `countAhead` past the page: past it the total says "at least"
   * (`capped`), so a common word costs a page's worth of rows, not every match.
   */
  page(query: TodoQuery, countAhead = SEARCH_COUNT_AHEAD): { rows: TodoWithSteps[]; total: number; capped: boolean } {
    if (query.q) return this.searchPage(query, query.q, countAhead);
    const filter = FILTER_SQL[query.status ?? 'all'];
    const cond = filter ? `WHERE ${filter}` : '';
    const total = (prepared(this.db, `SELECT COUNT(*) AS n FROM tasks ${cond}`).get() as { n: number }).n;
    const rows = (prepared(this.db, `SELECT * FROM tasks ${cond} ORDER BY id DESC LIMIT ? OFFSET ?`).all(query.limit, query.offset ?? 0) as unknown[]).map((r) => TodoRow.parse(r));
    return { rows: this.attachSteps(rows), total, capped: false };
  }

  /**
   * A text search's page: the ids of matching todos newest first, as far as the page and `countAhead` more
   * (one walk gives the page and its bounded count), then the page's rows.
   */
  private searchPage(query: TodoQuery, text: string, countAhead: number): { rows: TodoWithSteps[]; total: number; capped: boolean } {
    const offset = query.offset ?? 0;
    const upTo = offset + query.limit + countAhead;
    const ids = this.matchingIds(text.toLowerCase(), FILTER_SQL[query.status ?? 'all'], upTo + 1);
    const capped = ids.length > upTo;
    const pageIds = ids.slice(offset, offset + query.limit);
    const rows = pageIds.length
      ? (prepared(this.db, `SELECT * FROM tasks WHERE id IN (${pageIds.map(() => '?').join(',')}) ORDER BY id DESC`).all(...pageIds) as unknown[]).map((r) => TodoRow.parse(r))
      : [];
    return { rows: this.attachSteps(rows), total: capped ? upTo : ids.length, capped };
  }

  /**
   * Ids of the todos whose name or a step contains `q` (lower case), newest first, at most `limit`; the exact
   * match is checked on each row. Two ways, by how common the text is among steps (their trigram index
   * names candidates cheaply, up to a bound):
   * - rare (few candidate steps): the names' index read newest first (its rowid is the todo's id), stopping
   *   with the limit, merged with the candidate steps' todos, gathered and sorted (their rowids are steps');
   * - common (or shorter than a trigram): the todos themselves newest first, each checked with its steps,
   *   which finds the limit's worth of matches within a few hundred todos.
   */
  private matchingIds(q: string, filter: string | undefined, limit: number): number[] {
    const match = trigramQuery(q);
    const also = filter ? ` AND ${filter}` : '';
    const common =
      !match || (prepared(this.db, 'SELECT COUNT(*) AS n FROM (SELECT 1 FROM step_search WHERE step_search MATCH ? LIMIT ?)').get(match, COMMON_STEP_CANDIDATES + 1) as { n: number }).n > COMMON_STEP_CANDIDATES;
    const sql = common
      ? `SELECT id FROM tasks WHERE (instr(lower(name), @q) > 0 OR EXISTS (SELECT 1 FROM task_steps WHERE task_id = tasks.id AND instr(lower(text), @q) > 0))${also} ORDER BY id DESC LIMIT @limit`
      : `SELECT s.rowid AS id FROM task_search s WHERE task_search MATCH @match AND EXISTS (SELECT 1 FROM tasks WHERE id = s.rowid AND instr(lower(name), @q) > 0${also})
         UNION
         SELECT st.task_id FROM step_search ss JOIN task_steps st ON st.id = ss.rowid JOIN tasks t ON t.id = st.task_id WHERE step_search MATCH @match AND instr(lower(st.text), @q) > 0${also}
         ORDER BY 1 DESC LIMIT @limit`;
    return (prepared(this.db, sql).all({ q, limit, ...(common ? {} : { match }) }) as { id: number }[]).map((r) => r.id);
  }

  /**
   * Open, finished and archived todos, counted from indexes: the open and archived ones (few) by theirs,
   * all by SQLite's count of the table, finished as the rest — never a pass over every todo.
   */
  counts(): TodoCounts {
    const r = prepared(
      this.db,
      `SELECT (SELECT COUNT(*) FROM tasks) AS total, (SELECT COUNT(*) FROM tasks WHERE completed_at IS NULL) AS open, (SELECT COUNT(*) FROM tasks WHERE archived_at IS NOT NULL) AS archived`,
    ).get() as { total: number; open: number; archived: number };
    return { open: r.open, done: r.total - r.open - r.archived, archived: r.archived };
  }

  /** Deletes finished todos (archived or not) that finished before `before`; open todos never. */
  deleteFinishedBefore(before: number, limit: number): number {
    return this.db.transaction(() => {
      const n = prepared(this.db, 'DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE completed_at IS NOT NULL AND completed_at < ? LIMIT ?)').run(before, limit).changes;
      // The active todo may have been among them.
      if (n > 0) prepared(this.db, 'DELETE FROM kv WHERE key = ? AND CAST(value AS INTEGER) NOT IN (SELECT id FROM tasks)').run(ACTIVE_KEY);
      return n;
    }).immediate();
  }

  private attachSteps(rows: TodoRow[]): TodoWithSteps[] {
    if (rows.length === 0) return [];
    const active = this.activeId();
    const byTodo = new Map<number, StepRow[]>(rows.map((t) => [t.id, []]));
    // One statement per page size (ids bound as parameters).
    const steps = prepared(this.db, `SELECT * FROM task_steps WHERE task_id IN (${rows.map(() => '?').join(',')}) ORDER BY id`).all(...rows.map((t) => t.id)) as unknown[];
    for (const r of steps) {
      const s = StepRow.parse(r);
      byTodo.get(s.task_id)!.push(s);
    }
    return rows.map((t) => ({ ...t, steps: byTodo.get(t.id)!, active: t.id === active }));
  }
}
