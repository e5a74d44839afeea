import { z } from 'zod';
import { UserError } from '../../core/errors.js';

/** One question as Pincer stores and shows it, whatever shape the model sent. */
export const Question = z.object({
  question: z.string(),
  header: z.string().optional(),
  options: z.array(z.object({ label: z.string(), description: z.string().optional() })),
  multiSelect: z.boolean(),
});
export type Question = z.infer<typeof Question>;

export const Answer = z.object({
  question: z.string(),
  selected: z.union([z.string(), z.array(z.string())]),
  other: z.string().optional(),
});
export type Answer = z.infer<typeof Answer>;
export const Answers = z.object({ answers: z.array(Answer) });

const option = z.union([
  z.string().trim().min(1, 'an option label must not be empty').transform((label) => ({ label })),
  z.object({ label: z.string().trim().min(1, 'an option label must not be empty'), description: z.string().optional() }),
]);

const claudeShape = z.array(
  z.object({
    question: z.string().trim().min(1, 'question must not be empty'),
    header: z.string().optional(),
    options: z.array(option).min(2, 'each question needs 2 to 8 options').max(8, 'each question needs 2 to 8 options'),
    multiSelect: z.boolean().optional(),
  }),
);

const scorpioxShape = z.object({
  questions: z.array(
    z.object({
      text: z.string().trim().min(1, 'text must not be empty'),
      header: z.string().optional(),
      options: z.array(option).min(2, 'each question needs 2 to 8 options').max(8, 'each question needs 2 to 8 options'),
      multiSelect: z.boolean().optional(),
      multi_select: z.boolean().optional(),
    }),
  ),
});

/**
 * Accepts both shapes models send:
 * `{"questions":[{"text","options":[…]}]}` and `[{"question","header","options":[{"label","description"}],"multiSelect"}]`.
 */
export function parseQuestions(json: string): Question[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new UserError(`AskUserQuestion: questions_json is not valid JSON (${(err as Error).message}). Send a JSON string like [{"question":"…","options":[{"label":"A"},{"label":"B"}]}].`, 'INVALID_INPUT');
  }
  let questions: Question[];
  if (Array.isArray(value)) {
    const r = claudeShape.safeParse(value);
    if (!r.success) throw new UserError(`AskUserQuestion: ${describe(r.error)}`, 'INVALID_INPUT');
    questions = r.data.map((q) => ({ question: q.question, header: q.header, options: q.options, multiSelect: q.multiSelect ?? false }));
  } else if (value && typeof value === 'object' && 'questions' in value) {
    const r = scorpioxShape.safeParse(value);
    if (!r.success) throw new UserError(`AskUserQuestion: ${describe(r.error)}`, 'INVALID_INPUT');
    questions = r.data.questions.map((q) => ({ question: q.text, header: q.header, options: q.options, multiSelect: q.multiSelect ?? q.multi_select ?? false }));
  } else {
    throw new UserError('AskUserQuestion: questions_json must be an array of questions or an object with a "questions" array.', 'INVALID_INPUT');
  }
  if (questions.length < 1 || questions.length > 4) throw new UserError(`AskUserQuestion: ask 1 to 4 questions at a time (got ${questions.length}).`, 'INVALID_INPUT');
  for (const q of questions) {
    const labels = q.options.map((o) => o.label);
    const dup = labels.find((l, i) => labels.indexOf(l) !== i);
    if (dup) throw new UserError(`AskUserQuestion: the question "${q.question}" lists the option "${dup}" twice.`, 'INVALID_INPUT');
  }
  return questions;
}

function describe(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length ? i.path.join('.') + ': ' : ''}${i.message}`).join('; ');
}

/** The elicitation form: one choice field (an enum, or an array of enum for multi-select) and one free-text field per question. */
type Field =
  | { type: 'string'; title: string; description?: string; enum: string[] }
  | { type: 'array'; title: string; description?: string; items: { type: 'string'; enum: string[] } }
  | { type: 'string'; title: string };

export function elicitationSchema(questions: Question[]): { type: 'object'; properties: Record<string, Field>; required: string[] } {
  const properties: Record<string, Field> = {};
  questions.forEach((q, i) => {
    const labels = q.options.map((o) => o.label);
    const description = q.options.map((o) => (o.description ? `${o.label}: ${o.description}` : o.label)).join(' · ');
    properties[`q${i + 1}`] = q.multiSelect
      ? { type: 'array', title: q.question, description, items: { type: 'string', enum: labels } }
      : { type: 'string', title: q.question, description, enum: labels };
    properties[`q${i + 1}_other`] = { type: 'string', title: `${q.header ?? 'Other'}: your own answer (optional)` };
  });
  return { type: 'object', properties, required: [] };
}

export function answersFromElicitation(questions: Question[], content: Record<string, unknown>): Answer[] {
  return questions.map((q, i) => {
    const raw = content[`q${i + 1}`];
    const other = content[`q${i + 1}_other`];
    const selected = q.multiSelect ? (Array.isArray(raw) ? raw.map(String) : raw === undefined ? [] : [String(raw)]) : raw === undefined ? '' : String(raw);
    return { question: q.question, selected, ...(typeof other === 'string' && other.trim() ? { other: other.trim() } : {}) };
  });
}

/** Checks an answer posted by the dashboard against the questions it answers. */
export function validateAnswers(questions: Question[], value: unknown): Answer[] {
  const r = Answers.safeParse(value);
  if (!r.success) throw new UserError(`answers: ${describe(r.error)}. Send {"answers":[{"question","selected","other"?}]}.`, 'INVALID_INPUT');
  const answers = r.data.answers;
  if (answers.length !== questions.length) throw new UserError(`answers: expected ${questions.length} answer(s), one per question, got ${answers.length}.`, 'INVALID_INPUT');
  return questions.map((q, i) => {
    const a = answers[i]!;
    const labels = new Set(q.options.map((o) => o.label));
    const picked = Array.isArray(a.selected) ? a.selected : a.selected === '' ? [] : [a.selected];
    if (!q.multiSelect && picked.length > 1) throw new UserError(`answers: "${q.question}" takes one choice.`, 'INVALID_INPUT');
    const unknown = picked.find((p) => !labels.has(p));
    if (unknown !== undefined) throw new UserError(`answers: "${unknown}" is not an option of "${q.question}".`, 'INVALID_INPUT');
    if (picked.length === 0 && !a.other?.trim()) throw new UserError(`answers: "${q.question}" needs a choice or a free-text answer.`, 'INVALID_INPUT');
    return { question: q.question, selected: q.multiSelect ? picked : (picked[0] ?? ''), ...(a.other?.trim() ? { other: a.other.trim() } : {}) };
  });
}

export function formatAnswers(answers: Answer[]): string {
  return answers
    .map((a) => {
      const sel = Array.isArray(a.selected) ? a.selected.join(', ') : a.selected;
      return `- ${a.question}\n  → ${sel || '(no choice)'}${a.other ? `\n  → other: ${a.other}` : ''}`;
    })
    .join('\n');
}
