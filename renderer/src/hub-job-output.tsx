import { useMemo, useState } from 'preact/hooks';
import { api, apiResponse, describeError } from './api.js';
import { onEpoch, onHubEvent } from './live.js';
import { JobOutput, type OutputSource, type OutputWindow } from './job-output.js';
import { Problem } from './problem.js';

/** The longest a follow waits for an event before it reads again anyway (the events are the hub's; this is only a backstop). */
const WAIT_MS = 30_000;

/**
 * A job's output on the dashboard: windows from the hub's API (`/api/jobs/:id/output`), followed through
 * the hub's live events, and the whole log as a download.
 */
function hubSource(jobId: number): OutputSource {
  const get = (at: { from?: number; before?: number }, max: number) =>
    api<OutputWindow>(`/api/jobs/${jobId}/output?max=${max}${at.from !== undefined ? `&from=${at.from}` : ''}${at.before !== undefined ? `&before=${at.before}` : ''}`);
  return {
    key: `job-${jobId}`,
    async read(at, max, signal) {
      if (!at.wait) return get(at, max);
      // Listening before reading: output written between the read and the wait still ends the wait.
      let wake = () => {};
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      const offEvent = onHubEvent((e) => {
        if ((e.type === 'job_output' || e.type === 'job_ended') && e.job.id === jobId) wake();
      });
      // The feed reconnected: events may have been missed while it was down.
      const offEpoch = onEpoch(() => wake());
      const timer = setTimeout(() => wake(), WAIT_MS);
      try {
        const w = await get(at, max);
        if (w.to > w.from || !w.running || signal.aborted) return w;
        await woken;
        return signal.aborted ? w : await get(at, max);
      } finally {
        clearTimeout(timer);
        offEvent();
        offEpoch();
      }
    },
  };
}

/** The whole log, fetched with this tab's credentials and saved as a file. */
async function download(jobId: number): Promise<void> {
  const res = await apiResponse(`/api/jobs/${jobId}/log`);
  if (!res.ok) throw new Error(`The hub answered ${res.status}.`);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `pincer-job-${jobId}.log`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function HubJobOutput(props: { jobId: number }) {
  const id = props.jobId;
  const source = useMemo(() => hubSource(id), [id]);
  const [problem, setProblem] = useState<string>();
  return (
    <>
      <JobOutput
        source={source}
        id={id}
        label={`Output of job ${id}`}
        actions={
          <button type="button" onClick={() => download(id).then(() => setProblem(undefined), (err: unknown) => setProblem(describeError(err)))} data-download={id}>
            Download log
          </button>
        }
      />
      <Problem text={problem} />
    </>
  );
}
