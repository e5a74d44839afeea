import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { usePage, useResource } from '../hooks.js';
import { ConfirmButton, Empty, Panel, Problem, Pending, announce } from '../ui.js';
import { Pager } from '../pager.js';
import { SearchForm } from '../search-form.js';
import { Kept } from '../kept.js';
import { renderMarkdown } from '../markdown.js';
import type { PageProps, TodosView, TodoView, OneTodoView, PlanView } from '../types.js';

type Status = 'open' | 'done' | 'archived' | 'all';
const TABS: { value: Status; label: string }[] = [
  { value: 'open', label: 'Open' },
  { value: 'done', label: 'Finished' },
  { value: 'archived', label: 'Archived' },
  { value: 'all', label: 'All' },
];
const PAGE = 20;
/** Events within this long of each other are taken together. */
const COALESCE_MS = 150;

/** The hub's test for a todo a live event brought (store/todos.ts): its state, and the text in its name or steps. */
function matches(t: TodoView, status: Status, q: string): boolean {
  const text = !q || [t.name, ...t.steps.map((s) => s.text)].some((x) => x.toLowerCase().includes(q.toLowerCase()));
  const ok = status === 'all' || (status === 'open' && !t.completed) || (status === 'done' && t.completed && !t.archived) || (status === 'archived' && Boolean(t.archived));
  return text && ok;
}

function TodoCard(props: { task: TodoView; onProblem(text: string): void }) {
  const [t, setT] = useState(props.task);
  useEffect(() => setT(props.task), [props.task]);
  const act = async (what: string, path: string, method?: string) => {
    try {
      await api(path, method ? { method } : { body: {} });
      announce(`Task ${t.id} ${what}`);
    } catch (err) {
      props.onProblem(describeError(err));
    }
  };
  const showAll = async () => {
    try {
      setT((await api<OneTodoView>(`/api/tasks/${t.id}?steps=all`)).task);
    } catch (err) {
      props.onProblem(describeError(err));
    }
  };
  return (
    <section class="panel" data-task={t.id}>
      <div class="row">
        <h2 class="flush grow">
          {t.active ? '▶ ' : ''}
          {t.name}
        </h2>
        <span class="muted">
          {t.done}/{t.total} done{t.archived ? ' · archived' : ''}
        </span>
        {t.completed && !t.archived ? (
          <button type="button" onClick={() => void act('archived', `/api/tasks/${t.id}/archive`)}>
            Archive
          </button>
        ) : null}
        <ConfirmButton label="Delete" class="danger" question={`Delete todo ${t.id}?`} detail={`${t.name} and its ${t.total} steps`} confirm="Delete" onConfirm={() => act('deleted', `/api/tasks/${t.id}`, 'DELETE')} />
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
      {t.steps_left_out ? (
        <button type="button" class="inline-link" onClick={() => void showAll()}>
          {t.steps_left_out} more step(s)
        </button>
      ) : null}
    </section>
  );
}

function PlanPanel(props: { onSignedOut(): void }) {
  const r = useResource<PlanView>('/api/plan', ['plan_changed', 'records_pruned'], props.onSignedOut);
  const plan = r.data?.plan;
  if (!plan?.goal) return null;
  return (
    <Panel title={`Plan: ${plan.goal}`}>
      <p class="muted">
        Status: {plan.status}
        {plan.comment ? ` — ${plan.comment}` : ''}
        {plan.plan_file ? ` · ${plan.plan_file}` : ''}
      </p>
      {/* markdown-it with html off: the plan's text cannot become markup of its own. */}
      {plan.text ? <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(plan.text) }} /> : null}
    </Panel>
  );
}

/**
 * TaskManager's todos by state (open first), searchable, a page at a time with the total. A live event
 * names the todos it changed: each is fetched alone and put in place (or taken off), never the whole list.
 */
export function TodosPage(props: PageProps) {
  const [status, setStatus] = useState<Status>('open');
  const [q, setQ] = useState('');
  const [draft, setDraft] = useState('');
  const [offset, setOffset] = useState(0);
  const view = useRef({ status, q, offset });
  view.current = { status, q, offset };
  const p = new URLSearchParams({ status, limit: String(PAGE), offset: String(offset), ...(q ? { q } : {}) });
  /** Todos named by events and not fetched yet: a burst of steps on one todo asks for it once. */
  const pending = useRef({ ids: new Set<number>(), timer: 0 });
  const { data, error, setError } = usePage<TodosView>(`/api/tasks?${p}`, props.onSignedOut, (e, patch, reload) => {
    if (e.type === 'records_pruned' && e.tasks > 0) reload();
    if (e.type !== 'tasks_changed') return;
    // An event without ids (a change not tied to named tasks) reads the page again.
    if (!e.ids?.length) return reload();
    const q = pending.current;
    for (const id of e.ids) q.ids.add(id);
    if (q.timer) return;
    q.timer = window.setTimeout(() => {
      const ids = [...q.ids];
      q.ids.clear();
      q.timer = 0;
      for (const id of ids) {
        api<OneTodoView>(`/api/tasks/${id}`).then(
          (one) => patch((d) => d && place(d, one, view.current)),
          // Deleted: the page (and its counts) is read again, a rare act of the person or the model.
          () => reload(),
        );
      }
    }, COALESCE_MS);
  });

  if (!data) return <Pending error={error} />;
  const all = data.counts.open + data.counts.done + data.counts.archived;
  return (
    <>
      <Problem text={error} />
      <PlanPanel onSignedOut={props.onSignedOut} />
      <SearchForm id="tasks-search" placeholder="name or step" value={draft} onInput={setDraft} onSubmit={() => (setOffset(0), setQ(draft.trim()))}>
        <div class="tabs" role="group" aria-label="Which todos">
          {TABS.map((tab) => {
            const n = tab.value === 'all' ? all : data.counts[tab.value];
            return (
              <button key={tab.value} type="button" aria-pressed={status === tab.value} data-tab={tab.value} onClick={() => (setOffset(0), setStatus(tab.value))}>
                {tab.label} ({n.toLocaleString()})
              </button>
            );
          })}
        </div>
      </SearchForm>
      {all === 0 ? (
        <Panel>
          <Empty title="No todos yet">When a model uses TaskManager, its todos (TaskManager calls them tasks) and their steps show up here with their progress.</Empty>
        </Panel>
      ) : data.tasks.length === 0 ? (
        <p class="muted">No todo matches.</p>
      ) : (
        data.tasks.map((t) => <TodoCard key={t.id} task={t} onProblem={setError} />)
      )}
      <Pager what="todos" offset={offset} shown={data.tasks.length} total={data.total} capped={data.capped} page={PAGE} onOffset={setOffset} />
      <Kept kinds={['tasks']} onSignedOut={props.onSignedOut} />
    </>
  );
}

/** A todo a live event named, put where it belongs on this page (newest first), updated, or taken off. */
function place(d: TodosView, one: OneTodoView, v: { status: Status; q: string; offset: number }): TodosView {
  const id = one.task.id;
  const was = d.tasks.some((t) => t.id === id);
  const now = matches(one.task, v.status, v.q);
  let todos = d.tasks.filter((t) => t.id !== id);
  const last = todos.at(-1);
  if (now && (was || (v.offset === 0 && (!last || id > last.id || todos.length < PAGE)))) {
    todos = [...todos, one.task].sort((a, b) => b.id - a.id).slice(0, PAGE);
  }
  const c = one.counts;
  // Without a text filter the list's total is one of the counts, exact; with one, what the page saw change.
  const total = !v.q ? (v.status === 'all' ? c.open + c.done + c.archived : c[v.status]) : d.total + (now && !was ? 1 : 0) - (was && !now ? 1 : 0);
  return { ...d, tasks: todos, total, counts: c };
}
