import type { JobViewData } from '../../../main/tools/views/job-view.js';
import type { OutputSource } from '../job-output.js';
import { callTool } from './bridge.js';

/** How long one read waits on the hub for more output (JobViewRead's wait_ms; the hub caps it below a request's timeout). */
const WAIT_MS = 15_000;
/** At most one waiting read a second through the host, however fast the job writes. */
const MIN_GAP_MS = 1000;

/**
 * A job's output for the chat's job view: windows read with JobViewRead, which the host calls for the view
 * (it has no other way to the hub). Every read also brings the job's state, handed to `onRead`.
 */
export function viewSource(taskId: number, onRead: (r: JobViewData) => void): OutputSource {
  let lastWait = 0;
  return {
    key: `job-${taskId}`,
    async read(at, max, signal) {
      if (at.wait) {
        const gap = lastWait + MIN_GAP_MS - Date.now();
        if (gap > 0) await new Promise((r) => setTimeout(r, gap));
        lastWait = Date.now();
      }
      const args = { task_id: taskId, max_bytes: max, ...(at.from !== undefined ? { from: at.from } : {}), ...(at.before !== undefined ? { before: at.before } : {}), ...(at.wait ? { wait_ms: WAIT_MS } : {}) };
      const r = await callTool<JobViewData>('JobViewRead', args, signal);
      onRead(r);
      if (!r.job || !r.window) throw new Error(`Job ${taskId} is no longer kept.`);
      return { ...r.window, size: r.job.log_bytes, running: r.job.running };
    },
  };
}
