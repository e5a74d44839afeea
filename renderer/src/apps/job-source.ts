import type { JobViewData } from '../../../main/tools/views/job-view.js';
import type { OutputSource } from '../job-output.js';
import { callTool } from './bridge.js';

/** How long one read waits on the hub for more output (JobViewRead's wait_ms; the hub caps it below a request's timeout). */
const WAIT_MS = 15_000;
/** At most one waiting read a second through the host, however fast the command writes. */
const MIN_GAP_MS = 1000;

/** What the view follows: a background job, or a Bash call Pincer runs itself while the call lasts. */
export type Target = { task_id: number } | { run_id: number };

/**
 * A job's output for the chat's job view: windows read with JobViewRead, which the host calls for the view
 * (it has no other way to the hub). Every read also brings the job's state, handed to `onRead`.
 */
export function viewSource(target: Target, onRead: (r: JobViewData) => void): OutputSource {
  let lastWait = 0;
  const name = 'task_id' in target ? `Job ${target.task_id}` : `Bash call ${target.run_id}`;
  return {
    key: 'task_id' in target ? `job-${target.task_id}` : `run-${target.run_id}`,
    async read(at, max, signal) {
      if (at.wait) {
        const gap = lastWait + MIN_GAP_MS - Date.now();
        if (gap > 0) await new Promise((r) => setTimeout(r, gap));
        lastWait = Date.now();
      }
      const args = { ...target, max_bytes: max, ...(at.from !== undefined ? { from: at.from } : {}), ...(at.before !== undefined ? { before: at.before } : {}), ...(at.wait ? { wait_ms: WAIT_MS } : {}) };
      const r = await callTool<JobViewData>('JobViewRead', args, signal);
      onRead(r);
      if (!r.job || !r.window) throw new Error(`${name} is no longer kept.`);
      return { ...r.window, size: r.job.log_bytes, start: r.job.kept_from, running: r.job.running };
    },
  };
}
