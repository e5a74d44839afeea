import { z } from 'zod';
import { defineTool, textResult } from '../types.js';
import { parseQuestions, formatAnswers, Answer } from './questions.js';

export const askUserQuestionTool = defineTool({
  name: 'AskUserQuestion',
  title: 'Ask the person a question',
  group: 'interaction',
  description:
    'Ask the person at the keyboard 1-4 multiple-choice questions (2-8 options each; they may also answer in their own words) and wait ' +
    'for the answer. Use when a decision needs them: a preference, an approval, missing information. questions_json is a JSON string: ' +
    '[{"question":"…","header":"…","options":[{"label":"…","description":"…"}],"multiSelect":false}] or {"questions":[{"text":"…","options":["A","B"]}]}.',
  inputSchema: z.object({ questions_json: z.string().describe('JSON string with questions and options') }),
  outputSchema: z.object({ status: z.enum(['answered', 'declined', 'timeout', 'cancelled']), answers: z.array(Answer), question_id: z.number().int() }),
  annotations: { title: 'Ask the person a question', readOnlyHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx) {
    const questions = parseQuestions(args.questions_json);
    const r = await ctx.services.asker.ask(questions, ctx);
    if (r.status === 'answered') {
      return textResult(`The person answered:\n${formatAnswers(r.answers)}`, { status: r.status, answers: r.answers, question_id: r.questionId });
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
