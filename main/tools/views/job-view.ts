import { z } from 'zod';
import { defineTool, textResult, type ToolContext, type ToolResult } from '../types.js';
import { formatBytes, formatDuration } from '../../core/format.js';
import { UserError } from '../../core/errors.js';
import type { JobRow } from '../../store/jobs.js';
import { isActive } from '../shell/job-manager.js';
import { logSize, readLogBefore, readLogWindow } from '../shell/job-log.js';
import { jobData, jobShape, killedText, oneLine } from '../shell/background.js';
import type { LiveRun } from '../shell/live-runs.js';
import { dashboardLink, VIEWS } from './links.js';
import { waitForChange } from './wait.js';

/** The most output one read of the view carries: a screenful many times over, and never a burden on the hub. */
const WINDOW_MAX_BYTES = 256 * 1024;
const WINDOW_DEFAULT_BYTES = 64 * 1024;

const jobViewShape = jobShape.extend({
  task_id: z.number().int().nullable().describe('The background job; null for a Bash call Pincer runs itself (run_id)'),
  run_id: z.number().int().nullable().describe('A Bash call of a client of MCP Apps, which Pincer runs itself while the call lasts (no job)'),
  running: z.boolean(),
  ended_at: z.string().nullable(),
  note: z.string().nullable().describe('How it ended, when Pincer knows more than its exit code'),
  log_bytes: z.number().int().describe('Bytes of output written so far'),
  kept_from: z.number().int().describe("The first byte of output still kept: 0 for a job's log, past 0 for a long call's (its newest megabyte)"),
});
type JobView = z.infer<typeof jobViewShape>;

const windowShape = z.object({
  from: z.number().int().describe('Byte offset of the first character of text in the output'),
  to: z.number().int().describe('Byte offset just past the last character of text'),
  text: z.string(),
});

const jobReadShape = z.object({ job: jobViewShape.nullable(), window: windowShape.nullable(), dashboard_url: z.string().nullable() });
/** What the job view gets from JobViewRead (renderer/src/apps). */
export type JobViewData = z.infer<typeof jobReadShape>;

function viewOf(job: JobRow): JobView {
  return { ...jobData(job), run_id: null, running: isActive(job), ended_at: job.ended_at === null ? null : new Date(job.ended_at).toISOString(), note: job.note, log_bytes: logSize(job.log_path), kept_from: 0 };
}

const RUN_NOTES = { timeout: 'timed out and was killed with its child processes', cancel: 'cancelled by the client', view: 'stopped from its view in the chat' } as const;

function runView(run: LiveRun): JobView {
  const end = run.ended;
  const killed = end !== undefined && (end.stopped !== undefined || end.code === null);
  return {
    task_id: null,
    run_id: run.id,
    command: run.spec.command,
    status: !end ? 'running' : killed ? 'killed' : `exited ${end.code}`,
    exit_code: end && !killed ? end.code : null,
    pid: run.spec.pid,
    started_at: new Date(run.startedAt).toISOString(),
    runtime_ms: (end?.at ?? Date.now()) - run.startedAt,
    cwd: run.spec.cwd,
    running: !end,
    ended_at: end ? new Date(end.at).toISOString() : null,
    note: end?.stopped ? RUN_NOTES[end.stopped] : end && end.code === null ? `ended by ${end.signal ?? 'a signal'}` : null,
    log_bytes: run.size,
    kept_from: run.floor,
  };
}

/** The job or run a read names: by id, or the newest of this client with the command (the Bash call a view shows, before its result). */
function targetOf(args: { task_id?: number; run_id?: number; command?: string }, ctx: ToolContext): { job: JobRow } | { run: LiveRun } | undefined {
  const { jobs, runs } = ctx.services;
  if (args.task_id !== undefined) return { job: jobs.get(args.task_id, 'JobViewRead') };
  if (args.run_id !== undefined) {
    const run = runs.get(args.run_id);
    if (!run) throw new UserError(`JobViewRead: Bash call ${args.run_id} is not followed here any more (it ended a while ago, or ran in another Pincer process); its result is the call's own.`, 'NOT_FOUND');
    return { run };
  }
  if (args.command === undefined || !ctx.callerId) return undefined;
  const run = runs.newestOf(ctx.callerId, args.command);
  const row = jobs.repo.newestOf(ctx.callerId, args.command);
  if (run && (!row || run.startedAt >= row.started_at)) return { run };
  return row && { job: jobs.reconcile(row) };
}

type ReadArgs = { from?: number; before?: number; max_bytes?: number; wait_ms?: number };

/** A window of a job's log, after waiting (with `from` and `wait_ms`) for output past `from` or the job's end. */
async function readJob(job: JobRow, args: ReadArgs, ctx: ToolContext): Promise<ToolResult> {
  const { jobs, paths } = ctx.services;
  const max = Math.min(args.max_bytes ?? WINDOW_DEFAULT_BYTES, WINDOW_MAX_BYTES);
  if (args.from !== undefined && args.wait_ms) {
    const from = args.from;
    await waitForChange(ctx, {
      changed: () => {
        job = jobs.reconcile(jobs.repo.get(job.id) ?? job);
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
}

/** A window of a running Bash call's output, read as a job's is. */
async function readRun(run: LiveRun, args: ReadArgs, ctx: ToolContext): Promise<ToolResult> {
  // A view has found it: who its shell is is noted now, while it surely is this call's (for its Kill).
  run.identify();
  const max = Math.min(args.max_bytes ?? WINDOW_DEFAULT_BYTES, WINDOW_MAX_BYTES);
  const from = args.from;
  if (from !== undefined && args.wait_ms) {
    await waitForChange(ctx, { changed: () => !run.running || run.size > from, waitMs: args.wait_ms, wakeOn: [], subscribe: (wake) => run.onChange(wake) });
  }
  const window = run.window(args, max);
  const view = runView(run);
  return textResult(`Bash call ${run.id} [${view.status}]: ${formatBytes(window.to - window.from)} of its ${formatBytes(run.size)} of output, bytes ${window.from}–${window.to}.`, { job: view, window, dashboard_url: null });
}

/**
 * What the job view reads: the job or the running Bash call (by id, or the newest this client started with a
 * command — the Bash call the view shows, before its result) and one window of its output. It never moves
 * the model's read position (ReadBgOutput's). With `from` and `wait_ms` it waits for output past `from` or
 * the end: the view's live feed, one call per change at most.
 */
export const jobViewReadTool = defineTool({
  name: 'JobViewRead',
  title: 'Read a job for its chat view',
  group: 'shell',
  description:
    "For Pincer's job view in the chat (MCP Apps), not for the model: a background job's or a running Bash call's status and one window of its output. " +
    'Without from/before it returns the end of the output from a line start; from reads on (waiting up to wait_ms for more), before reads the part that ends there, from a line start.',
  inputSchema: z.object({
    task_id: z.number().int().positive('task_id is a job id from BackgroundBash or ListBgTasks').optional().describe('The job to read'),
    run_id: z.number().int().positive('run_id is a Bash call JobViewRead found by its command').optional().describe('Instead of task_id: a Bash call Pincer runs itself, as a read by command found it'),
    command: z.string().optional().describe("Instead of an id: the newest job or Bash call this client started with exactly this command (a Bash call's)"),
    from: z.number().int().min(0).optional().describe('Read the output from this byte offset on'),
    before: z.number().int().min(0).optional().describe('Read the output that ends at this byte offset (an earlier part)'),
    max_bytes: z.number().int().min(1).max(WINDOW_MAX_BYTES).optional().describe(`Most bytes to read (default ${WINDOW_DEFAULT_BYTES})`),
    wait_ms: z.number().int().min(0).optional().describe('With from: wait up to this long for output past it or the end (capped at JOB_WAIT_MAX_MS)'),
  }),
  outputSchema: jobReadShape,
  annotations: { title: 'Read a job for its chat view', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  view: { uri: VIEWS.job, appOnly: true },
  async handler(args, ctx) {
    const target = targetOf(args, ctx);
    if (!target) return textResult('No such job of this client yet.', { job: null, window: null, dashboard_url: null });
    return 'job' in target ? readJob(target.job, args, ctx) : readRun(target.run, args, ctx);
  },
});

/** How long the view's Kill waits for a Bash call to end: its TERM, the KILL a second later, and its pipes. */
const RUN_STOP_WAIT_MS = 5000;

/** The job view's Kill: KillBgTask's own stop for a job; for a running Bash call, Bash's own stop (as its timeout's). */
export const jobViewKillTool = defineTool({
  name: 'JobViewKill',
  title: 'Kill a job from its chat view',
  group: 'shell',
  description: "For Pincer's job view in the chat (MCP Apps), not for the model: the Kill button. Stops a job as KillBgTask does, or a running Bash call as its timeout would.",
  inputSchema: z.object({
    task_id: z.number().int().positive('task_id is a job id from BackgroundBash or ListBgTasks').optional().describe('The job to kill'),
    run_id: z.number().int().positive('run_id is a Bash call JobViewRead found by its command').optional().describe('Instead: the running Bash call to stop'),
  }),
  outputSchema: jobViewShape.extend({ forced: z.boolean() }),
  annotations: { title: 'Kill a job from its chat view', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  view: { uri: VIEWS.job, appOnly: true },
  async handler(args, ctx) {
    if ((args.task_id === undefined) === (args.run_id === undefined)) throw new UserError('JobViewKill: pass task_id (a job) or run_id (a running Bash call), one of them.', 'INVALID_INPUT');
    if (args.task_id !== undefined) {
      const r = await ctx.services.jobs.kill(args.task_id);
      return textResult(killedText(r), { ...viewOf(r.job), forced: r.forced });
    }
    const run = ctx.services.runs.get(args.run_id!);
    if (!run) throw new UserError(`JobViewKill: Bash call ${args.run_id} is not running here (it ended a while ago, or ran in another Pincer process); there is nothing to stop.`, 'NOT_FOUND');
    const asked = Date.now();
    run.stop();
    await waitForChange(ctx, { changed: () => !run.running, waitMs: RUN_STOP_WAIT_MS, wakeOn: [], subscribe: (wake) => run.onChange(wake) });
    const view = runView(run);
    const forced = run.ended?.signal === 'SIGKILL';
    const how = !run.ended ? 'asked to stop; it has not ended yet' : forced ? `killed after ${formatDuration(run.ended.at - asked)}: it did not stop when asked` : `terminated (stopped within ${formatDuration(run.ended.at - asked)})`;
    return textResult(`Stopped Bash call ${run.id} (${oneLine(run.spec.command)}) and every process it started: ${how}.`, { ...view, forced });
  },
});
