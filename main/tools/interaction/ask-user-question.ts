import { z } from 'zod';
import { askInClient, defineTool, textResult } from '../types.js';
import { UserError } from '../../core/errors.js';
import { parseQuestions, formatAnswers, Answer } from './questions.js';

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
  async handler(args, ctx) {
    if (args.questions_json !== undefined && args.question_id !== undefined) throw new UserError('AskUserQuestion: pass questions_json to ask, or question_id to collect an earlier answer, not both.', 'INVALID_INPUT');
    let r;
    const asker = ctx.services.asker;
    if (ctx.roundTrip?.answer) r = asker.settleFromClient(ctx.roundTrip.answer.questionId, ctx.roundTrip.answer.result);
    else if (ctx.roundTrip && args.questions_json !== undefined) {
      // 2026-07-28 with a form: the client shows it and calls again with the answer (the dashboard may answer first).
      const opened = asker.open(parseQuestions(args.questions_json), ctx);
      return askInClient(opened, `Question ${opened.questionId} is shown to the person in the client.`);
    } else if (args.question_id !== undefined) r = await asker.collect(args.question_id, ctx);
    else if (args.questions_json !== undefined) r = await asker.ask(parseQuestions(args.questions_json), ctx);
    else throw new UserError('AskUserQuestion: questions_json is missing; pass the questions to ask (or question_id to collect an earlier answer).', 'INVALID_INPUT');
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
          ? `Nobody answered within ${ctx.services.settings.get('ASK_TIMEOUT_S')} s. Continue with your best judgement, or ask again later.`
          : 'The question was cancelled.';
    return textResult(text, { status: r.status, answers: [], question_id: r.questionId });
  },
});
