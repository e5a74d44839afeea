import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { useNow, useResource } from '../hooks.js';
import { onHubEvent } from '../live.js';
import { ConfirmButton, Empty, Panel, Problem, announce, Pending } from '../ui.js';
import { dateTime, duration } from '../format.js';
import type { McpTasksView, JobsView, JobView, PageProps } from '../types.js';

type Job = JobView;

/**
 * A job's output, fetched only while its pane is open and appended as the hub
 * announces more. Not a live region: a screen reader would read every line.
 */
function Output(props: { job: Job }) {
  const pre = useRef<HTMLPreElement>(null);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const pos = useRef<number | undefined>(undefined);
  const busy = useRef(false);
  useEffect(() => {
    let alive = true;
    const pull = async () => {
      if (busy.current) return;
      busy.current = true;
      try {
        const r = await api<{ from: number; to: number; text: string }>(`/api/jobs/${props.job.id}/output${pos.current === undefined ? '' : `?from=${pos.current}`}`);
        if (!alive) return;
        pos.current = r.to;
        if (r.text) {
          const el = pre.current;
          const atBottom = !el || el.scrollHeight - el.scrollTop - el.clientHeight < 8;
          setText((t) => t + r.text);
          if (atBottom) requestAnimationFrame(() => el && (el.scrollTop = el.scrollHeight));
        }
      } catch (err) {
        if (alive) setProblem(describeError(err));
      } finally {
        busy.current = false;
      }
    };
    void pull();
    const off = onHubEvent((e) => {
      if ((e.type === 'job_output' || e.type === 'job_ended') && e.job.id === props.job.id) void pull();
    });
    return () => {
      alive = false;
      off();
    };
  }, [props.job.id]);
  return (
    <>
      <pre ref={pre} data-job-output={props.job.id} aria-label={`Output of job ${props.job.id}`} tabIndex={0}>
        {text || (props.job.log_bytes ? '' : 'No output yet.')}
      </pre>
      <Problem text={problem} />
    </>
  );
}

function JobCard(props: { job: Job; now: number }) {
  const j = props.job;
  const [open, setOpen] = useState(j.running);
  const [problem, setProblem] = useState<string>();
  return (
    <section class="panel" data-job={j.id} id={`job-${j.id}`} tabIndex={-1}>
      <div class="row">
        <strong>#{j.id}</strong>
        <code class="grow wrap">{j.command}</code>
        <span class={j.running ? 'ok' : j.status.startsWith('exited 0') ? 'muted' : 'warn'}>{j.status}</span>
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
          <dd>{duration((j.ended_at ?? props.now) - j.started_at)}</dd>
        </div>
        <div>
          <dt>Folder</dt>
          <dd class="wrap">{j.cwd}</dd>
        </div>
        <div>
          <dt>Client</dt>
          <dd>{j.client ?? (j.session ? `session ${j.session.slice(0, 8)}` : 'unknown')}</dd>
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
        <summary>Output ({j.log_bytes} bytes)</summary>
        {open ? <Output job={j} /> : null}
      </details>
      <Problem text={problem} />
    </section>
  );
}

export function JobsPage(props: PageProps) {
  const r = useResource<JobsView>('/api/jobs', ['job_started', 'job_ended'], props.onSignedOut);
  const now = useNow(1000);
  // `?job=N#jobs` (the link of a job's view in the chat) brings that job's card into view once it is listed.
  const linked = useRef(new URLSearchParams(location.search).get('job'));
  useEffect(() => {
    if (!r.data || !linked.current) return;
    const id = Number(linked.current);
    linked.current = null;
    if (Number.isInteger(id)) showJob(id);
  }, [r.data]);
  if (!r.data) return <Pending error={r.error} />;
  return (
    <>
      <Problem text={r.error} />
      {r.data.jobs.length === 0 ? (
        <Panel>
          <Empty title="No background jobs">Jobs that a model starts with BackgroundBash appear here with their live output.</Empty>
        </Panel>
      ) : (
        r.data.jobs.map((j) => <JobCard key={j.id} job={j} now={now} />)
      )}
      <McpTasksPanel onSignedOut={props.onSignedOut} />
    </>
  );
}

/** Tool calls a client follows as MCP tasks (the tasks extension): they outlive the client's request and a hub restart. */
function McpTasksPanel(props: { onSignedOut(): void }) {
  const r = useResource<McpTasksView>('/api/mcp-tasks', ['mcp_task_changed'], props.onSignedOut);
  if (!r.data || r.data.tasks.length === 0) return null;
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
    </Panel>
  );
}

/** Brings a job's card into view and moves focus there (the page is one list; the URL's hash is the router's). */
function showJob(id: number): void {
  const card = document.getElementById(`job-${id}`);
  if (!card) {
    announce(`Job ${id} is no longer listed`);
    return;
  }
  card.scrollIntoView({ block: 'start' });
  card.focus();
}
