import type { JobManager } from '../tools/shell/job-manager.js';
import { isActive } from '../tools/shell/job-manager.js';
import { readExitRecord, type ExitRecord } from '../tools/shell/job-files.js';
import { bashJobEnded, bashResultOfJob } from '../tools/shell/bash-job.js';
import type { McpTaskWork } from '../store/mcp-tasks.js';
import type { TaskOutcome, WorkKeeper } from './task-runner.js';
import { UserError } from '../core/errors.js';
import { RPC } from '../core/wire-errors.js';

/**
 * Keeps MCP tasks whose work is a background job (a Bash call that ran past BASH_TASK_AFTER_MS): the
 * job's files say how it ended, whichever hub started it, so the task completes with the result Bash
 * would have given; a job that was lost fails the task with what happened to it.
 */
export function jobKeeper(jobs: JobManager): WorkKeeper {
  return {
    check(work: McpTaskWork): TaskOutcome | undefined {
      if (work.kind !== 'job') return undefined;
      const row = jobs.repo.get(work.id);
      if (!row) return { error: { code: RPC.InternalError, message: `Background job ${work.id}, which ran this task's command, is no longer in Pincer's database; its outcome is unknown. Run the command again.` } };
      const job = jobs.reconcile(row);
      if (isActive(job)) return undefined;
      if (job.status === 'lost') {
        return { error: { code: RPC.InternalError, message: `Background job ${job.id}, which ran this task's command, was lost (${job.note ?? 'its supervisor stopped without recording an exit'}); its outcome is unknown. ReadBgOutput ${job.id} shows the output it left; run the command again if needed.` } };
      }
      // A job stopped from here (its supervisor never wrote an exit record): the row says how it ended.
      const rec: ExitRecord = readExitRecord(job.exit_path) ?? { code: job.exit_code, signal: null, endedAt: job.ended_at ?? Date.now(), dropped: 0 };
      if (!work.bash) return { result: { content: [{ type: 'text', text: `Background job ${job.id} ${job.status === 'exited' ? `exited with code ${job.exit_code}` : job.status}. ReadBgOutput ${job.id} shows its output.` }] } };
      bashJobEnded(job);
      return { result: bashResultOfJob(job, rec, work.bash) };
    },
    async cancel(work: McpTaskWork): Promise<void> {
      if (work.kind !== 'job') return;
      try {
        await jobs.kill(work.id);
      } catch (err) {
        // It ended (or was stopped) before the cancel reached it: nothing left to stop.
        if (!(err instanceof UserError && err.code === 'CONFLICT')) throw err;
      }
    },
  };
}
