import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { JobViewData } from '../../../main/tools/views/job-view.js';
import type { BashOutput } from '../../../main/tools/shell/bash.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { callTool, numberArg, stringArg, structuredOf, textOf, usePoll, useCall } from './bridge.js';
import { JobOutput, textSource } from '../job-output.js';
import { viewSource } from './job-source.js';
import { DashboardLink, Fact, Problem, StatusLine, useNow } from './parts.js';
import { duration } from '../format.js';

type JobRead = JobViewData;
type JobInfo = NonNullable<JobViewData['job']>;

/** The job the call's result names: BackgroundBash's task_id, or the job a long Bash call left (its `_meta`). */
function jobOfResult(result: CallToolResult | undefined): number | undefined {
  const started = structuredOf(result)?.task_id;
  if (typeof started === 'number') return started;
  const view = result?._meta?.['dev.pincer/view'];
  const job = view && typeof view === 'object' && 'job' in view ? view.job : undefined;
  return typeof job === 'number' ? job : undefined;
}

/** Bash's own result, when the call ended with one (BackgroundBash's has no output). */
function bashResultOf(sc: Record<string, unknown> | undefined): BashOutput | undefined {
  return sc && typeof sc.output === 'string' && 'exit_code' in sc ? (sc as BashOutput) : undefined;
}

function statusClass(status: string): string {
  if (status === 'running') return 'ok';
  if (status === 'exited 0') return 'muted';
  return 'warn';
}

export function JobView() {
  const call = useCall();
  const command = stringArg(call.input, 'command');
  const resultJob = jobOfResult(call.result);
  const bash = call.result && !call.result.isError ? bashResultOf(structuredOf(call.result)) : undefined;
  // A Bash call that ended with no job left to follow (it ran briefly, or not as a job): its result is final.
  const final = (bash !== undefined || Boolean(call.result?.isError)) && resultJob === undefined;
  const [jobId, setJobId] = useState<number | undefined>(numberArg(call.input, 'task_id'));
  const [job, setJob] = useState<JobInfo>();
  const [dashboard, setDashboard] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const now = useNow(job?.running ? 1000 : 0);
  const id = resultJob ?? jobId;
  // The question takes the focus, on its safe answer (autofocus is refused in a cross-origin frame).
  const keepButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) keepButton.current?.focus();
  }, [confirming]);

  useEffect(() => {
    if (resultJob !== undefined) setJobId(resultJob);
  }, [resultJob]);

  const take = (r: JobRead) => {
    if (!r.job) return;
    setJob(r.job);
    setJobId(r.job.task_id);
    setDashboard(r.dashboard_url ?? undefined);
  };
  // The output's reads bring the job's state too (status, exit code), as it runs and when it ends.
  const source = useMemo(() => (id === undefined ? undefined : viewSource(id, take)), [id]);

  // A Bash call that runs as a job: found by its command until its result names it (or ends the search).
  usePoll(
    async (signal) => {
      if (final || id !== undefined || !command || call.result) return false;
      const r = await callTool<JobRead>('JobViewRead', { command, max_bytes: 1 }, signal);
      take(r);
      return !r.job;
    },
    [id, command, Boolean(call.result), final],
    setProblem,
  );

  const kill = async () => {
    setConfirming(false);
    if (id === undefined) return;
    try {
      await callTool('JobViewKill', { task_id: id });
      take(await callTool<JobRead>('JobViewRead', { task_id: id, max_bytes: 1 }));
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };

  const shownCommand = job?.command ?? command ?? '';

  // A Bash call that ended without a job to follow: its own result is all there is.
  if (final) {
    return (
      <article class="view" aria-labelledby="title">
        <header class="head">
          <h1 id="title" class="title">
            <code>{shownCommand}</code>
          </h1>
          <span class={`badge ${bash && bash.exit_code === 0 ? 'muted' : 'warn'}`}>{bash ? (bash.timed_out ? 'timed out' : bash.cancelled ? 'cancelled' : `exit ${bash.exit_code ?? '?'}`) : 'failed'}</span>
        </header>
        {bash ? (
          <dl class="facts">
            <Fact term="Folder" value={bash.cwd_after ? `${bash.cwd} → ${bash.cwd_after}` : bash.cwd} wide />
            <Fact term="Ran for" value={duration(bash.duration_ms)} />
            <Fact term="Shell" value={bash.shell} />
          </dl>
        ) : null}
        <JobOutput source={textSource(`result-${shownCommand}`, bash ? bash.output : textOf(call.result!))} id="result" label={`Output of ${shownCommand}`} />
        {bash && bash.dropped_chars > 0 ? <p class="muted small">{bash.dropped_chars} characters from the middle are not shown.</p> : null}
        <StatusLine text={bash ? `Command ended: ${bash.timed_out ? 'timed out' : bash.cancelled ? 'cancelled' : `exit code ${bash.exit_code}`}` : 'The command failed.'} />
      </article>
    );
  }

  const ranFor = job ? (job.running ? now - Date.parse(job.started_at) : job.runtime_ms) : undefined;
  return (
    <article class="view" aria-labelledby="title" aria-busy={!job}>
      <header class="head">
        <h1 id="title" class="title">
          <code>{shownCommand || 'Background job'}</code>
        </h1>
        {job ? <span class={`badge ${statusClass(job.status)}`}>{job.status}</span> : <span class="badge muted">starting</span>}
        {job?.running ? (
          confirming ? (
            <span class="confirm" role="group" aria-label={`Kill job ${job.task_id}?`}>
              <span>Kill job {job.task_id}?</span>
              <button type="button" class="danger" onClick={() => void kill()}>
                Kill
              </button>
              <button type="button" ref={keepButton} onClick={() => setConfirming(false)}>
                Keep running
              </button>
            </span>
          ) : (
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Kill
            </button>
          )
        ) : null}
      </header>
      {job ? (
        <dl class="facts">
          <Fact term="Folder" value={job.cwd} wide />
          <Fact term={job.running ? 'Running for' : 'Ran for'} value={duration(ranFor ?? 0)} />
          <Fact term="Exit code" value={job.exit_code === null ? (job.running ? '—' : 'none') : String(job.exit_code)} />
          <Fact term="Job" value={`#${job.task_id}`} />
        </dl>
      ) : (
        <p class="muted">{call.cancelled ? `The call was cancelled: ${call.cancelled}` : 'Waiting for the command to start…'}</p>
      )}
      {source && id !== undefined ? <JobOutput source={source} id={id} label={`Output of job ${id}`} /> : null}
      {job?.note ? <p class="muted small">{job.note}</p> : null}
      <footer class="foot">
        {dashboard && job ? <DashboardLink url={dashboard} label={`Open job #${job.task_id} on the Pincer dashboard`} /> : null}
      </footer>
      <Problem text={problem} />
      <StatusLine text={job ? (job.running ? `Job ${job.task_id} is running` : `Job ${job.task_id} ${job.status}`) : ''} />
    </article>
  );
}
