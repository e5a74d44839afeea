import { z } from 'zod';
import { defineTool, textResult } from '../types.js';
import { withinBudget, LIST_TEXT_BUDGET } from '../budget.js';
import { formatBytes, formatDuration } from '../../core/format.js';
import { JOB_FILTERS, type JobRow } from '../../store/jobs.js';
import { isActive } from './job-manager.js';
import { startingFolder } from './workdir.js';
import { shellsReady } from './shells.js';
import { shellSentence, commandEnvReady } from './process.js';
import { VIEWS } from '../views/links.js';

const jobIdInput = (what: string) => z.number().int().positive('task_id must be a positive job id (the task_id BackgroundBash returned)').describe(what);

export const jobShape = z.object({
  task_id: z.number().int(),
  command: z.string(),
  status: z.string().describe('running, exited, killed or lost'),
  exit_code: z.number().int().nullable(),
  pid: z.number().int().nullable(),
  started_at: z.string(),
  runtime_ms: z.number(),
  cwd: z.string().describe('The folder the job runs in'),
});

function describeStatus(job: JobRow): string {
  if (job.status === 'exited') return `exited ${job.exit_code}`;
  return job.status === 'starting' ? 'running' : job.status;
}

export function jobData(job: JobRow): z.infer<typeof jobShape> {
  return {
    task_id: job.id,
    command: job.command,
    status: describeStatus(job),
    exit_code: job.exit_code,
    pid: job.pid,
    started_at: new Date(job.started_at).toISOString(),
    runtime_ms: (job.ended_at ?? Date.now()) - job.started_at,
    cwd: job.cwd,
  };
}

export const backgroundBashTool = defineTool({
  name: 'BackgroundBash',
  usesFolder: true,
  title: 'Start a background command',
  group: 'shell',
  description: (services) =>
    `Execute a shell command in the background — ${shellSentence(services.settings)} — as a job (background task) and return its id (task_id) immediately. ` +
    'Use for servers, watchers, long builds and anything ' +
    'that outlives a single call. The job keeps running even if the client or Pincer restarts. Read its output with ReadBgOutput, ' +
    'see all jobs with ListBgTasks, stop it with KillBgTask.',
  inputSchema: z.object({ command: z.string().describe('The command to execute, in the syntax of the shell the description names') }),
  outputSchema: z.object({ task_id: z.number().int(), pid: z.number().int().nullable(), log_file: z.string(), cwd: z.string().describe('The folder the job runs in'), shell: z.string().describe('The shell that runs the command') }),
  annotations: { title: 'Start a background command', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  view: { uri: VIEWS.job },
  async handler(args, ctx) {
    await commandEnvReady();
    await shellsReady(ctx.services.settings.get('BASH_SHELL'));
    const { job, shell } = ctx.services.jobs.start(args.command, ctx.callerId, await startingFolder(ctx));
    return textResult(
      `Started background task ${job.id} (pid ${job.pid}) in ${job.cwd}, in ${shell}. Read its output with ReadBgOutput {"task_id": ${job.id}}; stop it with KillBgTask.`,
      { task_id: job.id, pid: job.pid, log_file: job.log_path, cwd: job.cwd, shell },
    );
  },
});

/** `_meta` key of ReadBgOutput's answer: the job's status and the read's counts, for programs (the model reads the text). */
export const JOB_META = 'dev.pincer/job';

export const readBgOutputTool = defineTool({
  name: 'ReadBgOutput',
  title: 'Read new output of a job',
  group: 'shell',
  description:
    'Read the output a job (background task) produced since the previous ReadBgOutput of that job, with its status and exit code. ' +
    'Pass wait_ms to wait for new output or for the job to end instead of polling (capped at 25 s).',
  inputSchema: z.object({
    task_id: jobIdInput('The job id (task_id) BackgroundBash returned'),
    wait_ms: z.number().int().min(0).optional().describe('Wait up to this many ms for new output or exit (capped at 25000)'),
    max_bytes: z.number().int().min(1).optional().describe('Most bytes to return (default 65536, at most 1048576); call again for the rest'),
  }),
  // No outputSchema, so no structuredContent: the output travels once, as text, which every client hands
  // the model (clients that prefer structuredContent would otherwise get it twice on the wire, or only
  // without the text). The status and counts are on the text's first line and in `_meta`.
  annotations: { title: 'Read new output of a job', readOnlyHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx) {
    const s = ctx.services.settings;
    const waitMs = Math.min(args.wait_ms ?? 0, s.get('JOB_WAIT_MAX_MS'));
    // Bounded so that reading a huge log never makes the hub hold more than a megabyte or so per call.
    const maxBytes = Math.min(args.max_bytes ?? s.get('JOB_READ_MAX_BYTES'), 1024 * 1024);
    const r = await ctx.services.jobs.read(args.task_id, { waitMs, maxBytes, signal: ctx.signal });
    const data = jobData(r.job);
    const head = `Task ${r.job.id} [${data.status}] ${r.bytes === 0 ? 'no new output' : `${formatBytes(r.bytes)} new output`}` +
      (isActive(r.job) ? ` — running for ${formatDuration(data.runtime_ms)}` : '');
    const parts = [head];
    // slice, not a regex replace: a slice of a big string shares its characters instead of copying them.
    if (r.output) parts.push(r.output.endsWith('\n') ? r.output.slice(0, -1) : r.output);
    if (r.remaining > 0) parts.push(`[${formatBytes(r.remaining)} more output waiting; call ReadBgOutput again]`);
    if (r.job.note && !isActive(r.job)) parts.push(`[${r.job.note}]`);
    // + builds a rope over the parts; join would copy the megabyte of output once more.
    const text = parts.reduce((all, part) => all + '\n' + part);
    return { content: [{ type: 'text', text }], _meta: { [JOB_META]: { ...data, bytes: r.bytes, remaining_bytes: r.remaining } } };
  },
});

const LIST_DEFAULT = 30;
const LIST_MAX = 200;

const listShape = z.object({
  tasks: z.array(jobShape),
  /** How many jobs match the status and query; `tasks` is one page of them, running ones first. */
  total: z.number().int().optional(),
  running: z.number().int().optional(),
  offset: z.number().int().optional(),
  /** The arguments that show the next page, when there is one. */
  next: z.object({ status: z.enum(JOB_FILTERS).optional(), query: z.string().optional(), offset: z.number().int() }).optional(),
});

function jobLine(j: z.infer<typeof jobShape>): string {
  return `${String(j.task_id).padStart(4)}  ${j.status.padEnd(10)} pid ${String(j.pid ?? '-').padEnd(7)} ${j.started_at}  ${formatDuration(j.runtime_ms).padStart(8)}  ${oneLine(j.command)}`;
}

export const listBgTasksTool = defineTool({
  name: 'ListBgTasks',
  title: 'List jobs',
  group: 'shell',
  description:
    'List jobs (background tasks), newest first, with id, command, status (running / exited N / killed / lost), pid, start time and runtime. ' +
    'Every running job is always listed; the answer says how many there are in all. status filters (running, ended, succeeded, failed, killed, lost), ' +
    'query matches the command or folder, offset and limit page.',
  inputSchema: z.object({
    status: z.enum(JOB_FILTERS).optional().describe('running, ended, succeeded (exit 0), failed (non-zero exit, killed or lost), killed, lost or all (default)'),
    query: z.string().optional().describe('Only jobs whose command or folder contains this text'),
    offset: z.number().int().min(0).optional().describe('Skip this many of the newest jobs (the answer says which offset comes next)'),
    limit: z.number().int().min(1).max(LIST_MAX).optional().describe(`Jobs per page (default ${LIST_DEFAULT}, at most ${LIST_MAX})`),
  }),
  outputSchema: listShape,
  annotations: { title: 'List jobs', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const jobs = ctx.services.jobs;
    const status = args.status ?? 'all';
    const q = args.query?.trim() || undefined;
    const offset = args.offset ?? 0;
    const page = jobs.page({ status, q, offset, limit: args.limit ?? LIST_DEFAULT });
    // Running jobs are always listed on the first page, however long the history (and whatever the limit).
    const running = jobs.running().filter((j) => !q || `${j.command} ${j.cwd}`.toLowerCase().includes(q.toLowerCase()));
    const admitsRunning = status === 'all' || status === 'running';
    const extra = offset === 0 && admitsRunning ? running.filter((r) => !page.rows.some((p) => p.id === r.id)) : [];
    const rows = [...extra.reverse(), ...page.rows].map(jobData);
    // A job's structured copy is about twice its line: half the usual budget of text.
    const fit = withinBudget(rows, jobLine, LIST_TEXT_BUDGET / 2);
    const shown = fit.shown;
    const pageShown = shown.length - extra.length;
    const nextOffset = offset + Math.max(0, pageShown);
    const next = nextOffset < page.total ? { ...(args.status ? { status } : {}), ...(q ? { query: q } : {}), offset: nextOffset } : undefined;
    const what = `${status === 'all' ? '' : `${status} `}background task${page.total === 1 ? '' : 's'}${q ? ` matching "${q}"` : ''}`;
    if (page.total === 0 && shown.length === 0) {
      const none = status === 'all' && !q ? 'No background tasks. Start one with BackgroundBash.' : `No ${what}.`;
      return textResult(none, { tasks: [], total: 0, running: running.length, offset });
    }
    const range = offset === 0 && pageShown >= page.total ? `all ${page.total.toLocaleString('en-US')}` : `${offset === 0 ? `the ${pageShown.toLocaleString('en-US')} newest` : `${offset + 1}–${offset + pageShown}`} of ${page.total.toLocaleString('en-US')}`;
    const head = [
      `${what[0]!.toUpperCase()}${what.slice(1)}: ${range}${admitsRunning ? `; ${running.length} running${extra.length ? ` (${extra.length} older ones listed first)` : ''}` : ''}.`,
      ...(next ? [`Next page: ListBgTasks ${JSON.stringify(next)}.`] : []),
      ...(fit.cut > 0 ? [`${fit.cut} more left out to keep this answer short: ask for a smaller limit or a status.`] : []),
    ].join(' ');
    return textResult(`${head}\n  id  status     pid         started                   runtime  command\n${fit.text.join('\n')}`, { tasks: shown, total: page.total, running: running.length, offset, ...(next ? { next } : {}) });
  },
});

export const killBgTaskTool = defineTool({
  name: 'KillBgTask',
  title: 'Kill a job',
  group: 'shell',
  description: 'Kill a running job (background task) by id: it and every process it started are asked to stop (SIGTERM, on Windows taskkill /T), and killed after 3 s if they have not. The result says which.',
  inputSchema: z.object({ task_id: jobIdInput('The job id (task_id) to kill') }),
  outputSchema: jobShape.extend({ forced: z.boolean() }),
  annotations: { title: 'Kill a job', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const r = await ctx.services.jobs.kill(args.task_id);
    return textResult(killedText(r), { ...jobData(r.job), forced: r.forced });
  },
});

/** What a kill of a job did, as KillBgTask (and the job view's Kill) says it. */
export function killedText(r: { job: JobRow; forced: boolean; waitedMs: number }): string {
  const cmd = oneLine(r.job.command);
  if (r.job.status !== 'killed') {
    const how = r.job.status === 'exited' ? `it exited with code ${r.job.exit_code} before it could be stopped` : `it is lost: ${r.job.note ?? 'its process is gone'}`;
    return `Task ${r.job.id} (${cmd}) was not killed: ${how}.`;
  }
  const how = r.forced ? `killed after ${formatDuration(r.waitedMs)}: it did not stop when asked` : `terminated (stopped within ${formatDuration(r.waitedMs)})`;
  return `Killed task ${r.job.id} (${cmd}) and every process it started: ${how}.`;
}

/** A command on one line, at most 80 characters. */
export function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? flat.slice(0, 77) + '...' : flat;
}
