import { z } from 'zod';
import { defineTool, textResult, type Services } from '../types.js';
import { UserError } from '../../core/errors.js';
import type { TaskWithSteps, TasksRepo } from '../../store/tasks.js';
import { VIEWS } from '../views/links.js';

const ACTIONS = ['create', 'add', 'complete', 'list', 'pending', 'switch'] as const;

const stepShape = z.object({ id: z.number().int(), text: z.string(), done: z.boolean() });
export const taskShape = z.object({ id: z.number().int(), name: z.string(), active: z.boolean(), done: z.number().int(), total: z.number().int(), completed: z.boolean(), steps: z.array(stepShape) });

export function taskData(t: TaskWithSteps): z.infer<typeof taskShape> {
  const done = t.steps.filter((s) => s.done_at !== null).length;
  return { id: t.id, name: t.name, active: t.active, done, total: t.steps.length, completed: t.completed_at !== null, steps: t.steps.map((s) => ({ id: s.id, text: s.text, done: s.done_at !== null })) };
}

/** A task as a checklist: `[x] 3. text`. */
export function checklist(t: z.infer<typeof taskShape>): string {
  const head = `${t.active ? '▶ ' : ''}Task ${t.id}: ${t.name} — ${t.done}/${t.total} done${t.completed ? ' ✓' : ''}`;
  return [head, ...t.steps.map((s) => `  [${s.done ? 'x' : ' '}] ${s.id}. ${s.text}`)].join('\n');
}

/** All tasks as markdown, for the pincer://tasks resource. */
export function tasksMarkdown(repo: TasksRepo): string {
  const tasks = repo.list().map(taskData);
  if (tasks.length === 0) return '# Tasks\n\nNo tasks yet.\n';
  return `# Tasks\n\n${tasks.map((t) => `## ${t.active ? '▶ ' : ''}${t.id}. ${t.name} (${t.done}/${t.total})\n\n${t.steps.map((s) => `- [${s.done ? 'x' : ' '}] ${s.text} (step ${s.id})`).join('\n') || '_no steps_'}`).join('\n\n')}\n`;
}

/**
 * Marks a step done (TaskManager's complete, and the task view's checkbox): its task as it is now. `inTask`:
 * the task the caller named, which the step must belong to.
 */
export function completeStep(services: Services, stepId: number, inTask: number | undefined, who: string): TaskWithSteps {
  const repo = services.tasks;
  const step = repo.step(stepId);
  if (!step || (inTask !== undefined && step.task_id !== inTask)) {
    throw new UserError(`${who}: there is no step ${stepId}${inTask !== undefined ? ` in task ${inTask}` : ''}. {"action":"list"} shows step ids.`, 'NOT_FOUND');
  }
  repo.completeStep(step.id);
  services.events.publish({ type: 'tasks_changed', at: Date.now() });
  return repo.withSteps(step.task_id)!;
}

export const taskManagerTool = defineTool({
  name: 'TaskManager',
  title: 'Keep tasks and steps',
  group: 'workflow',
  description:
    'Keep a persistent checklist of tasks and their steps that survives restarts and is shared with other sessions. Actions: create (new ' +
    'task named text; it becomes active), add (step text to task_id or the active task), complete (step_id, or a whole task_id), list ' +
    '(all tasks with progress; query filters by name), pending (open steps of the active task), switch (make task_id active).',
  inputSchema: z.object({
    action: z.string().describe('Action: create, add, complete, list, pending, switch'),
    query: z.string().optional().describe('Filter for list (older clients send it on every action; it is ignored elsewhere)'),
    task_id: z.number().int().optional().describe('Task ID'),
    step_id: z.number().int().optional().describe('Step ID'),
    text: z.string().optional().describe('Task name or step text'),
  }),
  outputSchema: z.object({ action: z.string(), tasks: z.array(taskShape), task: taskShape.optional() }),
  annotations: { title: 'Keep tasks and steps', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  view: { uri: VIEWS.task },
  async handler(args, ctx) {
    const repo = ctx.services.tasks;
    const action = args.action.trim().toLowerCase();
    const changed = () => ctx.services.events.publish({ type: 'tasks_changed', at: Date.now() });
    const needTask = (id: number | undefined): TaskWithSteps => {
      const taskId = id ?? repo.activeId();
      if (taskId === undefined) throw new UserError(`TaskManager ${action}: there is no active task. Create one with {"action":"create","text":"…"} or pass task_id.`, 'CONFLICT');
      const t = repo.withSteps(taskId);
      if (!t) throw new UserError(`TaskManager ${action}: there is no task ${taskId}. {"action":"list"} shows the ids.`, 'NOT_FOUND');
      return t;
    };
    const one = (t: TaskWithSteps, lead: string) => {
      const data = taskData(repo.withSteps(t.id)!);
      return textResult(`${lead}\n${checklist(data)}`, { action, tasks: [data], task: data });
    };
    switch (action) {
      case 'create': {
        const name = args.text?.trim() || args.query?.trim();
        if (!name) throw new UserError('TaskManager create: text (the task name) is empty; pass {"action":"create","text":"…"}.', 'INVALID_INPUT');
        const t = repo.create(name);
        changed();
        return one(repo.withSteps(t.id)!, `Created task ${t.id} and made it active.`);
      }
      case 'add': {
        const text = args.text?.trim();
        if (!text) throw new UserError('TaskManager add: text (the step) is empty; pass {"action":"add","text":"…"}.', 'INVALID_INPUT');
        const t = needTask(args.task_id);
        const step = repo.addStep(t.id, text);
        changed();
        return one(t, `Added step ${step.id} to task ${t.id}.`);
      }
      case 'complete': {
        if (args.step_id !== undefined) {
          const t = completeStep(ctx.services, args.step_id, args.task_id, 'TaskManager complete');
          return one(t, `Completed step ${args.step_id}.`);
        }
        if (args.task_id === undefined) throw new UserError('TaskManager complete: pass step_id to complete a step, or task_id alone to complete a whole task.', 'INVALID_INPUT');
        const t = needTask(args.task_id);
        repo.completeTask(t.id);
        changed();
        return one(t, `Completed task ${t.id} and all its steps.`);
      }
      case 'list': {
        const tasks = repo.list(args.query?.trim() || undefined).map(taskData);
        if (tasks.length === 0) return textResult(args.query ? `No task matches "${args.query}".` : 'No tasks yet. Create one with {"action":"create","text":"…"}.', { action, tasks: [] });
        return textResult(tasks.map(checklist).join('\n\n'), { action, tasks });
      }
      case 'pending': {
        const t = needTask(undefined);
        const data = taskData(t);
        const open = data.steps.filter((s) => !s.done);
        const text = open.length === 0 ? `Task ${t.id} (${t.name}) has no open steps — ${data.done}/${data.total} done.` : `Open steps of task ${t.id} (${t.name}), ${data.done}/${data.total} done:\n${open.map((s) => `  [ ] ${s.id}. ${s.text}`).join('\n')}`;
        return textResult(text, { action, tasks: [data], task: data });
      }
      case 'switch': {
        if (args.task_id === undefined) throw new UserError('TaskManager switch: pass task_id of the task to make active.', 'INVALID_INPUT');
        const t = needTask(args.task_id);
        repo.setActive(t.id);
        changed();
        return one(t, `Task ${t.id} is now active.`);
      }
      default:
        throw new UserError(`TaskManager: unknown action "${args.action}". Use one of: ${ACTIONS.join(', ')}.`, 'INVALID_INPUT');
    }
  },
});
