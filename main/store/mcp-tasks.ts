import { z } from 'zod';
import type { Db } from './db.js';
import { prepared } from './statements.js';

export const MCP_TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type McpTaskStatus = (typeof MCP_TASK_STATUSES)[number];
export const TERMINAL: readonly McpTaskStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * What carries a task's work outside the hub, so that the next hub can finish the task instead of
 * failing it: a supervised background job (jobs.id) or a question in the questions table.
 */
export const McpTaskWork = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('job'),
    id: z.number().int(),
    /** A Bash call run as the job: how its result is worded (tools/shell/bash-job.ts BashJobView). */
    bash: z.object({ shell: z.string(), foreign: z.boolean(), timeoutMs: z.number().int(), outputLimit: z.number().int() }).optional(),
  }),
  z.object({ kind: z.literal('question'), id: z.number().int() }),
]);
export type McpTaskWork = z.infer<typeof McpTaskWork>;

export const McpTaskRow = z.object({
  id: z.string(),
  tool: z.string(),
  client: z.string().nullable(),
  status: z.enum(MCP_TASK_STATUSES),
  status_message: z.string().nullable(),
  owner: z.string(),
  created_at: z.number(),
  updated_at: z.number(),
  ttl_ms: z.number().int(),
  result: z.string().nullable(),
  error: z.string().nullable(),
  input_requests: z.string().nullable(),
  /** McpTaskWork as JSON (migration 5); null when the work lives only in the hub that runs it. */
  work: z.string().nullable(),
  /**
   * The client that started the task (its identity, ARCHITECTURE §1 "The client"; migration 7): only
   * it may read, follow, answer or cancel the task. Null in a row made before migration 7 added it: no client's.
   */
  requestor: z.string().nullable(),
});
export type McpTaskRow = z.infer<typeof McpTaskRow>;

/** What a list of tasks shows of each (McpTasksRepo.page). */
export const McpTaskListRow = McpTaskRow.pick({ id: true, tool: true, client: true, status: true, status_message: true, created_at: true, updated_at: true, input_requests: true, work: true });
export type McpTaskListRow = z.infer<typeof McpTaskListRow>;
const LIST_COLUMNS = Object.keys(McpTaskListRow.shape).join(', ');

/**
 * The tasks of the MCP tasks extension (not TaskManager's checklist): one row per tool call
 * answered with a task, its status and, once terminal, its result or error as JSON. `owner` is the
 * process that runs the work, so a hub that starts can tell the tasks whose work died with another.
 */
export class McpTasksRepo {
  constructor(private db: Db) {}

  create(t: { id: string; tool: string; client?: string; requestor: string; owner: string; ttlMs: number; work?: McpTaskWork }): McpTaskRow {
    const now = Date.now();
    prepared(this.db, `INSERT INTO mcp_tasks (id, tool, client, requestor, status, owner, created_at, updated_at, ttl_ms, work) VALUES (?, ?, ?, ?, 'working', ?, ?, ?, ?, ?)`).run(
      t.id,
      t.tool,
      t.client ?? null,
      t.requestor,
      t.owner,
      now,
      now,
      t.ttlMs,
      t.work ? JSON.stringify(McpTaskWork.parse(t.work)) : null,
    );
    return this.get(t.id)!;
  }

  /** Records (or clears) what outlives the hub for a task. */
  setWork(id: string, work: McpTaskWork | null): boolean {
    return prepared(this.db, 'UPDATE mcp_tasks SET work = ?, updated_at = ? WHERE id = ?').run(work ? JSON.stringify(McpTaskWork.parse(work)) : null, Date.now(), id).changes > 0;
  }

  /** Tasks not yet terminal whose work is of this kind (a hub reconciles them from that work). */
  activeWithWork(kind: McpTaskWork['kind']): McpTaskRow[] {
    return (prepared(this.db, `SELECT * FROM mcp_tasks WHERE status IN ('working','input_required') AND work IS NOT NULL AND json_extract(work, '$.kind') = ?`).all(kind) as unknown[]).map((r) => McpTaskRow.parse(r));
  }

  /** Moves a task to another owner (the hub that now carries its work). */
  adopt(id: string, owner: string): boolean {
    return prepared(this.db, `UPDATE mcp_tasks SET owner = ? WHERE id = ? AND status IN ('working','input_required')`).run(owner, id).changes > 0;
  }

  get(id: string): McpTaskRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM mcp_tasks WHERE id = ?').get(id);
    return r ? McpTaskRow.parse(r) : undefined;
  }

  /** How many tasks of this client are still running (working or waiting for input). */
  liveCount(requestor: string): number {
    const r = prepared(this.db, `SELECT COUNT(*) AS n FROM mcp_tasks WHERE requestor = ? AND status IN ('working','input_required')`).get(requestor) as { n: number };
    return r.n;
  }

  /** Every task id still kept (for the result files of tasks that are gone). */
  ids(): Set<string> {
    return new Set((prepared(this.db, 'SELECT id FROM mcp_tasks').all() as { id: string }[]).map((r) => r.id));
  }

  /**
   * One page of tasks, newest first, with how many there are (the dashboard): the columns a list shows,
   * not the results it does not (a task's result may be a megabyte).
   */
  page(offset: number, limit: number): { rows: McpTaskListRow[]; total: number } {
    const rows = (prepared(this.db, `SELECT ${LIST_COLUMNS} FROM mcp_tasks ORDER BY created_at DESC LIMIT ? OFFSET ?`).all(limit, offset) as unknown[]).map((r) => McpTaskListRow.parse(r));
    return { rows, total: (prepared(this.db, 'SELECT COUNT(*) AS n FROM mcp_tasks').get() as { n: number }).n };
  }

  /** Moves a task that is not terminal yet; false when it already ended (a cancel won the race). */
  settle(id: string, status: McpTaskStatus, fields: { result?: unknown; error?: unknown; message?: string } = {}): boolean {
    return (
      prepared(this.db, `UPDATE mcp_tasks SET status = ?, result = ?, error = ?, status_message = ?, input_requests = NULL, updated_at = ? WHERE id = ? AND status IN ('working','input_required')`).run(
        status,
        fields.result === undefined ? null : JSON.stringify(fields.result),
        fields.error === undefined ? null : JSON.stringify(fields.error),
        fields.message ?? null,
        Date.now(),
        id,
      ).changes > 0
    );
  }

  /** A running task waits for the client's input (requests by key), or goes back to work (null). */
  setInput(id: string, requests: Record<string, unknown> | null): boolean {
    return (
      prepared(this.db, `UPDATE mcp_tasks SET status = ?, input_requests = ?, updated_at = ? WHERE id = ? AND status IN ('working','input_required')`).run(
        requests ? 'input_required' : 'working',
        requests ? JSON.stringify(requests) : null,
        Date.now(),
        id,
      ).changes > 0
    );
  }

  /** A status message for a running task (what it waits for). */
  note(id: string, message: string): boolean {
    return prepared(this.db, `UPDATE mcp_tasks SET status_message = ?, updated_at = ? WHERE id = ? AND status IN ('working','input_required')`).run(message, Date.now(), id).changes > 0;
  }

  /** Tasks still running under another owner (a hub that stopped): their work is gone. */
  orphans(owner: string): McpTaskRow[] {
    return (prepared(this.db, `SELECT * FROM mcp_tasks WHERE status IN ('working','input_required') AND owner != ?`).all(owner) as unknown[]).map((r) => McpTaskRow.parse(r));
  }

  /** Forgets terminal tasks whose time to live has passed (at most `limit` at once, so one pass holds the write lock briefly). */
  expire(now = Date.now(), limit = 100_000): number {
    return prepared(this.db, `DELETE FROM mcp_tasks WHERE id IN (SELECT id FROM mcp_tasks WHERE status IN ('completed','failed','cancelled') AND updated_at + ttl_ms < ? LIMIT ?)`).run(now, limit).changes;
  }

  count(): { running: number; ended: number } {
    // Grouped by status, the count reads only the status index: a SUM over the rows read each row's result (4 ms at 10 000 tasks).
    const rows = prepared(this.db, `SELECT status, COUNT(*) AS n FROM mcp_tasks GROUP BY status`).all() as { status: string; n: number }[];
    const n = (statuses: string[]) => rows.reduce((sum, r) => sum + (statuses.includes(r.status) ? r.n : 0), 0);
    return { running: n(['working', 'input_required']), ended: n(['completed', 'failed', 'cancelled']) };
  }
}

/** The work a row names, or undefined (none, or written by a newer Pincer in a shape this one does not know). */
export function workOf(row: Pick<McpTaskRow, 'work'>): McpTaskWork | undefined {
  if (!row.work) return undefined;
  try {
    const parsed = McpTaskWork.safeParse(JSON.parse(row.work));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Not JSON: nothing this Pincer can carry on.
    return undefined;
  }
}
