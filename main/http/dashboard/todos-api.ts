import type express from 'express';
import { z } from 'zod';
import type { Runtime } from '../../calls/runtime.js';
import { TODO_FILTERS } from '../../store/todos.js';
import { fail, query, queryCount } from './replies.js';
import { planView, todosView, todoView } from './pages.js';

const TodosQuery = z.object({
  status: z.enum(TODO_FILTERS).optional(),
  q: z.string().max(500).optional(),
  offset: queryCount(10_000_000, 0),
  limit: queryCount(100, 20).pipe(z.number().min(1)),
});
const TODOS_USAGE = `Tasks take status (${TODO_FILTERS.join(', ')}), q (text in a name or step), offset and limit (1-100).`;

/** TaskManager's todos (a page, one, archive, delete) and the plan: the Todos page. The same store calls as the tool's. */
export function todoRoutes(r: express.Router, runtime: Runtime): void {
  const todos = runtime.services.todos;
  const changed = (id: number) => runtime.events.publish({ type: 'tasks_changed', ids: [id], at: Date.now() });
  const noTodo = (res: express.Response, id: string) => fail(res, 'NOT_FOUND', `No task ${id.slice(0, 40)} (finished tasks are deleted after TASK_RETENTION_DAYS).`);

  r.get('/api/tasks', (req, res) => {
    const q = query(req, res, TodosQuery, TODOS_USAGE);
    if (q) res.json(todosView(runtime, q));
  });

  r.get('/api/plan', (_req, res) => {
    res.json(planView(runtime));
  });

  r.get('/api/tasks/:id', (req, res) => {
    const view = todoView(runtime, Number(req.params.id), req.query.steps === 'all');
    if (!view) return noTodo(res, String(req.params.id));
    res.json(view);
  });

  r.post('/api/tasks/:id/archive', (req, res) => {
    const t = todos.get(Number(req.params.id));
    if (!t) return noTodo(res, String(req.params.id));
    if (t.completed_at === null) return fail(res, 'CONFLICT', `Task ${t.id} is still open: complete it first, or delete it.`);
    todos.archive(t.id);
    changed(t.id);
    res.json({ success: true });
  });

  r.delete('/api/tasks/:id', (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isInteger(id) || !todos.delete(id)) return noTodo(res, String(req.params.id));
    changed(id);
    res.json({ success: true });
  });
}
