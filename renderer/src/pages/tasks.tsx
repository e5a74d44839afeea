import { useResource } from '../hooks.js';
import { Empty, Panel, Problem, Pending } from '../ui.js';
import { renderMarkdown } from '../markdown.js';
import type { PageProps, TasksView } from '../types.js';


export function TasksPage(props: PageProps) {
  const r = useResource<TasksView>('/api/tasks', ['tasks_changed', 'plan_changed'], props.onSignedOut);
  if (!r.data) return <Pending error={r.error} />;
  const { tasks, plan } = r.data;
  return (
    <>
      <Problem text={r.error} />
      {plan.goal ? (
        <Panel title={`Plan: ${plan.goal}`}>
          <p class="muted">
            Status: {plan.status}
            {plan.comment ? ` — ${plan.comment}` : ''}
            {plan.plan_file ? ` · ${plan.plan_file}` : ''}
          </p>
          {/* markdown-it with html off: the plan's text cannot become markup of its own. */}
          {plan.text ? <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(plan.text) }} /> : null}
        </Panel>
      ) : null}
      {tasks.length === 0 ? (
        <Panel>
          <Empty title="No tasks yet">When a model uses TaskManager, its tasks and steps show up here with their progress.</Empty>
        </Panel>
      ) : (
        [...tasks].reverse().map((t) => (
          <section class="panel" key={t.id} data-task={t.id}>
            <div class="row">
              <h2 class="flush">
                {t.active ? '▶ ' : ''}
                {t.name}
              </h2>
              <span class="spacer" />
              <span class="muted">
                {t.done}/{t.total} done
              </span>
            </div>
            <progress max={Math.max(1, t.total)} value={t.total ? t.done : t.completed ? 1 : 0} aria-label={`${t.name}: ${t.done} of ${t.total} steps done`} />
            <ul class="steps">
              {t.steps.map((s) => (
                <li key={s.id} class={s.done ? 'done' : ''}>
                  <span aria-hidden="true">{s.done ? '☑' : '☐'}</span> {s.text}
                  {s.done ? <span class="visually-hidden"> (done)</span> : null}
                </li>
              ))}
            </ul>
          </section>
        ))
      )}
    </>
  );
}
