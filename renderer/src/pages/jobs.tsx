import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { useNow, usePage, useResource } from '../hooks.js';
import { ConfirmButton, Empty, Panel, Problem, announce, Pending } from '../ui.js';
import { Pager } from '../pager.js';
import { SearchForm } from '../search-form.js';
import { Kept } from '../kept.js';
import { HubJobOutput } from '../hub-job-output.js';
import { dateTime, duration } from '../format.js';
import type { McpTasksView, JobsView, JobView, OneJobView, PageProps } from '../types.js';

type Job = JobView;
type Status = 'all' | 'running' | 'ended' | 'succeeded' | 'failed' | 'killed' | 'lost';
const STATUSES: { value: Status; label: string }[] = [
  { value: 'all', label: 'all' },
  { value: 'running', label: 'running' },
  { value: 'ended', label: 'ended' },
  { value: 'failed', label: 'failed' },
  { value: 'succeeded', label: 'succeeded' },
  { value: 'killed', label: 'killed' },
  { value: 'lost', label: 'lost' },
];
const PAGE = 50;
/** MCP tasks on a page of their panel. */
const MCP_PAGE = 20;

/** The same test as the hub's (store/jobs.ts FILTER_SQL), for a job a live event brought. */
function matches(j: Job, status: Status, q: string): boolean {
  const text = !q || `${j.command} ${j.cwd}`.toLowerCase().includes(q.toLowerCase());
  const ok =
    status === 'all' ||
    (status === 'running' && j.running) ||
    (status === 'ended' && !j.running) ||
    (status === 'succeeded' && j.status === 'exited 0') ||
    (status === 'failed' && !j.running && j.status !== 'exited 0') ||
    (status === 'killed' && j.status === 'killed') ||
    (status === 'lost' && j.status === 'lost');
  return text && ok;
}

/** How long a running job has run, ticking on its own: the rest of the page does not re-render every second. */
function RunningFor(props: { since: number }) {
  const now = useNow(1000);
  return <>{duration(now - props.since)}</>;
}

function JobCard(props: { job: Job }) {
  const j = props.job;
  const [open, setOpen] = useState(j.running);
  const [problem, setProblem] = useState<string>();
  return (
    <section class="panel" data-job={j.id} id={`job-${j.id}`} tabIndex={-1}>
      <div class="row">
        <strong>#{j.id}</strong>
        <code class="grow wrap">{j.command}</code>
        <span class={j.running ? 'ok' : j.status === 'exited 0' ? 'muted' : 'warn'}>{j.status}</span>
        {j.running ? (
          <ConfirmButton
            label="Kill"
            class="danger"
            question={`Kill job #${j.id}?`}
            detail={j.command}
            confirm="Kill"
            onConfirm={async () => {
              try {
                const r = await api<{ status: string }>(`/api/jobs/${j.id}/kill`, { body: {} });
                announce(`Job ${j.id} ${r.status}`);
              } catch (err) {
                setProblem(describeError(err));
              }
            }}
          />
        ) : null}
      </div>
      <dl class="facts">
        <div>
          <dt>Started</dt>
          <dd>{dateTime(j.started_at)}</dd>
        </div>
        <div>
          <dt>{j.running ? 'Running for' : 'Ran for'}</dt>
          <dd>{j.running || j.ended_at === null ? <RunningFor since={j.started_at} /> : duration(j.ended_at - j.started_at)}</dd>
        </div>
        <div>
          <dt>Folder</dt>
          <dd class="wrap">{j.cwd}</dd>
        </div>
        <div>
          <dt>Client</dt>
          <dd>{j.client ?? (j.session ? `caller ${j.session.slice(0, 8)}` : 'unknown')}</dd>
        </div>
        {j.pid ? (
          <div>
            <dt>pid</dt>
            <dd>{j.pid}</dd>
          </div>
        ) : null}
      </dl>
      {j.note ? <p class="muted">{j.note}</p> : null}
      <details open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>Output ({j.log_bytes.toLocaleString()} bytes)</summary>
        {open ? <HubJobOutput jobId={j.id} /> : null}
      </details>
      <Problem text={problem} />
    </section>
  );
}

/**
 * Every running job (always, whatever the history), then one page of the others with their total. A live
 * event changes the one job it names: fetched alone and put in place, never the whole list again.
 */
export function JobsPage(props: PageProps) {
  const [status, setStatus] = useState<Status>('all');
  const [q, setQ] = useState('');
  const [draft, setDraft] = useState('');
  const [offset, setOffset] = useState(0);
  const view = useRef({ status, q, offset });
  view.current = { status, q, offset };
  const p = new URLSearchParams({ limit: String(PAGE), offset: String(offset), ...(status === 'all' ? {} : { status }), ...(q ? { q } : {}) });
  const { data, error } = usePage<JobsView>(`/api/jobs?${p}`, props.onSignedOut, (e, patch, reload) => {
    if (e.type === 'records_pruned' && e.jobs > 0) reload();
    if (e.type !== 'job_started' && e.type !== 'job_ended') return;
    api<OneJobView>(`/api/jobs/${e.job.id}`).then(
      (one) => patch((d) => d && place(d, one, view.current)),
      // Gone already (a Bash call that ran as a job and ended in time is forgotten): take it off the page.
      () => patch((d) => d && { ...d, running: d.running.filter((j) => j.id !== e.job.id), jobs: d.jobs.filter((j) => j.id !== e.job.id) }),
    );
  });

  // `?job=N#jobs` (the link of a job's view in the chat) brings that job's card forward: from the page when
  // it is on it, else fetched alone and shown above the history.
  const linked = useRef(new URLSearchParams(location.search).get('job'));
  const [extra, setExtra] = useState<Job>();
  useEffect(() => {
    if (!data || !linked.current) return;
    const id = Number(linked.current);
    linked.current = null;
    if (!Number.isInteger(id)) return;
    if ([...data.running, ...data.jobs].some((j) => j.id === id)) return showJob(id);
    api<OneJobView>(`/api/jobs/${id}`).then(
      (one) => (setExtra(one.job), requestAnimationFrame(() => showJob(id))),
      () => announce(`Job ${id} is no longer kept`),
    );
  }, [data]);

  if (!data) return <Pending error={error} />;
  const { counts } = data;
  const history = data.jobs.filter((j) => !j.running);
  const linkedCard = extra && ![...data.running, ...data.jobs].some((j) => j.id === extra.id) ? extra : undefined;
  return (
    <>
      <Problem text={error} />
      <SearchForm id="jobs-search" placeholder="command or folder" value={draft} onInput={setDraft} onSubmit={() => (setOffset(0), setQ(draft.trim()))} after={
        <p class="muted grow" data-jobs-counts>
          {counts.total.toLocaleString()} jobs · {counts.running} running · {counts.failed.toLocaleString()} failed
        </p>
      }>
        <label>
          <span>Show</span>
          <select id="jobs-status" value={status} onChange={(e) => (setOffset(0), setStatus((e.currentTarget as HTMLSelectElement).value as Status))}>
            {STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      </SearchForm>
      <h2 class="section">Running ({data.running.length})</h2>
      {data.running.length === 0 ? <p class="muted">No job is running.</p> : data.running.map((j) => <JobCard key={j.id} job={j} />)}
      {linkedCard ? <JobCard key={linkedCard.id} job={linkedCard} /> : null}
      <h2 class="section">{status === 'all' ? 'History' : `${STATUSES.find((s) => s.value === status)?.label ?? status} jobs`}</h2>
      {counts.total === 0 ? (
        <Panel>
          <Empty title="No background jobs">Jobs that a model starts with BackgroundBash appear here with their live output.</Empty>
        </Panel>
      ) : history.length === 0 ? (
        <p class="muted">No ended job matches.</p>
      ) : (
        history.map((j) => <JobCard key={j.id} job={j} />)
      )}
      <Pager what="jobs" offset={offset} shown={data.jobs.length} total={data.total} page={PAGE} onOffset={setOffset} />
      <McpTasksPanel onSignedOut={props.onSignedOut} />
      <Kept kinds={['jobs']} onSignedOut={props.onSignedOut} />
    </>
  );
}

/** A job a live event brought, put where it belongs: among the running, on this page, or nowhere on it. */
function place(d: JobsView, one: OneJobView, v: { status: Status; q: string; offset: number }): JobsView {
  const j = one.job;
  const running = d.running.filter((x) => x.id !== j.id);
  if (j.running) running.unshift(j);
  const known = d.jobs.some((x) => x.id === j.id) || d.running.some((x) => x.id === j.id);
  // Did it count toward this list before the event (as running), and does it now?
  const before = known && matches({ ...j, running: true, status: 'running' }, v.status, v.q);
  const now = matches(j, v.status, v.q);
  let jobs = d.jobs.filter((x) => x.id !== j.id);
  const first = jobs[0];
  const last = jobs.at(-1);
  // Newest first by id: the first page takes what is newer than its last job (or what fits); a later page only what falls inside it.
  const fits = v.offset === 0 ? !last || j.id > last.id || jobs.length < PAGE : Boolean(first && last && j.id < first.id && j.id > last.id);
  if (now && fits) jobs = [...jobs, j].sort((a, b) => b.id - a.id).slice(0, PAGE);
  const total = d.total + (now && !before ? 1 : 0) - (before && !now ? 1 : 0);
  return { ...d, running: running.sort((a, b) => b.id - a.id), jobs, total, counts: one.counts };
}

/**
 * Tool calls a client follows as MCP tasks (the tasks extension): they outlive the client's request and a hub
 * restart. A page at a time, with the total; a task event reads the page again (tasks change rarely).
 */
function McpTasksPanel(props: { onSignedOut(): void }) {
  const [offset, setOffset] = useState(0);
  const r = useResource<McpTasksView>(`/api/mcp-tasks?limit=${MCP_PAGE}&offset=${offset}`, ['mcp_task_changed', 'records_pruned'], props.onSignedOut);
  if (!r.data || r.data.total === 0) return null;
  return (
    <Panel title="MCP tasks">
      <ul class="mcp-tasks">
        {r.data.tasks.map((t) => (
          <li key={t.id} data-task={t.id}>
            <code>{t.tool}</code> <span class="tag">{t.status}</span> <span class="muted">{t.client ?? ''} · {new Date(t.created_at).toLocaleTimeString()}</span>
            {/* A task's own message says who may answer (a question task: the person, here too); the bare label only when it has none. */}
            {t.waiting_for.length && !t.message ? <span class="muted"> · waiting for the client: {t.waiting_for.join(', ')}</span> : null}
            {t.job !== null ? (
              <>
                {' · runs as '}
                <button type="button" class="inline-link" data-task-job={t.job} onClick={() => showJob(t.job!)}>
                  job #{t.job}
                </button>
              </>
            ) : null}
            {t.message ? <div class="muted">{t.message}</div> : null}
          </li>
        ))}
      </ul>
      <Pager what="MCP tasks" offset={offset} shown={r.data.tasks.length} total={r.data.total} page={MCP_PAGE} onOffset={setOffset} />
    </Panel>
  );
}

/** Brings a job's card into view and moves focus there (the page is one list; the URL's hash is the router's). */
function showJob(id: number): void {
  const card = document.getElementById(`job-${id}`);
  if (!card) {
    announce(`Job ${id} is not on this page`);
    return;
  }
  card.scrollIntoView({ block: 'start' });
  card.focus();
}
