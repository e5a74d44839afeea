import { z } from 'zod';
import type { TodoWithSteps, TodosRepo } from '../../store/todos.js';
import { withinBudget } from '../budget.js';

/**
 * How TaskManager, the pincer://tasks resource and the dashboard show todos: bounded whatever the data.
 * A todo shows at most `maxSteps` steps (its open ones first choice), a name or step at most CLIP
 * characters; a list stops at a budget of characters and says what it left out.
 */

const CLIP = 500;
/** Steps a todo shows in a list; one todo on its own (create, add, complete, pending) shows more. */
export const LIST_STEPS = 25;
export const ONE_TODO_STEPS = 200;

export const stepShape = z.object({ id: z.number().int(), text: z.string(), done: z.boolean() });
export const todoShape = z.object({
  id: z.number().int(),
  name: z.string(),
  active: z.boolean(),
  done: z.number().int(),
  total: z.number().int(),
  completed: z.boolean(),
  archived: z.boolean().optional(),
  steps: z.array(stepShape),
  /** Steps not listed here (a long todo in a list): ask for the todo alone, or its open steps with pending. */
  steps_left_out: z.number().int().optional(),
});
export type TodoData = z.infer<typeof todoShape>;

export function clip(text: string, max = CLIP): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A todo as data. With more steps than `maxSteps`, the open ones are kept first (in order), then the
 * newest done ones, so that a long checklist still shows what is left to do.
 */
export function todoData(t: TodoWithSteps, maxSteps = ONE_TODO_STEPS): TodoData {
  const done = t.steps.filter((s) => s.done_at !== null).length;
  let steps = t.steps;
  if (steps.length > maxSteps) {
    const open = steps.filter((s) => s.done_at === null).slice(0, maxSteps);
    const room = maxSteps - open.length;
    const lastDone = room > 0 ? steps.filter((s) => s.done_at !== null).slice(-room) : [];
    const keep = new Set([...open, ...lastDone].map((s) => s.id));
    steps = steps.filter((s) => keep.has(s.id));
  }
  return {
    id: t.id,
    name: clip(t.name),
    active: t.active,
    done,
    total: t.steps.length,
    completed: t.completed_at !== null,
    ...(t.archived_at !== null ? { archived: true } : {}),
    steps: steps.map((s) => ({ id: s.id, text: clip(s.text), done: s.done_at !== null })),
    ...(steps.length < t.steps.length ? { steps_left_out: t.steps.length - steps.length } : {}),
  };
}

/** A todo as a checklist: `[x] 3. text`. */
export function checklist(t: TodoData): string {
  const head = `${t.active ? '▶ ' : ''}Task ${t.id}: ${t.name} — ${t.done}/${t.total} done${t.completed ? ' ✓' : ''}${t.archived ? ' (archived)' : ''}`;
  const more = t.steps_left_out ? [`  … ${t.steps_left_out} more step(s) not shown: {"action":"pending","task_id":${t.id}} lists its open steps`] : [];
  return [head, ...t.steps.map((s) => `  [${s.done ? 'x' : ' '}] ${s.id}. ${s.text}`), ...more].join('\n');
}

const FINISHED_IN_RESOURCE = 20;

/** The pincer://tasks resource: open todos and the newest finished ones, as markdown, within the budget. */
export function todosMarkdown(repo: TodosRepo): string {
  const counts = repo.counts();
  if (counts.open + counts.done + counts.archived === 0) return '# Tasks\n\nNo tasks yet.\n';
  const open = repo.page({ status: 'open', limit: 100 }).rows;
  const done = repo.page({ status: 'done', limit: FINISHED_IN_RESOURCE }).rows;
  const md = (t: TodoWithSteps) => {
    const d = todoData(t, LIST_STEPS);
    const steps = d.steps.map((s) => `- [${s.done ? 'x' : ' '}] ${s.text} (step ${s.id})`).join('\n') || '_no steps_';
    return `## ${d.active ? '▶ ' : ''}${d.id}. ${d.name} (${d.done}/${d.total})\n\n${steps}${d.steps_left_out ? `\n- … ${d.steps_left_out} more step(s)` : ''}`;
  };
  const fit = withinBudget([...open, ...done], md);
  const left = counts.open + counts.done - fit.shown.length;
  const note = left > 0 || counts.archived > 0 ? `\n\n_${left > 0 ? `${left} more task(s) not shown` : ''}${left > 0 && counts.archived ? '; ' : ''}${counts.archived ? `${counts.archived} archived` : ''}: TaskManager {"action":"list"} pages through them._` : '';
  return `# Tasks\n\n${fit.text.join('\n\n')}${note}\n`;
}
