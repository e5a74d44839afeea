import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { JobRow } from '../../store/jobs.js';
import type { ToolResult } from '../types.js';
import { formatDuration } from '../../core/format.js';
import { HeadTail } from './head-tail.js';
import { jobFile, type ExitRecord } from './job-files.js';
import { readFolderReport, trackCwd } from './cwd-track.js';
import type { ShellSpec } from './shells.js';

/**
 * A Bash call run as a background job (for a client of the tasks extension, so that a long command can
 * become a task that outlives the hub): what it needs to be answered as Bash answers, from the job's
 * files, by this hub or the next one.
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
