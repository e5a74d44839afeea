import { z } from 'zod';
import { defineTool, textResult } from '../types.js';
import { formatBytes, formatDuration } from '../../core/format.js';
import type { JobRow } from '../../store/jobs.js';
import { isActive } from './jobs.js';
import { startingFolder } from './workdir.js';
import { shellSentence, commandEnvReady } from './process.js';
import { VIEWS } from '../views/links.js';

const taskId = (what: string) => z.number().int().positive('task_id must be a positive task id from BackgroundBash').describe(what);

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
  title: 'Start a background command',
  group: 'shell',
  description: (services) =>
    `Execute a shell command in the background — ${shellSentence(services.settings)} — and return its task id immediately. ` +
    'Use for servers, watchers, long builds and anything ' +
    'that outlives a single call. The job keeps running even if the client or Pincer restarts. Read its output with ReadBgOutput, ' +
    'see all jobs with ListBgTasks, stop it with KillBgTask.',
  inputSchema: z.object({ command: z.string().describe('The command to execute, in the syntax of the shell the description names') }),
  outputSchema: z.object({ task_id: z.number().int(), pid: z.number().int().nullable(), log_file: z.string(), cwd: z.string().describe('The folder the job runs in'), shell: z.string().describe('The shell that runs the command') }),
  annotations: { title: 'Start a background command', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  view: { uri: VIEWS.job },
  async handler(args, ctx) {
    await commandEnvReady();
    const { job, shell } = ctx.services.jobs.start(args.command, ctx.sessionId, await startingFolder(ctx));
    return textResult(
      `Started background task ${job.id} (pid ${job.pid}) in ${job.cwd}, in ${shell}. Read its output with ReadBgOutput {"task_id": ${job.id}}; stop it with KillBgTask.`,
      { task_id: job.id, pid: job.pid, log_file: job.log_path, cwd: job.cwd, shell },
    );
  },
});

export const readBgOutputTool = defineTool({
  name: 'ReadBgOutput',
  title: 'Read new output of a background task',
  group: 'shell',
  description:
    'Read the output a background task produced since the previous ReadBgOutput of that task, with its status and exit code. ' +
    'Pass wait_ms to wait for new output or for the task to end instead of polling (capped at 25 s).',
  inputSchema: z.object({
    task_id: taskId('The task ID returned by BackgroundBash'),
    wait_ms: z.number().int().min(0).optional().describe('Wait up to this many ms for new output or exit (capped at 25000)'),
    max_bytes: z.number().int().min(1).optional().describe('Most bytes to return (default 65536, at most 1048576); call again for the rest'),
  }),
  outputSchema: jobShape.extend({ output: z.string(), bytes: z.number().int(), remaining_bytes: z.number().int() }),
  annotations: { title: 'Read new output of a background task', readOnlyHint: true, idempotentHint: false, openWorldHint: false },
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
    return textResult(parts.reduce((text, part) => text + '\n' + part), { ...data, output: r.output, bytes: r.bytes, remaining_bytes: r.remaining });
  },
});

export const listBgTasksTool = defineTool({
  name: 'ListBgTasks',
  title: 'List background tasks',
  group: 'shell',
  description: 'List all background tasks with id, command, status (running / exited N / killed / lost), pid, start time and runtime.',
  inputSchema: z.object({}),
  outputSchema: z.object({ tasks: z.array(jobShape) }),
  annotations: { title: 'List background tasks', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(_args, ctx) {
    const jobs = ctx.services.jobs.list().map(jobData);
    if (jobs.length === 0) return textResult('No background tasks. Start one with BackgroundBash.', { tasks: [] });
    const lines = jobs.map(
      (j) => `${String(j.task_id).padStart(4)}  ${j.status.padEnd(10)} pid ${String(j.pid ?? '-').padEnd(7)} ${j.started_at}  ${formatDuration(j.runtime_ms).padStart(8)}  ${oneLine(j.command)}`,
    );
    return textResult(`${jobs.length} background task(s):\n  id  status     pid         started                   runtime  command\n${lines.join('\n')}`, { tasks: jobs });
  },
});

export const killBgTaskTool = defineTool({
  name: 'KillBgTask',
  title: 'Kill a background task',
  group: 'shell',
  description: 'Kill a running background task by id: it and every process it started are asked to stop (SIGTERM, on Windows taskkill /T), and killed after 3 s if they have not. The result says which.',
  inputSchema: z.object({ task_id: taskId('The task ID to kill') }),
  outputSchema: jobShape.extend({ forced: z.boolean() }),
  annotations: { title: 'Kill a background task', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const r = await ctx.services.jobs.kill(args.task_id);
    const cmd = oneLine(r.job.command);
    if (r.job.status !== 'killed') {
      const how = r.job.status === 'exited' ? `it exited with code ${r.job.exit_code} before it could be stopped` : `it is lost: ${r.job.note ?? 'its process is gone'}`;
      return textResult(`Task ${r.job.id} (${cmd}) was not killed: ${how}.`, { ...jobData(r.job), forced: r.forced });
    }
    const how = r.forced ? `killed after ${formatDuration(r.waitedMs)}: it did not stop when asked` : `terminated (stopped within ${formatDuration(r.waitedMs)})`;
    return textResult(`Killed task ${r.job.id} (${cmd}) and every process it started: ${how}.`, { ...jobData(r.job), forced: r.forced });
  },
});

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? flat.slice(0, 77) + '...' : flat;
}
