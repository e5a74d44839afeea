import { z } from 'zod';
import { inputResponse, type CallToolResult } from '@modelcontextprotocol/server';
import { defineTool, textResult, type ToolResult, type UserQuestion } from '../types.js';
import { UserError } from '../../core/errors.js';
import type { SettingsView } from '../../core/settings/view.js';
import type { Asker, AskOutcome } from './asker.js';
import { parseQuestions, formatAnswers, Answer } from './question-shapes.js';
import { VIEWS } from '../views/links.js';

/** The key of the form a question task shows in tasks/get's inputRequests (one question per task). */
export const QUESTION_INPUT_KEY = 'ask';

export const askUserQuestionTool = defineTool({
  name: 'AskUserQuestion',
  title: 'Ask the person a question',
  group: 'interaction',
  description:
    'Ask the person at the keyboard 1-4 multiple-choice questions (2-8 options each; they may also answer in their own words) and wait ' +
    'for the answer. Use when a decision needs them: a preference, an approval, missing information. questions_json is a JSON string: ' +
    '[{"question":"…","header":"…","options":[{"label":"…","description":"…"}],"multiSelect":false}] or {"questions":[{"text":"…","options":["A","B"]}]}. ' +
    'When nobody has answered yet the result says so with a question_id: call again with {"question_id": N} to collect the answer.',
  inputSchema: z.object({
    questions_json: z.string().optional().describe('JSON string with questions and options'),
    question_id: z.number().int().positive('question_id is the id an earlier AskUserQuestion result gave').optional().describe('Collect the answer to an earlier question instead of asking'),
  }),
  outputSchema: z.object({ status: z.enum(['answered', 'declined', 'timeout', 'cancelled', 'waiting']), answers: z.array(Answer), question_id: z.number().int() }),
  annotations: { title: 'Ask the person a question', readOnlyHint: true, idempotentHint: false, openWorldHint: false },
  view: { uri: VIEWS.question },
  async handler(args, ctx) {
    if (args.questions_json !== undefined && args.question_id !== undefined) throw new UserError('AskUserQuestion: pass questions_json to ask, or question_id to collect an earlier answer, not both.', 'INVALID_INPUT');
    // Asked (or collected) the way the call can carry it: the client's form — on its stream, in a round
    // trip, in a task's input — and the dashboard, whichever answers first (calls/asking.ts).
    let question: UserQuestion;
    if (args.question_id !== undefined) question = { questionId: args.question_id, purpose: 'ask' };
    else if (args.questions_json !== undefined) question = { questions: parseQuestions(args.questions_json), purpose: 'ask' };
    else throw new UserError('AskUserQuestion: questions_json is missing; pass the questions to ask (or question_id to collect an earlier answer).', 'INVALID_INPUT');
    return outcomeResult(await ctx.askUser(question), ctx.services.settings);
  },
  // A client of the tasks extension gets the question as a task: input_required with the form, answered
  // by tasks/update or the dashboard, and carried over a hub restart (the question lives in SQLite).
  taskSupport: 'optional',
});

/** The tool result for a question's outcome (a plain call, a task, or a task another hub started). */
export function outcomeResult(r: AskOutcome, settings: SettingsView): ToolResult {
  if (r.status === 'answered') {
    return textResult(`The person answered:\n${formatAnswers(r.answers)}`, { status: r.status, answers: r.answers, question_id: r.questionId });
  }
  if (r.status === 'waiting') {
    return textResult(
      `Nobody has answered question ${r.questionId} yet; it stays open in the Pincer dashboard for another ${r.openForS} s. ` +
        `Carry on with other work if you can, then call AskUserQuestion with {"question_id": ${r.questionId}} to collect the answer.`,
      { status: r.status, answers: [], question_id: r.questionId },
    );
  }
  const text =
    r.status === 'declined'
      ? 'The person declined to answer. Continue without it or ask differently.'
      : r.status === 'timeout'
        ? `Nobody answered within ${settings.get('ASK_TIMEOUT_S')} s. Continue with your best judgement, or ask again later.`
        : 'The question was cancelled.';
  return textResult(text, { status: r.status, answers: [], question_id: r.questionId });
}

/** What a task whose work is a question needs of it, even in a hub that did not start the task. */
export interface QuestionTaskWork {
  /** Waits until the question is settled: AskUserQuestion's result for it. */
  result(questionId: number, signal: AbortSignal): Promise<CallToolResult>;
  /** The client's answer, sent by tasks/update under QUESTION_INPUT_KEY; the dashboard's answer, if it came first, stands. */
  answer(questionId: number, response: unknown): void;
  /** The task was cancelled: so is its question (unless it was settled already). */
  cancel(questionId: number): void;
}

export function questionTaskWork(asker: Asker, settings: SettingsView): QuestionTaskWork {
  return {
    result: async (id, signal) => outcomeResult(await asker.settled(id, signal), settings),
    answer: (id, response) => {
      const reply = inputResponse({ [QUESTION_INPUT_KEY]: response }, QUESTION_INPUT_KEY);
      if (reply.kind !== 'elicit') throw new UserError(`tasks/update: inputResponses.${QUESTION_INPUT_KEY} must answer the form (an elicitation result: {"action":"accept","content":{…}}, or "decline"/"cancel").`, 'INVALID_INPUT');
      asker.settleFromClient(id, { action: reply.action, ...(reply.content ? { content: reply.content as Record<string, string> } : {}) });
    },
    cancel: (id) => void asker.cancel(id),
  };
}
