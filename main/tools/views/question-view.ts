import { z } from 'zod';
import { defineTool, textResult, type ToolContext } from '../types.js';
import { UserError } from '../../core/errors.js';
import type { QuestionRow } from '../../store/questions.js';
import { Answer, Question, parseQuestions } from '../interaction/question-shapes.js';
import { dashboardLink, VIEWS } from './links.js';
import { waitForChange } from './wait.js';

const questionViewShape = z.object({
  id: z.number().int(),
  status: z.enum(['pending', 'answered', 'declined', 'timeout', 'cancelled']),
  questions: z.array(Question),
  answers: z.array(Answer).describe('The answers, once answered'),
  via: z.string().nullable().describe('Where it was answered: client (its own form), dashboard or chat (this view)'),
  expires_at: z.string().describe('When the question stops waiting for an answer (ASK_TIMEOUT_S after it was asked)'),
});
type QuestionView = z.infer<typeof questionViewShape>;

const Stored = z.object({ answers: z.array(Answer).optional(), via: z.string().optional() });

function viewOf(row: QuestionRow, ctx: ToolContext): QuestionView {
  const stored = row.answer ? Stored.safeParse(JSON.parse(row.answer)) : undefined;
  return {
    id: row.id,
    status: row.status,
    questions: Question.array().parse(JSON.parse(row.questions)),
    answers: stored?.success ? (stored.data.answers ?? []) : [],
    via: stored?.success ? (stored.data.via ?? null) : null,
    expires_at: new Date(row.created_at + ctx.services.settings.get('ASK_TIMEOUT_S') * 1000).toISOString(),
  };
}

const resultShape = z.object({ question: questionViewShape.nullable(), dashboard_url: z.string().nullable() });
/** What the question view gets from QuestionViewRead and QuestionViewAnswer (renderer/src/apps). */
export type QuestionViewData = z.infer<typeof resultShape>;

function answerOf(row: QuestionRow | undefined, ctx: ToolContext) {
  if (!row) return textResult('No such question of this client yet.', { question: null, dashboard_url: null });
  const view = viewOf(row, ctx);
  return textResult(`Question ${row.id} is ${row.status}.`, { question: view, dashboard_url: dashboardLink(ctx.services.paths, 'questions') ?? null });
}

/**
 * What the question view reads: the question by id, or the newest this client asked with exactly these
 * questions (the AskUserQuestion call the view shows, whose result — and so its id — comes only once it
 * is answered). With `status` and `wait_ms` it waits until the question is no longer in that state: a
 * question answered in the dashboard or the client's own form shows as answered here too.
 */
export const questionViewReadTool = defineTool({
  name: 'QuestionViewRead',
  title: 'Read a question for its chat view',
  group: 'interaction',
  description: "For Pincer's question view in the chat (MCP Apps), not for the model: a question put by AskUserQuestion, its state and its answers.",
  inputSchema: z.object({
    question_id: z.number().int().positive('question_id is the id AskUserQuestion gave').optional().describe('The question to read'),
    questions_json: z.string().optional().describe("Instead of question_id: the newest question this client asked with these questions (AskUserQuestion's argument)"),
    status: z.enum(['pending', 'answered', 'declined', 'timeout', 'cancelled']).optional().describe('The state the view shows: with wait_ms, wait until the question leaves it'),
    wait_ms: z.number().int().min(0).optional().describe('With status: wait up to this long for a change (capped at JOB_WAIT_MAX_MS)'),
  }),
  outputSchema: resultShape,
  annotations: { title: 'Read a question for its chat view', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  view: { uri: VIEWS.question, appOnly: true },
  async handler(args, ctx) {
    const repo = ctx.services.questions;
    const find = (): QuestionRow | undefined => {
      if (args.question_id !== undefined) return repo.get(args.question_id);
      if (args.questions_json !== undefined && ctx.callerId) return repo.newestOf(ctx.callerId, parseQuestions(args.questions_json));
      return undefined;
    };
    let row = find();
    if (args.question_id !== undefined && !row) throw new UserError(`QuestionViewRead: there is no question ${args.question_id}.`, 'NOT_FOUND');
    if (row && args.status !== undefined && args.wait_ms) {
      const id = row.id;
      const shown = args.status;
      await waitForChange(ctx, {
        changed: () => {
          row = repo.get(id) ?? row;
          return row!.status !== shown;
        },
        waitMs: args.wait_ms,
        wakeOn: ['question_answered'],
        everyMs: 1000,
      });
    }
    return answerOf(row, ctx);
  },
});

/**
 * The question view's Send and Decline: the dashboard's answer, taken the same way (Asker.answer), so the
 * waiting AskUserQuestion call gets it exactly as it gets one given in the dashboard.
 */
export const questionViewAnswerTool = defineTool({
  name: 'QuestionViewAnswer',
  title: 'Answer a question from its chat view',
  group: 'interaction',
  description: "For Pincer's question view in the chat (MCP Apps), not for the model: the person's answer to a pending question, or decline: true.",
  inputSchema: z.object({
    question_id: z.number().int().positive('question_id is the id AskUserQuestion gave').describe('The question answered'),
    answers: z.array(Answer).optional().describe('One answer per question, in order: selected (a label, or labels for multiSelect) and/or other'),
    decline: z.boolean().optional().describe('The person declines to answer'),
  }),
  outputSchema: resultShape,
  annotations: { title: 'Answer a question from its chat view', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  view: { uri: VIEWS.question, appOnly: true },
  async handler(args, ctx) {
    if (args.decline !== true && args.answers === undefined) throw new UserError('QuestionViewAnswer: pass answers (one per question) or decline: true.', 'INVALID_INPUT');
    const row = ctx.services.asker.answer(args.question_id, args.decline === true ? { decline: true } : { answers: args.answers }, 'chat');
    return answerOf(row, ctx);
  },
});
