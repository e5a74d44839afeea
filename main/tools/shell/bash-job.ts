import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { JobRow } from '../../store/jobs.js';
import { textResult, type ToolContext, type ToolResult } from '../types.js';
import { cutMiddle, formatDuration } from '../../core/format.js';
import { UserError, errorMessage } from '../../core/errors.js';
import { ignoreFailure, logger } from '../../core/log.js';
import { HeadTail } from './head-tail.js';
import { jobFile, readExitRecord, type ExitRecord } from './job-files.js';
import { readFolderReport, trackCwd } from './cwd-track.js';
import { completeUtf8Length, logSize, readRange } from './job-log.js';
import { commandEnvReady } from './process.js';
import { startingPlace, rememberFolder } from './workdir.js';
import { shellsReady, type ShellSpec } from './shells.js';

const log = logger('bash');

/**
 * A Bash call run as a background job (for a client of the tasks extension, so that a long command can
 * become a task that outlives the hub): how it runs, and what it needs to be answered as Bash answers, from
 * the job's files, by this hub or the next one.
 */
export interface BashJobView {
  /** The shell phrase Bash names ("bash on Linux"). */
  shell: string;
  /** Whether the shell is not bash (Bash then says which shell ran the command). */
  foreign: boolean;
  timeoutMs: number;
  outputLimit: number;
  /** Why the command runs where it does, when this process chose the folder (not a task finished after a restart). */
  cwdFrom?: 'cd' | 'client' | 'BASH_CWD' | 'home';
}

/** The command the job's shell runs: the client's, reporting the folder it ends in to the job's `cwd` file. */
export function wrapForJob(shell: ShellSpec, command: string, cwdFile: string): string {
  return trackCwd(shell, command, cwdFile).command;
}

/** What stopped a job that ran Bash's command, as Bash words it. */
export type StopCause = 'client' | 'other';

/**
 * The Bash result of a job that ended: the same text and structured fields as a Bash call that ran the
 * command itself (`stopped`: who stopped a job its own timeout did not end).
 */
export function bashResultOfJob(job: JobRow, rec: ExitRecord, view: BashJobView, stopped: StopCause = 'other'): ToolResult {
  const { text, dropped } = readOutput(job.log_path, view.outputLimit);
  if (rec.error !== undefined) {
    return { content: [{ type: 'text', text: `Bash: could not start the shell (${view.shell}): ${rec.error}` }], isError: true };
  }
  const timedOut = rec.timedOutMs !== undefined;
  const cancelled = !timedOut && rec.stopped !== undefined;
  const after = folderAfter(job);
  const moved = after !== undefined;
  const lines: string[] = [text.length > 0 ? text.replace(/\n$/, '') : '(no output)'];
  if (timedOut) lines.push(`[Command timed out after ${formatDuration(view.timeoutMs)} and was killed with its child processes. Raise timeout (max 600000 ms) or use BackgroundBash.]`);
  else if (cancelled) lines.push(stopped === 'client' ? '[Command cancelled by the client; it was killed with its child processes.]' : '[Command stopped (KillBgTask, the dashboard or its view in the chat); it was killed with its child processes.]');
  else if (rec.code !== 0) lines.push(rec.code === null ? `[Killed by signal ${rec.signal}]` : `[Exit code ${rec.code}]`);
  if (moved) lines.push(`[Now in ${after}]`);
  if (view.foreign) lines.push(`[Ran in ${view.shell}]`);
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      exit_code: timedOut || cancelled ? null : rec.code,
      output: text,
      timed_out: timedOut,
      cancelled,
      dropped_chars: dropped + rec.dropped,
      duration_ms: Math.max(0, rec.endedAt - job.started_at),
      cwd: job.cwd,
      ...(view.cwdFrom ? { cwd_from: view.cwdFrom } : {}),
      ...(moved ? { cwd_after: after } : {}),
      shell: view.shell,
    },
    isError: timedOut || cancelled,
  };
}

/** What to do with the folder a task's command ends in, while this hub runs (Bash's `cd` carrying over); by job id. */
const endHooks = new Map<number, (dir: string) => void>();

export function onJobEnd(id: number, remember: (dir: string) => void): void {
  endHooks.set(id, remember);
  // Oldest first out: a hook whose job never ended here (the hub handed over) is not kept forever.
  while (endHooks.size > 1000) endHooks.delete(endHooks.keys().next().value!);
}

/** A task's job ended: its client's next command starts where this one ended (in this hub's memory only). */
export function bashJobEnded(job: JobRow): void {
  const remember = endHooks.get(job.id);
  endHooks.delete(job.id);
  const dir = remember ? folderAfter(job) : undefined;
  if (remember && dir) remember(dir);
}

/** Where the job's command ended, when it moved (a `cd`), else undefined. */
export function folderAfter(job: JobRow): string | undefined {
  const after = readFolderReport(jobFile(job.exit_path, 'cwd'));
  return after && after !== job.cwd ? after : undefined;
}

/** The log through Bash's head-and-tail limit, read in bounded chunks (a job's log may be large). */
function readOutput(file: string, limit: number): { text: string; dropped: number } {
  const collector = new HeadTail(limit);
  const decoder = new StringDecoder('utf8');
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    // No log: the command printed nothing (or never ran).
    return { text: '', dropped: 0 };
  }
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; ; ) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) break;
      collector.push(decoder.write(buf.subarray(0, n)));
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  collector.push(decoder.end());
  return collector.result();
}

/**
 * Bash as a supervised background job from the start, for a client of the tasks extension: a command still
 * running after BASH_TASK_AFTER_MS makes the call a task whose work (the job) outlives the hub. One that
 * ends sooner is answered as Bash answers and forgotten. Undefined when the call cannot end past the
 * threshold (its timeout is shorter) or no job can be started: then Bash runs the command itself. The cost:
 * one supervisor start (a Node process) per call of such a client, ended in time or not (bench/RESULTS.md,
 * Bash for a client of the tasks extension).
 */
export async function runBashAsJob(command: string, timeout: number, ctx: ToolContext): Promise<ToolResult | undefined> {
  const { settings, jobs } = ctx.services;
  if (command.trim() === '') throw new UserError('Bash: command is empty; pass the shell command to run.', 'INVALID_INPUT');
  const after = settings.get('BASH_TASK_AFTER_MS');
  if (timeout <= after || ctx.services.readOnly || jobs.repo.countRunning() >= settings.get('JOB_MAX_CONCURRENT')) return undefined;
  const place = await startingPlace(ctx);
  const cwd = place.dir;
  await commandEnvReady();
  await shellsReady(settings.get('BASH_SHELL'));
  let started;
  try {
    // Bash stops a command 1 s after asking it to; the supervisor keeps the timeout, whichever hub runs.
    started = jobs.start(command, ctx.callerId, cwd, { wrap: (shell, cwdFile) => wrapForJob(shell, command, cwdFile), timeoutMs: timeout, graceMs: 1000 });
  } catch (err) {
    // Another call took the last job slot: this one runs as Bash always did.
    if (err instanceof UserError && err.code === 'LIMIT_REACHED') return undefined;
    throw err;
  }
  const { job, shell, spec } = started;
  const view: BashJobView = { shell, foreign: spec.kind !== 'bash', timeoutMs: timeout, outputLimit: settings.get('BASH_OUTPUT_LIMIT'), cwdFrom: place.from };
  const stream = settings.get('STREAMING') && ctx.wantsProgress;
  const until = Date.now() + after;
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
  if (rec) return finishInTime(job.id, rec, view, ctx, 'other');
  await ctx.startTask({ kind: 'job', id: job.id, bash: view });
  // This client's next command starts where this one ends, when it ends while this hub runs.
  onJobEnd(job.id, (dir) => rememberFolder(ctx, dir));
  return textResult(`The command is still running after ${formatDuration(after)}: it goes on as background job ${job.id}, and the call as a task.`);
}

/** A job that ended while its call waited: Bash's answer, the folder remembered, the job forgotten. */
function finishInTime(id: number, rec: ExitRecord, view: BashJobView, ctx: ToolContext, stopped: StopCause): ToolResult {
  const jobs = ctx.services.jobs;
  const job = jobs.get(id, 'Bash');
  const result = bashResultOfJob(job, rec, view, stopped);
  const dir = folderAfter(job);
  if (dir) rememberFolder(ctx, dir);
  jobs.forget(id);
  return result;
}

/** Sends the log's new text as progress (as Bash streams its output), from byte `sent`; returns the new position. */
async function streamLog(file: string, sent: number, ctx: ToolContext): Promise<number> {
  const size = logSize(file);
  if (size <= sent) return sent;
  const buf = readRange(file, sent, Math.min(size - sent, 64 * 1024));
  const usable = completeUtf8Length(buf);
  const text = buf.toString('utf8', 0, usable);
  // Progress to a client that left: the command's result still arrives on its own path.
  if (text) await ctx.progress(text.length > 8000 ? cutMiddle(text, 8000).text : text, sent + usable).catch(ignoreFailure(log, 'progress to a client that may have left'));
  return sent + usable;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
