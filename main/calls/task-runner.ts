import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { McpTasksRepo, TERMINAL, workOf, type McpTaskRow, type McpTaskWork } from '../store/mcp-tasks.js';
import type { Db } from '../store/db.js';
import type { EventChannel } from '../tools/events.js';
import type { TaskReach } from './asking.js';
import { QUESTION_INPUT_KEY, type QuestionTaskWork } from '../tools/interaction/ask-user-question.js';
import { UserError, errorMessage } from '../core/errors.js';
import { logger } from '../core/log.js';
import { newTaskOwner, ownerRunning, type TaskOwnerRole } from './task-owner.js';
import { TaskResultFiles, boundedError } from './task-results.js';
import { RPC } from '../core/wire-errors.js';

const log = logger('mcp-tasks');

/** How long a finished task stays readable (ttlMs on the wire). */
export const TASK_TTL_MS = 60 * 60 * 1000;
/** How often a client should poll tasks/get. */
export const POLL_INTERVAL_MS = 1000;
/** Tasks one client may have running (working or waiting for input) at once; the next call is refused until one ends. */
export const MAX_LIVE_TASKS_PER_CLIENT = 100;

/** Who started a task: the client's identity (Caller.id), and the name it gave (for the dashboard). */
export interface Requestor {
  id: string;
  name?: string;
}

/** What the work of a task ended with: a tool result (a tool error included), or a protocol error. */
export type TaskOutcome = { result: CallToolResult } | { error: { code: number; message: string; data?: unknown } };

/** The error a task whose work died with its hub is failed with (never "unknown task"). */
export const LOST_WITH_HUB = {
  code: RPC.InternalError,
  message: 'The Pincer hub that ran this task stopped (a restart or a handover) before the work finished, and the work stopped with it. Call the tool again.',
};

/**
 * Carries tasks whose work is a kind of McpTaskWork outside the hub that the runner does not wait on
 * itself (a background job): the runner asks it where the work is — on reconcile (this hub starts, or
 * takes the tasks of one that stopped), on tasks/get, and when the keeper's work changed
 * (workChanged) — and has it stop the work on tasks/cancel.
 */
export interface WorkKeeper {
  /** How the task ends now that its work ended; undefined while the work runs. */
  check(work: McpTaskWork, task: McpTaskRow): TaskOutcome | undefined;
  /** Stops the work (tasks/cancel); the task is already recorded as cancelled. */
  cancel(work: McpTaskWork, task: McpTaskRow): Promise<void>;
}

/**
 * Runs tool calls as MCP tasks (the io.modelcontextprotocol/tasks extension): the row is written
 * before the client hears the task id (a tasks/get right after resolves), the work runs on, and
 * its outcome is stored. Rows outlive the process. A hub that starts carries on the tasks another
 * hub left whose work lives outside it (a question in SQLite: it waits for the answer again), and
 * fails the others, since their work died with that hub.
 */
export class TaskRunner {
  readonly repo: McpTasksRepo;
  /** This process: tasks it creates carry it, so the next hub knows whose work stopped (task-owner.ts). */
  readonly owner: string;
  private running = new Map<string, AbortController>();
  /** Tasks waiting for the client's input: what is still asked, what is answered, and the waiting work. */
  private waiting = new Map<string, { pending: Record<string, unknown>; answers: Record<string, Record<string, unknown>>; resolve(a: Record<string, Record<string, unknown>>): void; reject(e: Error): void }>();

  private keepers = new Map<McpTaskWork['kind'], WorkKeeper>();
  private ownerWatch: NodeJS.Timeout | undefined;
  private readonly readOnly: boolean;
  private readonly role: TaskOwnerRole;
  private readonly questions?: QuestionTaskWork;
  private readonly results: TaskResultFiles;

  constructor(
    db: Db,
    private events: EventChannel,
    opts: { readOnly: boolean; role: TaskOwnerRole; questions?: QuestionTaskWork; resultsDir: string },
  ) {
    this.readOnly = opts.readOnly;
    this.role = opts.role;
    if (opts.questions) this.questions = opts.questions;
    this.results = new TaskResultFiles(opts.resultsDir);
    this.owner = newTaskOwner(opts.role);
    this.repo = new McpTasksRepo(db);
  }

  /** Registers who carries tasks whose work is of this kind (before reconcile()). */
  keep(kind: McpTaskWork['kind'], keeper: WorkKeeper): void {
    this.keepers.set(kind, keeper);
  }

  /**
   * When the hub starts serving (and again when a standalone process that owned tasks ends): tasks a
   * stopped process left are carried on where their work outlives it (a question waited on again; a
   * job its keeper follows), else failed, since their work died with it; expired ones go.
   */
  reconcile(): void {
    // Only the hub carries on or fails what others left: a standalone stdio beside it must not take its tasks.
    if (this.readOnly || this.role !== 'hub') return;
    const live = new Set<string>();
    try {
      for (const t of this.repo.orphans(this.owner)) {
        // A live standalone process's task is its own business until that process ends; then it is reconciled here.
        if (ownerRunning(t.owner, this.owner)) {
          live.add(t.owner);
          continue;
        }
        const work = workOf(t);
        if (work?.kind === 'question' && this.questions && this.repo.adopt(t.id, this.owner)) {
          this.resumeQuestion(t, work.id);
          continue;
        }
        if (work && this.keepers.has(work.kind)) {
          if (this.repo.adopt(t.id, this.owner)) log.info(`task ${t.id} (${t.tool}) carried on: its ${work.kind} ${work.id} outlives the hub that started it`);
          this.poke(t.id);
          continue;
        }
        if (this.repo.settle(t.id, 'failed', { error: LOST_WITH_HUB, message: LOST_WITH_HUB.message })) log.info(`task ${t.id} (${t.tool}) failed: its hub stopped`);
      }
      this.repo.expire();
      this.results.prune(this.repo.ids());
    } catch (err) {
      log.warn(`MCP tasks could not be reconciled: ${errorMessage(err)}`);
    }
    this.watchOwners(live);
  }

  /** Reconciles again once one of these owners has ended (checked every 2 s while any lives). */
  private watchOwners(owners: Set<string>): void {
    if (this.ownerWatch) clearInterval(this.ownerWatch);
    this.ownerWatch = undefined;
    if (owners.size === 0) return;
    this.ownerWatch = setInterval(() => {
      if ([...owners].some((o) => !ownerRunning(o, this.owner))) this.reconcile();
    }, 2000);
    this.ownerWatch.unref();
  }

  /**
   * Why this client may not start another task now (it has MAX_LIVE_TASKS_PER_CLIENT running), or
   * undefined. tools/call answers with it instead of a task.
   */
  refusal(requestor: string): string | undefined {
    const live = this.repo.liveCount(requestor);
    if (live < MAX_LIVE_TASKS_PER_CLIENT) return undefined;
    return `Not started: this client already has ${live} tasks running, the most one client may have (${MAX_LIVE_TASKS_PER_CLIENT}). Wait for some to finish (tasks/get) or cancel those no longer needed (tasks/cancel), then call again.`;
  }

  private create(tool: string, requestor: Requestor, work?: McpTaskWork): McpTaskRow {
    const refused = this.refusal(requestor.id);
    if (refused) throw new UserError(refused, 'LIMIT_REACHED');
    return this.repo.create({ id: randomUUID(), tool, ...(requestor.name ? { client: requestor.name } : {}), requestor: requestor.id, owner: this.owner, ttlMs: TASK_TTL_MS, ...(work ? { work } : {}) });
  }

  start(tool: string, requestor: Requestor, work: (signal: AbortSignal, taskId: string) => Promise<TaskOutcome>): McpTaskRow {
    const row = this.create(tool, requestor);
    this.run(row.id, tool, work);
    return row;
  }

  /** A call becomes a task whose work outlives the hub (Bash's job): its keeper finishes it, not the call. */
  begin(tool: string, requestor: Requestor, work: McpTaskWork): McpTaskRow {
    const row = this.create(tool, requestor, work);
    this.changed(row.id);
    return row;
  }

  /**
   * The task as this client may see it: its own, brought up to date; undefined for an unknown id and
   * for another client's task alike (a task id proves nothing about who asks).
   */
  forRequestor(id: string, requestor: string): McpTaskRow | undefined {
    const row = this.repo.get(id);
    return row && row.requestor === requestor ? this.get(id) : undefined;
  }

  /** The task as it is now: one whose work a keeper follows (a job) is brought up to date from it first. */
  get(id: string): McpTaskRow | undefined {
    const row = this.repo.get(id);
    if (row && !TERMINAL.includes(row.status) && row.work) this.poke(id);
    return this.repo.get(id);
  }

  /** Asks the keeper of a task's work whether it ended, and settles the task if it did. */
  poke(id: string): void {
    const row = this.repo.get(id);
    const work = row && workOf(row);
    const keeper = work && this.keepers.get(work.kind);
    if (!row || !work || !keeper || TERMINAL.includes(row.status)) return;
    let outcome: TaskOutcome | undefined;
    try {
      outcome = keeper.check(work, row);
    } catch (err) {
      log.warn(`task ${id}: its ${work.kind} ${work.id} could not be checked: ${errorMessage(err)}`);
      return;
    }
    if (outcome) {
      this.settle(id, outcome);
      this.changed(id);
    }
  }

  /** Pokes the running tasks whose work is this one (its keeper heard that it changed). */
  workChanged(kind: McpTaskWork['kind'], workId: number): void {
    if (this.readOnly) return;
    for (const t of this.repo.activeWithWork(kind)) if (workOf(t)?.id === workId) this.poke(t.id);
  }

  /** Records how a task ended: a result past TASK_RESULT_MAX_BYTES is kept as its start and a file (task-results.ts). */
  private settle(id: string, outcome: TaskOutcome): boolean {
    if ('result' in outcome) return this.repo.settle(id, 'completed', { result: this.results.fit(id, outcome.result, TASK_TTL_MS) });
    const error = boundedError(outcome.error);
    return this.repo.settle(id, 'failed', { error, message: error.message });
  }

  /** How the call running as task `id` asks (calls/asking.ts): the task's input, or the question it waits on. */
  reach(id: string): Required<TaskReach> {
    return {
      input: (requests) => this.askInput(id, requests),
      awaitQuestion: (questionId, request) => {
        this.repo.setWork(id, { kind: 'question', id: questionId });
        // What the task waits for, in tasks/get and on the dashboard's task list.
        this.repo.note(id, `Waiting for the person to answer question ${questionId} ${request ? 'in the client or' : 'in'} the Pincer dashboard.`);
        if (request) this.repo.setInput(id, { [QUESTION_INPUT_KEY]: request });
        this.changed(id);
      },
    };
  }

  /** A question task another hub started: wait for its question again and finish the task from it. */
  private resumeQuestion(row: McpTaskRow, questionId: number): void {
    const questions = this.questions!;
    log.info(`task ${row.id} (${row.tool}) carried on: it waits for question ${questionId}`);
    this.run(row.id, row.tool, async (signal) => ({ result: await questions.result(questionId, signal) }));
  }

  private run(id: string, tool: string, work: (signal: AbortSignal, taskId: string) => Promise<TaskOutcome>): void {
    const abort = new AbortController();
    this.running.set(id, abort);
    this.changed(id);
    void work(abort.signal, id)
      .then(
        (outcome) => {
          if (!abort.signal.aborted) this.settle(id, outcome);
        },
        (err: unknown) => {
          if (!abort.signal.aborted) this.settle(id, { error: { code: RPC.InternalError, message: `${tool} failed: ${errorMessage(err)}` } });
        },
      )
      .catch((err: unknown) => log.warn(`task ${id} could not be recorded: ${errorMessage(err)}`))
      .finally(() => {
        this.running.delete(id);
        this.changed(id);
      });
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

  /**
   * tasks/update: answers some or all of what the task asks; false when it is not waiting for input
   * (the answers are then ignored, as the extension says). A question task's answer goes to its
   * question — whoever answered first (the client or the dashboard) settles it.
   */
  update(id: string, responses: Record<string, unknown>): boolean {
    const w = this.waiting.get(id);
    if (!w) return this.answerQuestion(id, responses);
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

  private answerQuestion(id: string, responses: Record<string, unknown>): boolean {
    const row = this.repo.get(id);
    const work = row ? workOf(row) : undefined;
    if (!row || row.status !== 'input_required' || work?.kind !== 'question' || !this.questions || !(QUESTION_INPUT_KEY in responses)) return false;
    this.questions.answer(work.id, responses[QUESTION_INPUT_KEY]);
    // Back to work: the question is settled, and the task finishes from it (in whichever hub waits on it).
    this.repo.note(id, `The client answered question ${work.id}.`);
    this.repo.setInput(id, null);
    this.changed(id);
    return true;
  }

  /** Cancels a task that is still running (a terminal one stays as it is); undefined for an unknown id. */
  cancel(id: string): McpTaskRow | undefined {
    const row = this.repo.get(id);
    if (!row) return undefined;
    if (!TERMINAL.includes(row.status)) {
      this.repo.settle(id, 'cancelled', { message: 'Cancelled by the client.' });
      const work = workOf(row);
      if (work?.kind === 'question') this.questions?.cancel(work.id);
      const keeper = work && this.keepers.get(work.kind);
      if (work && keeper) {
        // The ack does not wait for the work to stop (cancellation is eventually consistent).
        keeper.cancel(work, row).catch((err: unknown) => log.warn(`task ${id}: its ${work.kind} ${work.id} could not be stopped: ${errorMessage(err)}`));
      }
      this.running.get(id)?.abort();
      this.waiting.get(id)?.reject(new Error('cancelled'));
      this.waiting.delete(id);
      this.changed(id);
    }
    return this.repo.get(id);
  }

  close(): void {
    if (this.ownerWatch) clearInterval(this.ownerWatch);
    this.ownerWatch = undefined;
    for (const a of this.running.values()) a.abort();
    this.running.clear();
    this.waiting.clear();
  }

  private changed(id: string): void {
    this.events.publish({ type: 'mcp_task_changed', id, at: Date.now() });
  }
}
