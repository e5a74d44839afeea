import type { EventBus } from '../../mcp/events.js';
import type { QuestionsRepo, QuestionRow } from '../../store/questions.js';
import type { Settings } from '../../core/settings/settings.js';
import type { ToolContext } from '../types.js';
import { answersFromElicitation, elicitationSchema, validateAnswers, Question, type Answer } from './questions.js';
import { UserError } from '../../core/errors.js';
import { logger } from '../../core/log.js';

const log = logger('ask');

export type AskOutcome =
  | { status: 'answered'; answers: Answer[]; via: 'client' | 'dashboard'; questionId: number }
  | { status: 'declined' | 'timeout' | 'cancelled'; via: 'client' | 'dashboard'; questionId: number };

/**
 * Puts questions to the person: through the client's own UI when it declared
 * elicitation, else as a pending question in SQLite that the dashboard (or any
 * API caller) answers. The waiting call keeps the client alive with progress.
 */
export class Asker {
  constructor(private repo: QuestionsRepo, private events: EventBus, private settings: Settings) {}

  async ask(questions: Question[], ctx: ToolContext, purpose = 'ask'): Promise<AskOutcome> {
    const row = this.repo.insert({ session: ctx.sessionId, client: ctx.clientName, questions, purpose });
    if (ctx.elicit) {
      try {
        const r = await ctx.elicit({ mode: 'form', message: questions.length === 1 ? questions[0]!.question : `${questions.length} questions from the assistant`, requestedSchema: elicitationSchema(questions) });
        if (r.action === 'accept') {
          const answers = answersFromElicitation(questions, (r.content ?? {}) as Record<string, unknown>);
          this.repo.settle(row.id, 'answered', { answers, via: 'client' });
          this.events.publish({ type: 'question_answered', id: row.id, at: Date.now() });
          return { status: 'answered', answers, via: 'client', questionId: row.id };
        }
        this.repo.settle(row.id, 'declined', { via: 'client', action: r.action });
        this.events.publish({ type: 'question_answered', id: row.id, at: Date.now() });
        return { status: 'declined', via: 'client', questionId: row.id };
      } catch (err) {
        // A client that declared elicitation but cannot show it: fall back to the dashboard.
        log.warn(`elicitation failed, asking through the dashboard: ${(err as Error).message}`);
      }
    }
    this.events.publish({ type: 'question_asked', id: row.id, questions, session: ctx.sessionId, client: ctx.clientName, at: Date.now() });
    return this.wait(row, ctx);
  }

  private async wait(row: QuestionRow, ctx: ToolContext): Promise<AskOutcome> {
    const deadline = Date.now() + this.settings.get('ASK_TIMEOUT_S') * 1000;
    let lastProgress = Date.now();
    let wake: (() => void) | undefined;
    const onEvent = (e: { type: string; id?: unknown }) => {
      if (e.type === 'question_answered' && e.id === row.id) wake?.();
    };
    this.events.on('event', onEvent);
    try {
      for (;;) {
        const fresh = this.repo.get(row.id)!;
        if (fresh.status !== 'pending') return outcomeOf(fresh);
        if (ctx.signal.aborted) {
          this.repo.settle(row.id, 'cancelled');
          this.events.publish({ type: 'question_answered', id: row.id, at: Date.now() });
          return { status: 'cancelled', via: 'dashboard', questionId: row.id };
        }
        if (Date.now() >= deadline) {
          if (this.repo.settle(row.id, 'timeout')) this.events.publish({ type: 'question_answered', id: row.id, at: Date.now() });
          return outcomeOf(this.repo.get(row.id)!);
        }
        if (Date.now() - lastProgress >= 5000) {
          lastProgress = Date.now();
          await ctx.progress(`Waiting for the person to answer in the Pincer dashboard (question ${row.id})…`).catch(() => undefined);
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
      this.events.off('event', onEvent);
    }
  }

  /** The dashboard's answer (or refusal) to a pending question. */
  answer(id: number, body: unknown): QuestionRow {
    const row = this.repo.get(id);
    if (!row) throw new UserError(`There is no question ${id}.`);
    if (row.status !== 'pending') throw new UserError(`Question ${id} is already ${row.status}.`);
    const decline = body && typeof body === 'object' && (body as { decline?: unknown }).decline === true;
    const questions = Question.array().parse(JSON.parse(row.questions));
    const ok = decline ? this.repo.settle(id, 'declined', { via: 'dashboard' }) : this.repo.settle(id, 'answered', { answers: validateAnswers(questions, body), via: 'dashboard' });
    if (!ok) throw new UserError(`Question ${id} was settled a moment ago.`);
    this.events.publish({ type: 'question_answered', id, at: Date.now() });
    return this.repo.get(id)!;
  }
}

function outcomeOf(row: QuestionRow): AskOutcome {
  const stored = row.answer ? (JSON.parse(row.answer) as { answers?: Answer[]; via?: 'client' | 'dashboard' }) : {};
  const via = stored.via ?? 'dashboard';
  if (row.status === 'answered') return { status: 'answered', answers: stored.answers ?? [], via, questionId: row.id };
  return { status: row.status === 'pending' ? 'timeout' : row.status, via, questionId: row.id };
}
