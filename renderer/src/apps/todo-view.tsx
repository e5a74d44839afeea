import { useState } from 'preact/hooks';
import type { Board } from '../../../main/tools/views/todo-view.js';
import { renderMarkdown } from '../markdown.js';
import { callTool, numberArg, stringArg, structuredOf, usePoll, useCall } from './bridge.js';
import { DashboardLink, Problem, StatusLine } from './parts.js';

type Todo = Board['tasks'][number];
const PLAN_ACTIONS = new Set(['enter', 'exit', 'status', 'json', 'reset']);

function TodoCard(props: { task: Todo; onComplete(stepId: number): void; completing: ReadonlySet<number>; headingLevel: 'h1' | 'h2' }) {
  const t = props.task;
  const H = props.headingLevel;
  return (
    <section class="task" aria-labelledby={`task-${t.id}`} data-task={t.id}>
      <div class="head">
        <H id={`task-${t.id}`} class="title">
          {t.name}
        </H>
        <span class={`badge ${t.completed ? 'muted' : 'ok'}`}>{t.completed ? 'done' : t.active ? 'active' : 'open'}</span>
      </div>
      <div class="progress-row">
        <progress max={Math.max(1, t.total)} value={t.total ? t.done : t.completed ? 1 : 0} aria-label={`${t.name}: ${t.done} of ${t.total} steps done`} />
        <span class="muted small">
          {t.done}/{t.total} steps
        </span>
      </div>
      {t.steps.length ? (
        <ul class="steps">
          {t.steps.map((s) => (
            <li key={s.id} class={s.done ? 'done' : ''}>
              <label>
                {/* Ticked at once; the hub's answer confirms it (or the problem below says why not). */}
                <input type="checkbox" checked={s.done || props.completing.has(s.id)} disabled={s.done || props.completing.has(s.id)} onChange={(e) => e.currentTarget.checked && props.onComplete(s.id)} />
                <span>{s.text}</span>
              </label>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted small">No steps yet.</p>
      )}
    </section>
  );
}

function Plan(props: { plan: Board['plan']; open: boolean }) {
  const p = props.plan;
  if (!p.goal) return props.open ? <p class="muted">There is no plan. Plan mode is off.</p> : null;
  return (
    <details class="plan" open={props.open}>
      <summary>
        Plan: {p.goal} <span class="muted small">({p.status}{p.comment ? ` — ${p.comment}` : ''})</span>
      </summary>
      {/* markdown-it with html off: the plan's text cannot become markup of its own. */}
      {p.text ? <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(p.text) }} /> : <p class="muted">The plan has not been written yet.</p>}
      {p.plan_file ? <p class="muted small">From {p.plan_file}</p> : null}
    </details>
  );
}

export function TodoView() {
  const call = useCall();
  const [board, setBoard] = useState<Board>();
  const [completing, setCompleting] = useState<ReadonlySet<number>>(new Set());
  const [problem, setProblem] = useState<string>();
  const action = stringArg(call.input, 'action')?.trim().toLowerCase();
  const toolName = call.context?.toolInfo?.tool.name;
  const planCall = toolName ? toolName === 'PlanMode' : action !== undefined && PLAN_ACTIONS.has(action);
  const resultTodo = structuredOf(call.result)?.task;
  const resultTodoId = resultTodo && typeof resultTodo === 'object' && 'id' in resultTodo && typeof resultTodo.id === 'number' ? resultTodo.id : undefined;

  usePoll(
    async (signal) => {
      setBoard(await callTool<Board>('TaskViewRead', board ? { since: board.version, wait_ms: 15_000 } : {}, signal));
      return true;
    },
    [board?.version],
    setProblem,
    1500,
  );

  const complete = async (stepId: number) => {
    setCompleting((c) => new Set(c).add(stepId));
    try {
      setBoard(await callTool<Board>('TaskViewComplete', { step_id: stepId }));
      setProblem(undefined);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    } finally {
      setCompleting((c) => {
        const next = new Set(c);
        next.delete(stepId);
        return next;
      });
    }
  };

  if (!board) {
    return (
      <article class="view" aria-busy="true" aria-labelledby="title">
        <h1 id="title" class="title">
          {planCall ? 'Plan' : 'Todos'}
        </h1>
        <p class="muted">Loading…</p>
        <Problem text={problem} />
      </article>
    );
  }
  const wanted = resultTodoId ?? numberArg(call.input, 'task_id') ?? board.active_task_id ?? undefined;
  const one = action === 'list' ? undefined : board.tasks.find((t) => t.id === wanted);
  return (
    <article class="view" aria-labelledby={one && !planCall ? `task-${one.id}` : 'title'}>
      {planCall ? (
        <>
          <h1 id="title" class="title">
            Plan
          </h1>
          <Plan plan={board.plan} open />
        </>
      ) : one ? (
        <TodoCard task={one} onComplete={(id) => void complete(id)} completing={completing} headingLevel="h1" />
      ) : (
        <>
          <h1 id="title" class="title">
            Tasks
          </h1>
          {board.tasks.length ? board.tasks.map((t) => <TodoCard key={t.id} task={t} onComplete={(id) => void complete(id)} completing={completing} headingLevel="h2" />) : <p class="muted">No todos yet.</p>}
        </>
      )}
      {!planCall ? <Plan plan={board.plan} open={false} /> : null}
      <footer class="foot">{board.dashboard_url ? <DashboardLink url={board.dashboard_url} label="Tasks and plan on the Pincer dashboard" /> : null}</footer>
      <Problem text={problem} />
      <StatusLine text={one ? `${one.name}: ${one.done} of ${one.total} steps done` : ''} />
    </article>
  );
}
