import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineTool, textResult, type ToolContext } from '../types.js';
import { completeStep, todoData, todoShape } from '../workflow/task-manager.js';
import { LIST_STEPS } from '../workflow/todo-views.js';

/** Todos the view shows: every open one up to VIEW_OPEN, and the newest finished ones. */
const VIEW_OPEN = 50;
const VIEW_FINISHED = 10;
import { planJson } from '../workflow/plan-mode.js';
import { dashboardLink, VIEWS } from './links.js';
import { waitForChange } from './wait.js';

const planShape = z.object({
  active: z.boolean(),
  goal: z.string().nullable(),
  plan_file: z.string().nullable(),
  started_at: z.string().nullable(),
  status: z.string().nullable(),
  comment: z.string().nullable(),
  text: z.string().nullable().describe('The plan as the model wrote it (markdown)'),
});

const boardShape = z.object({
  tasks: z.array(todoShape),
  active_task_id: z.number().int().nullable(),
  plan: planShape,
  version: z.string().describe('Changes whenever the todos or the plan change: pass it back as since to wait for the next change'),
  dashboard_url: z.string().nullable(),
});
/** What the todo view gets from TaskViewRead and TaskViewComplete (renderer/src/apps). */
export type Board = z.infer<typeof boardShape>;

function boardOf(ctx: ToolContext): Omit<Board, 'version' | 'dashboard_url'> {
  const { todos, plans } = ctx.services;
  const plan = plans.current();
  const shown = plan?.status === 'reset' ? undefined : plan;
  // Bounded whatever the history: the open todos and the newest finished ones (the dashboard pages through the rest).
  const shownTodos = [...todos.page({ status: 'open', limit: VIEW_OPEN }).rows, ...todos.page({ status: 'done', limit: VIEW_FINISHED }).rows].map((t) => todoData(t, LIST_STEPS));
  return { tasks: shownTodos, active_task_id: todos.activeId() ?? null, plan: { ...planJson(shown), text: shown?.plan_text ?? null } };
}

function versionOf(board: Omit<Board, 'version' | 'dashboard_url'>): string {
  return createHash('sha256').update(JSON.stringify(board)).digest('base64url').slice(0, 16);
}

function answer(ctx: ToolContext, board = boardOf(ctx)) {
  const active = board.tasks.find((t) => t.id === board.active_task_id);
  return textResult(`${board.tasks.length} task(s)${active ? `; active: ${active.name} (${active.done}/${active.total})` : ''}; plan ${board.plan.status ?? 'none'}.`, {
    ...board,
    version: versionOf(board),
    dashboard_url: dashboardLink(ctx.services.paths, 'todos') ?? null,
  });
}

/**
 * What the todo view reads: every todo with its steps, the active one, and the current plan. With
 * `since` and `wait_ms` it waits until any of them changes (the model ticking a step, the dashboard,
 * another client), so the view follows the work as it goes.
 */
export const taskViewReadTool = defineTool({
  name: 'TaskViewRead',
  title: 'Read todos and the plan for the chat view',
  group: 'workflow',
  description: "For Pincer's todo view in the chat (MCP Apps), not for the model: TaskManager's todos with their steps, the active one and the current plan.",
  inputSchema: z.object({
    since: z.string().optional().describe('The version the view shows: with wait_ms, wait until it changes'),
    wait_ms: z.number().int().min(0).optional().describe('With since: wait up to this long for a change (capped at JOB_WAIT_MAX_MS)'),
  }),
  outputSchema: boardShape,
  annotations: { title: 'Read todos and the plan for the chat view', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  view: { uri: VIEWS.task, appOnly: true },
  async handler(args, ctx) {
    let board = boardOf(ctx);
    if (args.since !== undefined && args.wait_ms) {
      const since = args.since;
      await waitForChange(ctx, {
        changed: () => {
          board = boardOf(ctx);
          return versionOf(board) !== since;
        },
        waitMs: args.wait_ms,
        wakeOn: ['tasks_changed', 'plan_changed'],
        everyMs: 1000,
      });
    }
    return answer(ctx, board);
  },
});

/** The todo view's step checkbox: TaskManager's complete of one step. */
export const taskViewCompleteTool = defineTool({
  name: 'TaskViewComplete',
  title: 'Complete a step from the chat view',
  group: 'workflow',
  description: "For Pincer's todo view in the chat (MCP Apps), not for the model: marks one step of a todo done, as TaskManager complete does.",
  inputSchema: z.object({ step_id: z.number().int().positive('step_id is a step id the todo view shows').describe('The step to mark done') }),
  outputSchema: boardShape,
  annotations: { title: 'Complete a step from the chat view', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  view: { uri: VIEWS.task, appOnly: true },
  async handler(args, ctx) {
    completeStep(ctx.services, args.step_id, undefined, 'TaskViewComplete');
    return answer(ctx);
  },
});
