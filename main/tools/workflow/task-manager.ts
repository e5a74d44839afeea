import { z } from 'zod';
import { defineTool, textResult, type Services } from '../types.js';
import { UserError } from '../../core/errors.js';
import { TODO_FILTERS, type TodoFilter, type TodoWithSteps, type TodosRepo } from '../../store/todos.js';
import { checklist, todoData, todoShape, LIST_STEPS, type TodoData } from './todo-views.js';
import { withinBudget } from '../budget.js';
import { VIEWS } from '../views/links.js';

export { todoData, checklist, todoShape } from './todo-views.js';

const ACTIONS = ['create', 'add', 'complete', 'list', 'pending', 'switch', 'archive', 'delete'] as const;
/** Finished todos a plain `list` shows below the open ones; the rest are counted and paged with status. */
const NEWEST_FINISHED = 5;
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

const listShape = z.object({
  action: z.string(),
  tasks: z.array(todoShape),
  task: todoShape.optional(),
  /** How many todos match the list's status and query (at least this many when `total_is_lower_bound`). */
  total: z.number().int().optional(),
  total_is_lower_bound: z.boolean().optional(),
  offset: z.number().int().optional(),
  /** Todos by state, for a list: open, finished (done) and archived. */
  counts: z.object({ open: z.number().int(), done: z.number().int(), archived: z.number().int() }).optional(),
  /** The arguments that show the next page, when there is one. */
  next: z.object({ action: z.literal('list'), status: z.enum(TODO_FILTERS).optional(), query: z.string().optional(), offset: z.number().int() }).optional(),
});
type ListData = z.infer<typeof listShape>;

const plural = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

/** `list` without a status: every open todo (newest first, paged), then the newest finished ones, with the count of the rest. */
function overview(repo: TodosRepo, q: string | undefined, offset: number, limit: number): { text: string; data: ListData } {
  const counts = repo.counts();
  const open = repo.page({ status: 'open', q, offset, limit });
  const finished = offset === 0 ? repo.page({ status: 'done', q, limit: NEWEST_FINISHED }) : { rows: [], total: 0, capped: false };
  const fit = withinBudget([...open.rows, ...finished.rows].map((t) => todoData(t, LIST_STEPS)), checklist);
  const openShown = fit.shown.filter((t) => !t.completed).length;
  const doneShown = fit.shown.length - openShown;
  const head: string[] = [];
  const matching = q ? ` matching "${q}"` : '';
  head.push(
    open.total === 0
      ? `No open tasks${matching}.`
      : `Open tasks${matching}: ${openShown === open.total ? `all ${open.total.toLocaleString('en-US')}` : `${offset + 1}–${offset + openShown} of ${open.total.toLocaleString('en-US')}${open.capped ? '+' : ''}`}, newest first.`,
  );
  if (offset === 0) {
    const restDone = finished.total - doneShown;
    head.push(
      finished.total === 0
        ? `No finished tasks${matching}.`
        : `Finished${matching}: ${plural(finished.total, 'task')}${finished.capped ? '+' : ''}${doneShown ? `, the newest ${doneShown} shown` : ''}${restDone > 0 ? `; the other ${restDone.toLocaleString('en-US')}${finished.capped ? '+' : ''} with {"action":"list","status":"done"}` : ''}.`,
    );
  }
  if (!q && counts.archived > 0) head.push(`Archived: ${plural(counts.archived, 'task')} ({"action":"list","status":"archived"}).`);
  const nextOffset = offset + openShown;
  const next = nextOffset < open.total ? { action: 'list' as const, ...(q ? { query: q } : {}), offset: nextOffset } : undefined;
  if (next) head.push(`More open tasks: ${JSON.stringify(next)}.`);
  if (fit.cut > 0 && !next) head.push(`${fit.cut} task(s) left out to keep this answer short.`);
  return {
    text: [head.join(' '), ...fit.text].join('\n\n'),
    data: { action: 'list', tasks: fit.shown, total: open.total + finished.total, ...(open.capped || finished.capped ? { total_is_lower_bound: true } : {}), offset, counts, ...(next ? { next } : {}) },
  };
}

/** `list` with a status: one page of those todos, newest first. */
function pageOf(repo: TodosRepo, status: TodoFilter, q: string | undefined, offset: number, limit: number): { text: string; data: ListData } {
  const counts = repo.counts();
  const page = repo.page({ status, q, offset, limit });
  const fit = withinBudget(page.rows.map((t) => todoData(t, LIST_STEPS)), checklist);
  const what = `${status === 'all' ? '' : `${status === 'done' ? 'finished' : status} `}tasks${q ? ` matching "${q}"` : ''}`;
  const nextOffset = offset + fit.shown.length;
  const next = nextOffset < page.total ? { action: 'list' as const, status, ...(q ? { query: q } : {}), offset: nextOffset } : undefined;
  const head =
    page.total === 0
      ? `No ${what}.`
      : fit.shown.length === 0
        ? `No ${what} past ${offset}: there are ${page.total.toLocaleString('en-US')}.`
        : `${what[0]!.toUpperCase()}${what.slice(1)}: ${offset + 1}–${nextOffset} of ${page.total.toLocaleString('en-US')}${page.capped ? '+' : ''}, newest first.${next ? ` Next page: ${JSON.stringify(next)}.` : ''}`;
  return {
    text: [head, ...fit.text].join('\n\n'),
    data: { action: 'list', tasks: fit.shown, total: page.total, ...(page.capped ? { total_is_lower_bound: true } : {}), offset, counts, ...(next ? { next } : {}) },
  };
}

/**
 * Marks a step done (TaskManager's complete, and the todo view's checkbox): its todo as it is now. `inTodo`:
 * the todo the caller named, which the step must belong to.
 */
export function completeStep(services: Services, stepId: number, inTodo: number | undefined, who: string): TodoWithSteps {
  const repo = services.todos;
  const step = repo.step(stepId);
  if (!step || (inTodo !== undefined && step.task_id !== inTodo)) {
    throw new UserError(`${who}: there is no step ${stepId}${inTodo !== undefined ? ` in task ${inTodo}` : ''}. {"action":"list"} shows step ids.`, 'NOT_FOUND');
  }
  repo.completeStep(step.id);
  services.events.publish({ type: 'tasks_changed', ids: [step.task_id], at: Date.now() });
  return repo.withSteps(step.task_id)!;
}

export const taskManagerTool = defineTool({
  name: 'TaskManager',
  title: 'Keep todos and steps',
  group: 'workflow',
  description:
    'Keep a persistent checklist of todos (tasks, as task_id calls them) and their steps that survives restarts and is shared with other clients. Actions: create (new ' +
    'task named text; it becomes active), add (step text to task_id or the active task), complete (step_id, or a whole task_id), list ' +
    '(open tasks and the newest finished ones, with the count of the rest; status open|done|archived|all lists one kind, query filters by ' +
    'name or step text, offset and limit page), pending (open steps of the active task or task_id), switch (make task_id active), archive ' +
    '(put a finished task_id away), delete (remove task_id and its steps).',
  inputSchema: z.object({
    action: z.string().describe(`Action: ${ACTIONS.join(', ')}`),
    query: z.string().optional().describe('Filter for list: text in a task\'s name or steps (older clients send it on every action; it is ignored elsewhere)'),
    task_id: z.number().int().optional().describe('Task ID'),
    step_id: z.number().int().optional().describe('Step ID'),
    text: z.string().optional().describe('Task name or step text'),
    status: z.enum(TODO_FILTERS).optional().describe('For list: open, done (finished), archived or all; without it, open tasks and the newest finished ones'),
    offset: z.number().int().min(0).optional().describe('For list: skip this many tasks (the answer says which offset comes next)'),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`For list: tasks per page (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`),
  }),
  outputSchema: listShape,
  annotations: { title: 'Keep todos and steps', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  view: { uri: VIEWS.task },
  async handler(args, ctx) {
    const repo = ctx.services.todos;
    const action = args.action.trim().toLowerCase();
    const changed = (...ids: number[]) => ctx.services.events.publish({ type: 'tasks_changed', ids, at: Date.now() });
    const needTodo = (id: number | undefined): TodoWithSteps => {
      const todoId = id ?? repo.activeId();
      if (todoId === undefined) throw new UserError(`TaskManager ${action}: there is no active task. Create one with {"action":"create","text":"…"} or pass task_id.`, 'CONFLICT');
      const t = repo.withSteps(todoId);
      if (!t) throw new UserError(`TaskManager ${action}: there is no task ${todoId}. {"action":"list"} shows the ids.`, 'NOT_FOUND');
      return t;
    };
    const one = (id: number, lead: string) => {
      const data = todoData(repo.withSteps(id)!);
      return textResult(`${lead}\n${checklist(data)}`, { action, tasks: [data], task: data });
    };
    switch (action) {
      case 'create': {
        const name = args.text?.trim() || args.query?.trim();
        if (!name) throw new UserError('TaskManager create: text (the task name) is empty; pass {"action":"create","text":"…"}.', 'INVALID_INPUT');
        const t = repo.create(name);
        changed(t.id);
        return one(t.id, `Created task ${t.id} and made it active.`);
      }
      case 'add': {
        const text = args.text?.trim();
        if (!text) throw new UserError('TaskManager add: text (the step) is empty; pass {"action":"add","text":"…"}.', 'INVALID_INPUT');
        const t = needTodo(args.task_id);
        const step = repo.addStep(t.id, text);
        changed(t.id);
        return one(t.id, `Added step ${step.id} to task ${t.id}.`);
      }
      case 'complete': {
        if (args.step_id !== undefined) {
          const t = completeStep(ctx.services, args.step_id, args.task_id, 'TaskManager complete');
          return one(t.id, `Completed step ${args.step_id}.`);
        }
        if (args.task_id === undefined) throw new UserError('TaskManager complete: pass step_id to complete a step, or task_id alone to complete a whole task.', 'INVALID_INPUT');
        const t = needTodo(args.task_id);
        repo.completeTodo(t.id);
        changed(t.id);
        return one(t.id, `Completed task ${t.id} and all its steps.`);
      }
      case 'list':
        return listTodos(repo, args);
      case 'pending':
        return pendingSteps(needTodo(args.task_id), action);
      case 'switch': {
        if (args.task_id === undefined) throw new UserError('TaskManager switch: pass task_id of the task to make active.', 'INVALID_INPUT');
        const t = needTodo(args.task_id);
        repo.setActive(t.id);
        changed(t.id);
        return one(t.id, `Task ${t.id} is now active.`);
      }
      case 'archive': {
        if (args.task_id === undefined) throw new UserError('TaskManager archive: pass task_id of the finished task to put away.', 'INVALID_INPUT');
        const t = needTodo(args.task_id);
        if (t.completed_at === null) {
          const d = todoData(t);
          throw new UserError(`TaskManager archive: task ${t.id} is still open (${d.done}/${d.total} steps done). Complete it first ({"action":"complete","task_id":${t.id}}), or delete it.`, 'CONFLICT');
        }
        repo.archive(t.id);
        changed(t.id);
        return one(t.id, `Archived task ${t.id}: it is out of the default list ({"action":"list","status":"archived"} shows it).`);
      }
      case 'delete': {
        if (args.task_id === undefined) throw new UserError('TaskManager delete: pass task_id of the task to delete.', 'INVALID_INPUT');
        const t = needTodo(args.task_id);
        const data = todoData(t);
        repo.delete(t.id);
        changed(t.id);
        return textResult(`Deleted task ${t.id} (${data.name}) and its ${plural(data.total, 'step')}.`, { action, tasks: [] });
      }
      default:
        throw new UserError(`TaskManager: unknown action "${args.action}". Use one of: ${ACTIONS.join(', ')}.`, 'INVALID_INPUT');
    }
  },
});

/** `list`: one kind of task paged (status), or the overview (open ones and the newest finished). */
function listTodos(repo: TodosRepo, args: { query?: string; status?: TodoFilter; offset?: number; limit?: number }) {
  const q = args.query?.trim() || undefined;
  const limit = args.limit ?? DEFAULT_LIMIT;
  const r = args.status ? pageOf(repo, args.status, q, args.offset ?? 0, limit) : overview(repo, q, args.offset ?? 0, limit);
  if (r.data.tasks.length === 0 && (r.data.counts?.open ?? 0) + (r.data.counts?.done ?? 0) + (r.data.counts?.archived ?? 0) === 0) {
    return textResult('No tasks yet. Create one with {"action":"create","text":"…"}.', r.data);
  }
  return textResult(r.text, r.data);
}

/** `pending`: the open steps of one task, as many as the checklist shows, and how many more. */
function pendingSteps(t: TodoWithSteps, action: string) {
  const data: TodoData = todoData(t);
  const open = t.steps.filter((s) => s.done_at === null);
  const shown = data.steps.filter((s) => !s.done);
  const more = open.length > shown.length ? `\n  … and ${open.length - shown.length} more open step(s)` : '';
  const text = open.length === 0 ? `Task ${t.id} (${data.name}) has no open steps — ${data.done}/${data.total} done.` : `Open steps of task ${t.id} (${data.name}), ${data.done}/${data.total} done:\n${shown.map((s) => `  [ ] ${s.id}. ${s.text}`).join('\n')}${more}`;
  return textResult(text, { action, tasks: [data], task: data });
}
