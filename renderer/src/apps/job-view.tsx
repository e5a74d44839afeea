import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { JobViewData } from '../../../main/tools/views/job-view.js';
import type { BashOutput } from '../../../main/tools/shell/bash.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { callTool, numberArg, stringArg, structuredOf, textOf, usePoll, useCall } from './bridge.js';
import { JobOutput, textSource } from '../job-output.js';
import { viewSource, type Target } from './job-source.js';
import { DashboardLink, Fact, Problem, StatusLine, useNow } from './parts.js';
import { duration } from '../format.js';

type JobRead = JobViewData;
type JobInfo = NonNullable<JobViewData['job']>;

/** The job BackgroundBash's result names. */
function jobOfResult(result: CallToolResult | undefined): number | undefined {
  const started = structuredOf(result)?.task_id;
  return typeof started === 'number' ? started : undefined;
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

/** What a read found: a background job, or a Bash call Pincer runs itself while the call lasts. */
function targetOf(job: JobInfo): Target {
  return job.task_id !== null ? { task_id: job.task_id } : { run_id: job.run_id! };
}

const keyOf = (t: Target | undefined) => (t ? ('task_id' in t ? `job-${t.task_id}` : `run-${t.run_id}`) : '');

/** A Bash call that ended: its own result is all there is (the run it had while it ran is gone with it). */
function EndedCall(props: { command: string; result: CallToolResult }) {
  // A timed out or stopped call is an error with Bash's own result; a call that failed to run has only its message.
  const bash = bashResultOf(structuredOf(props.result));
  const text = bash ? bash.output : textOf(props.result);
  const source = useMemo(() => textSource(`result-${text.length}`, text), [text]);
  const how = bash ? (bash.timed_out ? 'timed out' : bash.cancelled ? 'cancelled' : `exit ${bash.exit_code ?? '?'}`) : 'failed';
  return (
    <article class="view" aria-labelledby="title">
      <header class="head">
        <h1 id="title" class="title">
          <code>{props.command}</code>
        </h1>
        <span class={`badge ${bash && bash.exit_code === 0 ? 'muted' : 'warn'}`}>{how}</span>
      </header>
      {bash ? (
        <dl class="facts">
          <Fact term="Folder" value={bash.cwd_after ? `${bash.cwd} → ${bash.cwd_after}` : bash.cwd} wide />
          <Fact term="Ran for" value={duration(bash.duration_ms)} />
          <Fact term="Shell" value={bash.shell} />
        </dl>
      ) : null}
      <JobOutput source={source} id="result" label={`Output of ${props.command}`} />
      {bash && bash.dropped_chars > 0 ? <p class="muted small">{bash.dropped_chars} characters from the middle are not shown.</p> : null}
      <StatusLine text={bash ? `Command ended: ${bash.timed_out ? 'timed out' : bash.cancelled ? 'cancelled' : `exit code ${bash.exit_code}`}` : 'The command failed.'} />
    </article>
  );
}

export function JobView() {
  const call = useCall();
  const command = stringArg(call.input, 'command');
  const resultJob = jobOfResult(call.result);
  // A Bash call that ended (or failed): its result is final. BackgroundBash's names the job to follow instead.
  const final = call.result !== undefined && resultJob === undefined && (call.result.isError === true || bashResultOf(structuredOf(call.result)) !== undefined);
  const inputJob = numberArg(call.input, 'task_id');
  const [found, setFound] = useState<Target | undefined>(inputJob === undefined ? undefined : { task_id: inputJob });
  const [job, setJob] = useState<JobInfo>();
  const [dashboard, setDashboard] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const now = useNow(job?.running ? 1000 : 0);
  const target: Target | undefined = resultJob !== undefined ? { task_id: resultJob } : found;
  // The question takes the focus, on its safe answer (autofocus is refused in a cross-origin frame).
  const keepButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) keepButton.current?.focus();
  }, [confirming]);

  const take = (r: JobRead) => {
    if (!r.job) return;
    setJob(r.job);
    setFound(targetOf(r.job));
    setDashboard(r.dashboard_url ?? undefined);
  };
  // The output's reads bring the job's state too (status, exit code), as it runs and when it ends.
  const source = useMemo(() => (target ? viewSource(target, take) : undefined), [keyOf(target)]);

  // The call's job or running command, found by its command until its result comes.
  usePoll(
    async (signal) => {
      if (final || target || !command || call.result) return false;
      const r = await callTool<JobRead>('JobViewRead', { command, max_bytes: 1 }, signal);
      take(r);
      return !r.job;
    },
    [keyOf(target), command, Boolean(call.result), final],
    setProblem,
  );

  const kill = async () => {
    setConfirming(false);
    if (!target) return;
    try {
      await callTool('JobViewKill', target);
      take(await callTool<JobRead>('JobViewRead', { ...target, max_bytes: 1 }));
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };

  const shownCommand = job?.command ?? command ?? '';
  if (final) return <EndedCall command={shownCommand} result={call.result!} />;

  const ranFor = job ? (job.running ? now - Date.parse(job.started_at) : job.runtime_ms) : undefined;
  const name = job?.task_id != null ? `job ${job.task_id}` : 'the command';
  return (
    <article class="view" aria-labelledby="title" aria-busy={!job}>
      <header class="head">
        <h1 id="title" class="title">
          <code>{shownCommand || 'Background job'}</code>
        </h1>
        {job ? <span class={`badge ${statusClass(job.status)}`}>{job.status}</span> : <span class="badge muted">starting</span>}
        {job?.running ? (
          confirming ? (
            <span class="confirm" role="group" aria-label={`Kill ${name}?`}>
              <span>Kill {name}?</span>
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
          {job.task_id !== null ? <Fact term="Job" value={`#${job.task_id}`} /> : null}
        </dl>
      ) : (
        <p class="muted">{call.cancelled ? `The call was cancelled: ${call.cancelled}` : 'Waiting for the command to start…'}</p>
      )}
      {source ? <JobOutput source={source} id={keyOf(target)} label={`Output of ${name}`} /> : null}
      {job?.note ? <p class="muted small">{job.note}</p> : null}
      <footer class="foot">
        {dashboard && job?.task_id != null ? <DashboardLink url={dashboard} label={`Open job #${job.task_id} on the Pincer dashboard`} /> : null}
      </footer>
      <Problem text={problem} />
      <StatusLine text={job ? `${name[0]!.toUpperCase()}${name.slice(1)} ${job.running ? 'is running' : job.status}` : ''} />
    </article>
  );
}
