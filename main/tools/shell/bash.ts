import { z } from 'zod';
import { defineTool, textResult, type ToolContext, type ToolResult } from '../types.js';
import { resolveShell, spawnShell, killTree, shellSentence, commandEnv, commandEnvReady } from './process.js';
import { shellPhrase, withDelayedExpansion } from './shells.js';
import { trackCwd } from './cwd-track.js';
import { outputDecoder } from './output-decoder.js';
import { shellsReady } from './shells.js';
import { startingPlace, fallbackNote, rememberFolder } from './workdir.js';
import { cutMiddle, formatDuration } from '../../core/format.js';
import { UserError, errorMessage } from '../../core/errors.js';
import { HeadTail } from './head-tail.js';
import { bashResultOfJob, folderAfter, onJobEnd, wrapForJob, type BashJobView, type StopCause } from './bash-job.js';
import { readExitRecord, type ExitRecord } from './job-files.js';
import { completeUtf8Length, logSize, readRange } from './job-log.js';
import { appsNegotiated, VIEW_META, VIEWS } from '../views/links.js';
import { ignoreFailure, logger } from '../../core/log.js';

const log = logger('bash');

const MAX_TIMEOUT_MS = 600_000;

const input = z.object({
  command: z.string().describe('The command to execute, in the syntax of the shell the description names'),
  timeout: z
    .number()
    .int()
    .min(1, 'timeout must be at least 1 ms')
    .max(MAX_TIMEOUT_MS, `timeout must be at most ${MAX_TIMEOUT_MS} ms (10 minutes); use BackgroundBash for longer commands`)
    .optional()
    .describe('Timeout in milliseconds (default: 30000, max 600000)'),
});

const output = z.object({
  exit_code: z.number().int().nullable().describe('Exit code, or null when the command was killed'),
  output: z.string().describe('Combined stdout and stderr, in order'),
  timed_out: z.boolean(),
  cancelled: z.boolean(),
  dropped_chars: z.number().int().describe('Characters cut from the middle of long output'),
  duration_ms: z.number(),
  cwd: z.string().describe('The folder the command ran in'),
  cwd_from: z
    .enum(['cd', 'client', 'BASH_CWD', 'home'])
    .optional()
    .describe("Why there: the client's last cd, its own folder (first root, or where it started Pincer), BASH_CWD, or home"),
  cwd_after: z.string().optional().describe('The folder the next command runs in, when the command changed it (cd)'),
  shell: z.string().describe('The shell that ran the command, e.g. "bash on Linux", "PowerShell 7 on Windows"'),
});

/** Bash's structured result (its job view shows it; renderer/src/apps). */
export type BashOutput = z.infer<typeof output>;

export const bashTool = defineTool({
  name: 'Bash',
  title: 'Run a shell command',
  group: 'shell',
  description: (services) =>
    `Execute a shell command — ${shellSentence(services.settings)} — and return its combined stdout/stderr and exit code. ` +
    'Use for quick commands that finish within the timeout ' +
    '(default 30 s, max 10 min); for servers, watchers or long builds use BackgroundBash. stdin is empty. Commands run in the ' +
    "client's working folder (its first MCP root, or where it started Pincer), else BASH_CWD, else home; a cd carries over to the " +
    'next command, as in a terminal. Long output is cut in the middle.',
  inputSchema: input,
  outputSchema: output,
  annotations: { title: 'Run a shell command', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  // A client of the tasks extension gets a command that runs past BASH_TASK_AFTER_MS as a task (bash-job.ts).
  taskSupport: 'optional',
  deferTask: true,
  // A client of MCP Apps shows the call in the job view, live (tools/views/).
  view: { uri: VIEWS.job },
  usesFolder: true,
  async handler(args, ctx) {
    // Run as a job: for a client of the tasks extension (the call may become a task), and for one of MCP
    // Apps (its job view follows the output live and kills it; the dashboard lists a command that ran long).
    const asTask = ctx.canStartTask;
    if (asTask || appsNegotiated(ctx.clientCapabilities)) {
      const answered = await runBashAsJob(args.command, args.timeout, ctx, asTask);
      if (answered) return answered;
    }
    return runBash(args.command, args.timeout, ctx);
  },
});

/** Bash's timeout for a call: what it asked for, within BASH_MAX_TIMEOUT_MS and 10 minutes. */
function timeoutOf(timeoutArg: number | undefined, ctx: ToolContext): number {
  const settings = ctx.services.settings;
  return Math.min(timeoutArg ?? settings.get('BASH_TIMEOUT_MS'), settings.get('BASH_MAX_TIMEOUT_MS'), MAX_TIMEOUT_MS);
}

/**
 * Runs one command the way Bash does (the client's folder and shell, timeout, output limit, cancel,
 * progress). `env`: extra variables for this command only (a plugin's command tool passes its arguments so;
 * with cmd.exe such a command runs with delayed expansion on, so it reads them as `!ARG_X!`).
 */
export async function runBash(command: string, timeoutArg: number | undefined, ctx: ToolContext, env?: Record<string, string>): Promise<ToolResult> {
  const settings = ctx.services.settings;
  if (command.trim() === '') throw new UserError('Bash: command is empty; pass the shell command to run.', 'INVALID_INPUT');
  const timeout = timeoutOf(timeoutArg, ctx);
  const limit = settings.get('BASH_OUTPUT_LIMIT');
  // The shells' probes ran as the process started; choosing one never waits on a probe here.
  await shellsReady(settings.get('BASH_SHELL'));
  // A command tool's arguments (env) must be expanded after the command line is parsed: cmd.exe /v:on.
  const shell = env ? withDelayedExpansion(resolveShell(settings)) : resolveShell(settings);
  const place = await startingPlace(ctx);
  const cwd = place.dir;
  const stream = settings.get('STREAMING') && ctx.wantsProgress;
  const started = Date.now();

  // The command reports the folder it ends in (fd 3 or a file), so that a `cd` carries over to the next call.
  const track = trackCwd(shell, command);
  await commandEnvReady();
  const child = spawnShell(shell, track.command, { cwd, stdio: ['ignore', 'pipe', 'pipe', track.fd3 ? 'pipe' : 'ignore'], detached: process.platform !== 'win32', ...(env ? { env: { ...commandEnv(), ...env } } : {}) });
  let endedIn = '';
  child.stdio[3]?.on('data', (d: Buffer) => (endedIn += d.toString('utf8')));
  child.stdio[3]?.on('error', () => undefined);
  const collector = new HeadTail(limit);
  const decoder = outputDecoder(shell.codePage);
  let pending = '';
  let sent = 0;
  let flushTimer: NodeJS.Timeout | undefined;
  const flush = () => {
    flushTimer = undefined;
    if (!pending) return;
    const msg = pending.length > 8000 ? cutMiddle(pending, 8000).text : pending;
    pending = '';
    // Progress to a client that left: the command's result still arrives (or is cancelled) on its own path.
    void ctx.progress(msg, sent).catch(ignoreFailure(log, "a progress note of Bash's output"));
  };
  const onData = (chunk: Buffer) => {
    const text = decoder.write(chunk);
    collector.push(text);
    if (stream && text) {
      sent += text.length;
      pending += text;
      flushTimer ??= setTimeout(flush, 100);
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);

  let reason: 'timeout' | 'cancel' | undefined;
  const stop = (why: 'timeout' | 'cancel') => {
    if (reason || child.pid === undefined) return;
    reason = why;
    void killTree(child.pid, 'SIGTERM');
    setTimeout(() => void killTree(child.pid!, 'SIGKILL'), 1000).unref();
  };
  let exited = false;
  child.once('exit', () => (exited = true));
  // When Pincer itself was suspended past the deadline (a laptop lid, SIGSTOP), the timer and the
  // child's exit become due together and timers run first: give pending I/O one turn so a command
  // that finished in time is reported as finished, not as timed out.
  const timer = setTimeout(() => {
    const grace = setTimeout(() => {
      if (!exited) stop('timeout');
    }, 50);
    grace.unref();
  }, timeout);
  const onAbort = () => stop('cancel');
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) onAbort();

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => {
      // A command may leave a background process holding the pipe open; take
      // what is buffered and do not wait for it.
      const done = () => resolve({ code, signal });
      if (child.stdout!.readableEnded) done();
      else {
        const t = setTimeout(() => {
          child.stdout!.destroy();
          child.stderr!.destroy();
          done();
        }, 250);
        child.stdout!.once('end', () => {
          clearTimeout(t);
          done();
        });
      }
    });
  });
  clearTimeout(timer);
  ctx.signal.removeEventListener('abort', onAbort);
  if (flushTimer) {
    clearTimeout(flushTimer);
    flush();
  }
  collector.push(decoder.end());
  if (exit.error) throw new UserError(`Bash: could not start ${shell.file}: ${exit.error.message}`, 'UNAVAILABLE');

  const duration = Date.now() - started;
  const after = track.result(endedIn) ?? '';
  const moved = after !== '' && after !== cwd;
  if (moved) rememberFolder(ctx, after);
  const { text, dropped } = collector.result();
  const lines: string[] = [text.length > 0 ? text.replace(/\n$/, '') : '(no output)'];
  if (reason === 'timeout') lines.push(`[Command timed out after ${formatDuration(timeout)} and was killed with its child processes. Raise timeout (max 600000 ms) or use BackgroundBash.]`);
  else if (reason === 'cancel') lines.push('[Command cancelled by the client; it was killed with its child processes.]');
  else if (exit.code !== 0) lines.push(exit.code === null ? `[Killed by signal ${exit.signal}]` : `[Exit code ${exit.code}]`);
  if (moved) lines.push(`[Now in ${after}]`);
  const note = fallbackNote(place);
  if (note) lines.push(note);
  // The description names the shell too; where it is not bash the result says so again, beside the output it explains.
  if (shell.kind !== 'bash') lines.push(`[Ran in ${shellPhrase(shell)}]`);
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      exit_code: reason ? null : exit.code,
      output: text,
      timed_out: reason === 'timeout',
      cancelled: reason === 'cancel',
      dropped_chars: dropped,
      duration_ms: duration,
      cwd,
      cwd_from: place.from,
      ...(moved ? { cwd_after: after } : {}),
      shell: shellPhrase(shell),
    },
    isError: reason !== undefined,
  };
}

/**
 * Bash as a supervised background job from the start. For a client of the tasks extension (`asTask`), a
 * command still running after BASH_TASK_AFTER_MS makes the call a task whose work (the job) outlives the
 * hub; for a client of MCP Apps the call waits for the job to end, which its job view shows meanwhile.
 * Either way the answer is Bash's own; a job that ended within BASH_TASK_AFTER_MS is forgotten, one that
 * ran longer (MCP Apps) stays listed like a BackgroundBash job and the result names it to the view
 * (`_meta[VIEW_META]`). Undefined when the call cannot end past the threshold (tasks: its timeout is
 * shorter) or no job can be started: then Bash runs the command itself.
 */
async function runBashAsJob(command: string, timeoutArg: number | undefined, ctx: ToolContext, asTask: boolean): Promise<ToolResult | undefined> {
  const { settings, jobs } = ctx.services;
  if (command.trim() === '') throw new UserError('Bash: command is empty; pass the shell command to run.', 'INVALID_INPUT');
  const timeout = timeoutOf(timeoutArg, ctx);
  const after = settings.get('BASH_TASK_AFTER_MS');
  if ((asTask && timeout <= after) || ctx.services.readOnly || jobs.repo.countRunning() >= settings.get('JOB_MAX_CONCURRENT')) return undefined;
  const place = await startingPlace(ctx);
  const cwd = place.dir;
  await commandEnvReady();
  await shellsReady(settings.get('BASH_SHELL'));
  let started;
  try {
    // Bash stops a command 1 s after asking it to; the supervisor keeps the timeout, whichever hub runs.
    started = jobs.start(command, ctx.sessionId, cwd, { wrap: (shell, cwdFile) => wrapForJob(shell, command, cwdFile), timeoutMs: timeout, graceMs: 1000 });
  } catch (err) {
    // Another call took the last job slot: this one runs as Bash always did.
    if (err instanceof UserError && err.code === 'LIMIT_REACHED') return undefined;
    throw err;
  }
  const { job, shell, spec } = started;
  const view: BashJobView = { shell, foreign: spec.kind !== 'bash', timeoutMs: timeout, outputLimit: settings.get('BASH_OUTPUT_LIMIT'), cwdFrom: place.from };
  const stream = settings.get('STREAMING') && ctx.wantsProgress;
  // A task escalates after the threshold; an MCP Apps call waits for the end (the supervisor keeps the
  // timeout; the bound here only guards against a supervisor that never writes its record).
  const until = Date.now() + (asTask ? after : timeout + 30_000);
  let sent = 0;
  let rec = readExitRecord(job.exit_path);
  while (!rec && Date.now() < until && !ctx.signal.aborted) {
    await sleep(Date.now() - job.started_at < 500 ? 10 : 50);
    if (stream) sent = await streamLog(job.log_path, sent, ctx);
    rec = readExitRecord(job.exit_path);
  }
  if (!rec && ctx.signal.aborted) {
    // The client cancelled the call before it became a task: stopped like Bash's own command.
    const failed = await jobs.kill(job.id).then(
      () => undefined,
      (err: unknown) => {
        log.warn(`stopping job ${job.id} of a cancelled Bash call failed`, { err });
        return errorMessage(err);
      },
    );
    rec = readExitRecord(job.exit_path);
    if (rec) return finishInTime(job.id, rec, view, ctx, 'client');
    const how = failed ? `stopping it failed (${failed}); KillBgTask ${job.id} tries again` : 'it was killed with its child processes';
    return { content: [{ type: 'text', text: `[Command cancelled by the client; ${how}.]` }], isError: true };
  }
  if (!rec && !asTask) {
    rec = await stopUnended(job.id, ctx);
    if (!rec) return { content: [{ type: 'text', text: `[Bash: background job ${job.id}, which ran the command, ended without recording how (${ctx.services.jobs.get(job.id, 'Bash').note ?? 'its supervisor is gone'}). ReadBgOutput ${job.id} shows the output it left.]` }], isError: true };
  }
  if (rec) return finishInTime(job.id, rec, view, ctx, 'other', Date.now() - job.started_at > after);
  await ctx.startTask({ kind: 'job', id: job.id, bash: view });
  // This client's next command starts where this one ends, when it ends while this hub runs.
  onJobEnd(job.id, (dir) => rememberFolder(ctx, dir));
  return textResult(`The command is still running after ${formatDuration(after)}: it goes on as background job ${job.id}, and the call as a task.`);
}

/**
 * A job that ended while its call waited: Bash's answer, the folder remembered. Forgotten, unless it ran long
 * (`keep`, MCP Apps): then it stays listed and the result names it to the job view.
 */
function finishInTime(id: number, rec: ExitRecord, view: BashJobView, ctx: ToolContext, stopped: StopCause, keep = false): ToolResult {
  const jobs = ctx.services.jobs;
  const job = jobs.get(id, 'Bash');
  const result = bashResultOfJob(job, rec, view, stopped);
  const dir = folderAfter(job);
  if (dir) rememberFolder(ctx, dir);
  if (!keep) {
    jobs.forget(id);
    return result;
  }
  return { ...result, _meta: { ...result._meta, [VIEW_META]: { job: id } } };
}

/** A job whose supervisor never recorded its end within the call's time: stopped, and its record read. */
async function stopUnended(id: number, ctx: ToolContext): Promise<ExitRecord | undefined> {
  try {
    await ctx.services.jobs.kill(id);
  } catch (err) {
    // It ended (or was lost) as we asked: its record, if any, says how.
    if (!(err instanceof UserError)) throw err;
  }
  return readExitRecord(ctx.services.jobs.get(id, 'Bash').exit_path) ?? undefined;
}

/** Sends the log's new text as progress (as Bash streams its output), from byte `sent`; returns the new position. */
async function streamLog(file: string, sent: number, ctx: ToolContext): Promise<number> {
  const size = logSize(file);
  if (size <= sent) return sent;
  const buf = readRange(file, sent, Math.min(size - sent, 64 * 1024));
  const usable = completeUtf8Length(buf);
  const text = buf.toString('utf8', 0, usable);
  // Progress to a client that left: the command's result still arrives on its own path.
  if (text) await ctx.progress(text.length > 8000 ? cutMiddle(text, 8000).text : text, sent + usable).catch(ignoreFailure(log, "a progress note of a job's output"));
  return sent + usable;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
