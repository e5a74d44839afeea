import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { McpTasksRepo, TERMINAL, type McpTaskRow } from '../store/mcp-tasks.js';
import type { Db } from '../store/db.js';
import type { EventChannel } from '../tools/events.js';
import { errorMessage } from '../core/errors.js';
import { logger } from '../core/log.js';

const log = logger('mcp-tasks');

/** How long a finished task stays readable (ttlMs on the wire). */
export const TASK_TTL_MS = 60 * 60 * 1000;
/** How often a client should poll tasks/get. */
export const POLL_INTERVAL_MS = 1000;

/** What the work of a task ended with: a tool result (a tool error included), or a protocol error. */
export type TaskOutcome = { result: CallToolResult } | { error: { code: number; message: string; data?: unknown } };

/** The error a task whose work died with its hub is failed with (never "unknown task"). */
export const LOST_WITH_HUB = {
  code: -32603,
  message: 'The Pincer hub that ran this task stopped (a restart or a handover) before the work finished, and the work stopped with it. Call the tool again.',
};

/**
 * Runs tool calls as MCP tasks (the io.modelcontextprotocol/tasks extension): the row is written
 * before the client hears the task id (a tasks/get right after resolves), the work runs on, and
 * its outcome is stored. Rows outlive the process; a hub that starts fails the tasks another hub
 * was running, since their work died with it.
 */
export class TaskRunner {
  readonly repo: McpTasksRepo;
  /** This process: tasks it creates carry it, so the next hub knows whose work stopped. */
  readonly owner = randomUUID();
  private running = new Map<string, AbortController>();
  /** Tasks waiting for the client's input: what is still asked, what is answered, and the waiting work. */
  private waiting = new Map<string, { pending: Record<string, unknown>; answers: Record<string, Record<string, unknown>>; resolve(a: Record<string, Record<string, unknown>>): void; reject(e: Error): void }>();

  constructor(db: Db, private events: EventChannel, private readOnly: boolean) {
    this.repo = new McpTasksRepo(db);
    if (readOnly) return;
    try {
      for (const t of this.repo.orphans(this.owner)) {
        if (this.repo.settle(t.id, 'failed', { error: LOST_WITH_HUB, message: LOST_WITH_HUB.message })) log.info(`task ${t.id} (${t.tool}) failed: its hub stopped`);
      }
      this.repo.expire();
    } catch (err) {
      log.warn(`MCP tasks could not be reconciled: ${errorMessage(err)}`);
    }
  }

  start(tool: string, client: string | undefined, work: (signal: AbortSignal, taskId: string) => Promise<TaskOutcome>): McpTaskRow {
    const row = this.repo.create({ id: randomUUID(), tool, ...(client ? { client } : {}), owner: this.owner, ttlMs: TASK_TTL_MS });
    const abort = new AbortController();
    this.running.set(row.id, abort);
    this.changed(row.id);
    void work(abort.signal, row.id)
      .then(
        (outcome) => {
          if (abort.signal.aborted) return;
          if ('result' in outcome) this.repo.settle(row.id, 'completed', { result: outcome.result });
          else this.repo.settle(row.id, 'failed', { error: outcome.error, message: outcome.error.message });
        },
        (err: unknown) => {
          if (!abort.signal.aborted) this.repo.settle(row.id, 'failed', { error: { code: -32603, message: `${tool} failed: ${errorMessage(err)}` } });
        },
      )
      .catch((err: unknown) => log.warn(`task ${row.id} could not be recorded: ${errorMessage(err)}`))
      .finally(() => {
        this.running.delete(row.id);
        this.changed(row.id);
      });
    return row;
  }

  /**
   * The work asks the client (a form, a sample, its roots): the task shows `input_required` with these
   * requests until tasks/update answered every one, then resumes with the answers by key.
   */
  askInput(id: string, requests: Record<string, unknown>): Promise<Record<string, Record<string, unknown>>> {
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { pending: { ...requests }, answers: {}, resolve, reject });
      this.repo.setInput(id, requests);
      this.changed(id);
    });
  }

  /** tasks/update: answers some or all of what the task asks; false when it is not waiting for input. */
  update(id: string, responses: Record<string, unknown>): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    for (const [k, v] of Object.entries(responses)) {
      if (!(k in w.pending) || !v || typeof v !== 'object') continue;
      w.answers[k] = v as Record<string, unknown>;
      delete w.pending[k];
    }
    if (Object.keys(w.pending).length > 0) {
      this.repo.setInput(id, w.pending);
    } else {
      this.waiting.delete(id);
      this.repo.setInput(id, null);
      w.resolve(w.answers);
    }
    this.changed(id);
    return true;
  }

  /** Cancels a task that is still running (a terminal one stays as it is); undefined for an unknown id. */
  cancel(id: string): McpTaskRow | undefined {
    const row = this.repo.get(id);
    if (!row) return undefined;
    if (!TERMINAL.includes(row.status)) {
      this.repo.settle(id, 'cancelled', { message: 'Cancelled by the client.' });
      this.running.get(id)?.abort();
      this.waiting.get(id)?.reject(new Error('cancelled'));
      this.waiting.delete(id);
      this.changed(id);
    }
    return this.repo.get(id);
  }

  close(): void {
    for (const a of this.running.values()) a.abort();
    this.running.clear();
    this.waiting.clear();
  }

  private changed(id: string): void {
    this.events.publish({ type: 'mcp_task_changed', id, at: Date.now() });
  }
}
