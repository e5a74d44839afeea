import type { EventChannel } from '../events.js';
import type { QuestionsRepo, QuestionRow } from '../../store/questions.js';
import type { SettingsView } from '../../core/settings/view.js';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/server';
import { answersFromElicitation, elicitationSchema, validateAnswers, Question, type Answer } from './question-shapes.js';
import { UserError } from '../../core/errors.js';
import { logger, ignoreFailure } from '../../core/log.js';

const log = logger('ask');

/** What the asker needs from the call that asks (a ToolContext has all of it). */
export interface AskChannel {
  callerId?: string;
  clientName?: string;
  signal: AbortSignal;
  progress(message: string): Promise<void>;
  elicit?: (params: ElicitRequestFormParams, signal?: AbortSignal) => Promise<ElicitResult>;
}

/** Where a question was settled: the client's own form, the dashboard, or a question view in the chat. */
export type AnsweredVia = 'client' | 'dashboard' | 'chat';

export type AskOutcome =
  | { status: 'answered'; answers: Answer[]; via: AnsweredVia; questionId: number }
  | { status: 'declined' | 'timeout' | 'cancelled'; via: AnsweredVia; questionId: number }
  /** Still open when this call had to answer; `openForS` more seconds to collect it with question_id. */
  | { status: 'waiting'; questionId: number; openForS: number };

/**
 * Puts questions to the person: through the client's own UI when it declared
 * elicitation, else as a pending question in SQLite that the dashboard (or any
 * API caller) answers. The waiting call keeps the client alive with progress,
 * and when only the dashboard can answer it replies before the client's own
 * deadline (ASK_REPLY_S, under the usual 60 s) that the question is still
 * open; a later call with its id collects the answer.
 */
export class Asker {
  private keepPending = false;

  constructor(private repo: QuestionsRepo, private events: EventChannel, private settings: SettingsView) {}

  /** The hub is handing over: a call cut from now on leaves its question pending for the next hub's dashboard. */
  keepPendingOnClose(): void {
    this.keepPending = true;
  }

  /**
   * Asks through every channel at once — the client's form when it can show
   * one, and the dashboard — and settles the question exactly once: the
   * database row decides (compare-and-set), so the tool result and the record
   * always agree, and the losing channel is withdrawn.
   */
  async ask(questions: Question[], ctx: AskChannel, purpose = 'ask'): Promise<AskOutcome> {
    const row = this.repo.insert({ session: ctx.callerId, client: ctx.clientName, questions, purpose });
    this.events.publish({ type: 'question_asked', id: row.id, questions, session: ctx.callerId, client: ctx.clientName, elicited: Boolean(ctx.elicit), at: Date.now() });
    const withdraw = new AbortController();
    if (ctx.elicit) void this.askClient(row.id, questions, ctx.elicit, withdraw.signal);
    try {
      // Only AskUserQuestion can be called again to collect, and only when no form is open in the
      // client (the person is looking at it); other askers (plan approval) wait it out.
      return await this.wait(row, ctx, purpose === 'ask' && !ctx.elicit);
    } finally {
      withdraw.abort();
    }
  }

  /**
   * Opens a question that the client will show as a form in a multi
   * round-trip (2026-07-28): the dashboard shows it too, and whichever
   * answers first settles it (`settleFromClient`).
   */
  open(questions: Question[], ctx: Pick<AskChannel, 'callerId' | 'clientName'>, purpose = 'ask', elicited = true): { questionId: number; params: ElicitRequestFormParams } {
    const row = this.repo.insert({ session: ctx.callerId, client: ctx.clientName, questions, purpose });
    this.events.publish({ type: 'question_asked', id: row.id, questions, session: ctx.callerId, client: ctx.clientName, elicited, at: Date.now() });
    return { questionId: row.id, params: formParams(questions) };
  }

  /** The client's form answer to an opened question; when the dashboard answered first, that answer stands. */
  settleFromClient(id: number, result: ElicitResult): AskOutcome {
    const row = this.repo.get(id);
    if (!row) throw new UserError(`AskUserQuestion: there is no question ${id}.`, 'NOT_FOUND');
    const questions = Question.array().parse(JSON.parse(row.questions));
    const won =
      result.action === 'accept'
        ? this.repo.settle(id, 'answered', { answers: answersFromElicitation(questions, (result.content ?? {}) as Record<string, unknown>), via: 'client' })
        : this.repo.settle(id, 'declined', { via: 'client', action: result.action });
    if (won) this.events.publish({ type: 'question_answered', id, at: Date.now() });
    return outcomeOf(this.repo.get(id)!);
  }

  /** The form an earlier question is shown with (a task that carries it shows the client this). */
  formOf(id: number): ElicitRequestFormParams {
    const row = this.repo.get(id);
    if (!row) throw new UserError(`AskUserQuestion: there is no question ${id}. Ask with questions_json instead.`, 'NOT_FOUND');
    return formParams(Question.array().parse(JSON.parse(row.questions)));
  }

  /**
   * Waits for a question a task carries to be settled — by the client (tasks/update), the dashboard,
   * a cancel or ASK_TIMEOUT_S — however long that takes. The signal ends the wait without settling
   * anything: the task was cancelled (its cancel settles the question) or the hub is stopping (the
   * question stays pending for the next hub, which adopts the task).
   */
  async settled(id: number, signal: AbortSignal): Promise<AskOutcome> {
    const first = this.repo.get(id);
    if (!first) throw new UserError(`AskUserQuestion: there is no question ${id}.`, 'NOT_FOUND');
    const deadline = first.created_at + this.settings.get('ASK_TIMEOUT_S') * 1000;
    let wake: (() => void) | undefined;
    const unsubscribe = this.events.on('question_answered', (e) => {
      if (e.id === id) wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      for (;;) {
        // First: a hub that stops aborts the wait just before it closes the database.
        if (signal.aborted) throw new UserError(`The wait for question ${id} was stopped (the task was cancelled or the hub is stopping).`, 'CANCELLED');
        const fresh = this.repo.get(id)!;
        if (fresh.status !== 'pending') return outcomeOf(fresh);
        if (Date.now() >= deadline) {
          if (this.repo.settle(id, 'timeout')) this.events.publish({ type: 'question_answered', id, at: Date.now() });
          continue;
        }
        // The answer may come from this process (event) or another one (the poll).
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(1000, Math.max(10, deadline - Date.now())));
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Cancels a pending question (its task was cancelled); false when it was settled already. */
  cancel(id: number): boolean {
    const won = this.repo.settle(id, 'cancelled', { via: 'client' });
    if (won) this.events.publish({ type: 'question_answered', id, at: Date.now() });
    return won;
  }

  /** A later call for an earlier question: its answer when there is one, else another wait. */
  async collect(id: number, ctx: AskChannel): Promise<AskOutcome> {
    const row = this.repo.get(id);
    if (!row) throw new UserError(`AskUserQuestion: there is no question ${id}. Ask with questions_json instead.`, 'NOT_FOUND');
    if (row.status !== 'pending') return outcomeOf(row);
    return this.wait(row, ctx, true);
  }

  /** The client's form: its answer settles the question only if nothing else did first. */
  private async askClient(id: number, questions: Question[], elicit: NonNullable<AskChannel['elicit']>, signal: AbortSignal): Promise<void> {
    try {
      const r = await elicit(formParams(questions), signal);
      const won =
        r.action === 'accept'
          ? this.repo.settle(id, 'answered', { answers: answersFromElicitation(questions, (r.content ?? {}) as Record<string, unknown>), via: 'client' })
          : this.repo.settle(id, 'declined', { via: 'client', action: r.action });
      if (won) this.events.publish({ type: 'question_answered', id, at: Date.now() });
    } catch (err) {
      // Withdrawn because the dashboard answered, or a client that declared elicitation but cannot show it:
      // the question stays with the dashboard.
      if (!signal.aborted) log.warn(`elicitation failed, the question waits in the dashboard: ${(err as Error).message}`);
    }
  }

  private async wait(row: QuestionRow, ctx: AskChannel, replyEarly: boolean): Promise<AskOutcome> {
    const deadline = row.created_at + this.settings.get('ASK_TIMEOUT_S') * 1000;
    const replyBy = Date.now() + this.settings.get('ASK_REPLY_S') * 1000;
    let lastProgress = Date.now();
    let wake: (() => void) | undefined;
    const unsubscribe = this.events.on('question_answered', (e) => {
      if (e.id === row.id) wake?.();
    });
    try {
      for (;;) {
        const fresh = this.repo.get(row.id)!;
        if (fresh.status !== 'pending') return outcomeOf(fresh);
        if (ctx.signal.aborted) {
          if (this.keepPending) return { status: 'cancelled', via: 'client', questionId: row.id };
          if (this.repo.settle(row.id, 'cancelled', { via: 'client' })) this.events.publish({ type: 'question_answered', id: row.id, at: Date.now() });
          return outcomeOf(this.repo.get(row.id)!);
        }
        if (Date.now() >= deadline) {
          if (this.repo.settle(row.id, 'timeout')) this.events.publish({ type: 'question_answered', id: row.id, at: Date.now() });
          return outcomeOf(this.repo.get(row.id)!);
        }
        // Answer before the client gives up on this call; the question stays open.
        if (replyEarly && Date.now() >= replyBy) return { status: 'waiting', questionId: row.id, openForS: Math.ceil((deadline - Date.now()) / 1000) };
        if (Date.now() - lastProgress >= 5000) {
          lastProgress = Date.now();
          // A progress note to a client that left: the wait goes on until the person answers or the call is cancelled.
          await ctx.progress(`Waiting for the person to answer in the Pincer dashboard (question ${row.id})…`).catch(ignoreFailure(log, 'a progress note while waiting for the dashboard'));
        }
        // The answer may come from this process (event) or another one (the poll).
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 250);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    } finally {
      unsubscribe();
    }
  }

  /**
   * The dashboard's answer (or refusal) to a pending question. `via`: where the person gave it — the
   * dashboard, or a question view in the chat (MCP Apps), which answers exactly as the dashboard does.
   */
  answer(id: number, body: unknown, via: 'dashboard' | 'chat' = 'dashboard'): QuestionRow {
    const row = this.repo.get(id);
    if (!row) throw new UserError(`There is no question ${id}.`, 'NOT_FOUND');
    if (row.status !== 'pending') throw new UserError(`Question ${id} is already ${row.status}.`, 'CONFLICT');
    const decline = body && typeof body === 'object' && (body as { decline?: unknown }).decline === true;
    const questions = Question.array().parse(JSON.parse(row.questions));
    const ok = decline ? this.repo.settle(id, 'declined', { via }) : this.repo.settle(id, 'answered', { answers: validateAnswers(questions, body), via });
    if (!ok) throw new UserError(`Question ${id} was settled a moment ago.`, 'CONFLICT');
    this.events.publish({ type: 'question_answered', id, at: Date.now() });
    return this.repo.get(id)!;
  }
}

function formParams(questions: Question[]): ElicitRequestFormParams {
  return { mode: 'form', message: questions.length === 1 ? questions[0]!.question : `${questions.length} questions from the assistant`, requestedSchema: elicitationSchema(questions) };
}

function outcomeOf(row: QuestionRow): AskOutcome {
  const stored = row.answer ? (JSON.parse(row.answer) as { answers?: Answer[]; via?: AnsweredVia }) : {};
  const via = stored.via ?? 'dashboard';
  if (row.status === 'answered') return { status: 'answered', answers: stored.answers ?? [], via, questionId: row.id };
  return { status: row.status === 'pending' ? 'timeout' : row.status, via, questionId: row.id };
}
