import { z } from 'zod';
import { defineTool, textResult } from '../types.js';
import { formatBytes } from '../../core/format.js';
import type { JobRow } from '../../store/jobs.js';
import { isActive } from '../shell/jobs.js';
import { logSize, readLogBefore, readLogWindow } from '../shell/job-log.js';
import { jobData, jobShape, killBgTaskTool } from '../shell/background.js';
import { dashboardLink, VIEWS } from './links.js';
import { waitForChange } from './wait.js';

/** The most output one read of the view carries: a screenful many times over, and never a burden on the hub. */
const WINDOW_MAX_BYTES = 256 * 1024;
const WINDOW_DEFAULT_BYTES = 64 * 1024;

const jobViewShape = jobShape.extend({
  running: z.boolean(),
  ended_at: z.string().nullable(),
  note: z.string().nullable().describe('How the job ended, when Pincer knows more than its exit code'),
  log_bytes: z.number().int().describe('Bytes of output the job has written so far'),
});

const windowShape = z.object({
  from: z.number().int().describe('Byte offset of the first character of text in the log'),
  to: z.number().int().describe('Byte offset just past the last character of text'),
  text: z.string(),
});

const jobReadShape = z.object({ job: jobViewShape.nullable(), window: windowShape.nullable(), dashboard_url: z.string().nullable() });
/** What the job view gets from JobViewRead (renderer/src/apps). */
export type JobViewData = z.infer<typeof jobReadShape>;

function viewOf(job: JobRow): z.infer<typeof jobViewShape> {
  return { ...jobData(job), running: isActive(job), ended_at: job.ended_at === null ? null : new Date(job.ended_at).toISOString(), note: job.note, log_bytes: logSize(job.log_path) };
}

/**
 * What the job view reads: the job (by id, or the newest this client started with a command — the Bash
 * call the view shows, before its result names the job) and one window of its log. It never moves the
 * model's read position (ReadBgOutput's). With `from` and `wait_ms` it waits for output past `from` or the
 * job's end: the view's live feed, one call per change at most.
 */
export const jobViewReadTool = defineTool({
  name: 'JobViewRead',
  title: 'Read a job for its chat view',
  group: 'shell',
  description:
    "For Pincer's job view in the chat (MCP Apps), not for the model: a background job's status and one window of its output. " +
    'Without from/before it returns the end of the output from a line start; from reads on (waiting up to wait_ms for more), before reads the part that ends there, from a line start.',
  inputSchema: z.object({
    task_id: z.number().int().positive('task_id is a job id from BackgroundBash or ListBgTasks').optional().describe('The job to read'),
    command: z.string().optional().describe("Instead of task_id: the newest job this client started with exactly this command (a Bash call's)"),
    from: z.number().int().min(0).optional().describe('Read the output from this byte offset on'),
    before: z.number().int().min(0).optional().describe('Read the output that ends at this byte offset (an earlier part)'),
    max_bytes: z.number().int().min(1).max(WINDOW_MAX_BYTES).optional().describe(`Most bytes to read (default ${WINDOW_DEFAULT_BYTES})`),
    wait_ms: z.number().int().min(0).optional().describe('With from: wait up to this long for output past it or the end of the job (capped at JOB_WAIT_MAX_MS)'),
  }),
  outputSchema: jobReadShape,
  annotations: { title: 'Read a job for its chat view', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  view: { uri: VIEWS.job, appOnly: true },
  async handler(args, ctx) {
    const { jobs, paths } = ctx.services;
    const find = (): JobRow | undefined => {
      if (args.task_id !== undefined) return jobs.get(args.task_id, 'JobViewRead');
      if (args.command !== undefined && ctx.sessionId) {
        const row = jobs.repo.newestOf(ctx.sessionId, args.command);
        return row && jobs.reconcile(row);
      }
      return undefined;
    };
    let job = find();
    if (!job) return textResult('No such job of this client yet.', { job: null, window: null, dashboard_url: null });
    const max = Math.min(args.max_bytes ?? WINDOW_DEFAULT_BYTES, WINDOW_MAX_BYTES);
    if (args.from !== undefined && args.wait_ms) {
      const from = args.from;
      const id = job.id;
      await waitForChange(ctx, {
        changed: () => {
          job = jobs.reconcile(jobs.repo.get(id) ?? job!);
          return !isActive(job) || logSize(job.log_path) > from;
        },
        waitMs: args.wait_ms,
        wakeOn: ['job_output', 'job_ended'],
      });
    }
    const size = logSize(job.log_path);
    // As the dashboard reads (its API): on from `from`, else the part that ends at `before` (or the end) from a line start.
    const window =
      args.from !== undefined
        ? readLogWindow(job.log_path, Math.min(args.from, size), Math.min(max, size - Math.min(args.from, size)), !isActive(job))
        : readLogBefore(job.log_path, Math.min(args.before ?? size, size), max);
    const view = viewOf(job);
    return textResult(`Job ${job.id} [${view.status}]: ${formatBytes(window.to - window.from)} of its ${formatBytes(size)} of output, bytes ${window.from}–${window.to}.`, {
      job: view,
      window,
      dashboard_url: dashboardLink(paths, 'jobs', { job: String(job.id) }) ?? null,
    });
  },
});

/** The job view's Kill button: KillBgTask's own stop and answer, recorded as the view's. */
export const jobViewKillTool = defineTool({
  ...killBgTaskTool,
  name: 'JobViewKill',
  title: 'Kill a job from its chat view',
  description: "For Pincer's job view in the chat (MCP Apps), not for the model: the Kill button. Stops the job as KillBgTask does.",
  annotations: { ...killBgTaskTool.annotations, title: 'Kill a job from its chat view' },
  view: { uri: VIEWS.job, appOnly: true },
});
