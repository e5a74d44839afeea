import { z } from 'zod';
import type { ChildProcess } from 'node:child_process';
import { defineTool, type ToolContext, type ToolResult } from '../types.js';
import { resolveShell, spawnShell, killTree, shellSentence, commandEnv, commandEnvReady } from './process.js';
import { shellPhrase, withDelayedExpansion, type ShellSpec } from './shells.js';
import { trackCwd } from './cwd-track.js';
import { outputDecoder, type OutputDecoder } from './output-decoder.js';
import { shellsReady } from './shells.js';
import { startingPlace, fallbackNote, rememberFolder } from './workdir.js';
import { cutMiddle, formatDuration } from '../../core/format.js';
import { UserError } from '../../core/errors.js';
import { ignoreFailure, logger } from '../../core/log.js';
import { HeadTail } from './head-tail.js';
import { runBashAsJob } from './bash-job.js';
import { appsNegotiated, VIEWS } from '../views/links.js';

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
    // For a client of the tasks extension the command runs as a job from the start, so that the call may
    // become a task that outlives the hub (bash-job.ts).
    if (ctx.canStartTask) {
      const answered = await runBashAsJob(args.command, timeoutOf(args.timeout, ctx), ctx);
      if (answered) return answered;
    }
    // For a client of MCP Apps Bash keeps the output for the call's job view while it runs (live-runs.ts).
    return runBash(args.command, args.timeout, ctx, undefined, { live: appsNegotiated(ctx.clientCapabilities) });
  },
});

/** Bash's timeout for a call: what it asked for, within BASH_MAX_TIMEOUT_MS and 10 minutes. */
export function timeoutOf(timeoutArg: number | undefined, ctx: ToolContext): number {
  const settings = ctx.services.settings;
  return Math.min(timeoutArg ?? settings.get('BASH_TIMEOUT_MS'), settings.get('BASH_MAX_TIMEOUT_MS'), MAX_TIMEOUT_MS);
}

/** Why Bash stopped a command, as its answer says. */
type StopReason = 'timeout' | 'cancel' | 'view';

const STOPPED: Record<StopReason, (timeoutMs: number) => string> = {
  timeout: (ms) => `[Command timed out after ${formatDuration(ms)} and was killed with its child processes. Raise timeout (max 600000 ms) or use BackgroundBash.]`,
  cancel: () => '[Command cancelled by the client; it was killed with its child processes.]',
  view: () => '[Command stopped from its view in the chat; it was killed with its child processes.]',
};

/**
 * Runs one command the way Bash does (the client's folder and shell, timeout, output limit, cancel,
 * progress). `env`: extra variables for this command only (a plugin's command tool passes its arguments so;
 * with cmd.exe such a command runs with delayed expansion on, so it reads them as `!ARG_X!`). `live`: the
 * output is kept for the call's job view while it runs, which may stop it (live-runs.ts).
 */
export async function runBash(command: string, timeoutArg: number | undefined, ctx: ToolContext, env?: Record<string, string>, opts: { live?: boolean } = {}): Promise<ToolResult> {
  const settings = ctx.services.settings;
  if (command.trim() === '') throw new UserError('Bash: command is empty; pass the shell command to run.', 'INVALID_INPUT');
  const timeout = timeoutOf(timeoutArg, ctx);
  // The shells' probes ran as the process started; choosing one never waits on a probe here.
  await shellsReady(settings.get('BASH_SHELL'));
  // A command tool's arguments (env) must be expanded after the command line is parsed: cmd.exe /v:on.
  const shell = env ? withDelayedExpansion(resolveShell(settings)) : resolveShell(settings);
  const place = await startingPlace(ctx);
  const cwd = place.dir;
  const started = Date.now();

  // The command reports the folder it ends in (fd 3 or a file), so that a `cd` carries over to the next call.
  const track = trackCwd(shell, command);
  await commandEnvReady();
  const child = spawnShell(shell, track.command, { cwd, stdio: ['ignore', 'pipe', 'pipe', track.fd3 ? 'pipe' : 'ignore'], detached: process.platform !== 'win32', ...(env ? { env: { ...commandEnv(), ...env } } : {}) });
  let endedIn = '';
  child.stdio[3]?.on('data', (d: Buffer) => (endedIn += d.toString('utf8')));
  // The folder report's pipe may fail as the shell ends: the folder is then not carried over, which the answer allows.
  child.stdio[3]?.on('error', () => undefined);
  const output = new CallOutput(outputDecoder(shell.codePage), settings.get('BASH_OUTPUT_LIMIT'), settings.get('STREAMING') && ctx.wantsProgress ? ctx : undefined);

  const stops = stopOn(child);
  const run = opts.live && child.pid !== undefined ? ctx.services.runs.start({ session: ctx.callerId, command, cwd, pid: child.pid, stop: () => stops.stop('view') }) : undefined;
  const onData = (chunk: Buffer) => {
    const text = output.push(chunk);
    // The view reads UTF-8: a shell of another code page (cmd.exe's OEM page) is kept as its decoded text.
    if (run && shell.codePage === undefined) run.push(chunk);
    else if (run && text) run.push(Buffer.from(text));
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);

  child.once('exit', () => {
    if (run) run.exited = true;
  });
  const release = stops.watch(timeout, ctx.signal);
  const exit = await exitOf(child);
  release();
  const reason = stops.reason();
  const { text, dropped } = output.end();
  run?.end({ code: exit.code, signal: exit.signal, ...(reason ? { stopped: reason } : {}), at: Date.now() });
  if (exit.error) throw new UserError(`Bash: could not start ${shell.file}: ${exit.error.message}`, 'UNAVAILABLE');

  const after = track.result(endedIn) ?? '';
  const moved = after !== '' && after !== cwd;
  if (moved) rememberFolder(ctx, after);
  return bashResult({ text, dropped, exit, reason, timeout, shell, place, after: moved ? after : undefined, durationMs: Date.now() - started });
}

/**
 * Stops the command's tree (TERM, then KILL a second later) for the first reason that comes: its
 * timeout or the call's cancel (`watch`, which returns what releases both), or its view's Kill.
 */
function stopOn(child: ChildProcess): { stop(why: StopReason): void; watch(timeout: number, signal: AbortSignal): () => void; reason(): StopReason | undefined } {
  let reason: StopReason | undefined;
  const stop = (why: StopReason) => {
    if (reason || child.pid === undefined) return;
    reason = why;
    void killTree(child.pid, 'SIGTERM');
    setTimeout(() => void killTree(child.pid!, 'SIGKILL'), 1000).unref();
  };
  let exited = false;
  child.once('exit', () => (exited = true));
  const watch = (timeout: number, signal: AbortSignal) => {
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
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    return () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
  };
  return { stop, watch, reason: () => reason };
}

/** Bash's answer: the output with what the model should know after it, and the same as structured content. */
function bashResult(r: { text: string; dropped: number; exit: { code: number | null; signal: NodeJS.Signals | null }; reason: StopReason | undefined; timeout: number; shell: ShellSpec; place: Awaited<ReturnType<typeof startingPlace>>; after: string | undefined; durationMs: number }): ToolResult {
  const { text, exit, reason, shell, place, after } = r;
  const lines: string[] = [text.length > 0 ? text.replace(/\n$/, '') : '(no output)'];
  if (reason) lines.push(STOPPED[reason](r.timeout));
  else if (exit.code !== 0) lines.push(exit.code === null ? `[Killed by signal ${exit.signal}]` : `[Exit code ${exit.code}]`);
  if (after) lines.push(`[Now in ${after}]`);
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
      cancelled: reason === 'cancel' || reason === 'view',
      dropped_chars: r.dropped,
      duration_ms: r.durationMs,
      cwd: place.dir,
      cwd_from: place.from,
      ...(after ? { cwd_after: after } : {}),
      shell: shellPhrase(shell),
    },
    isError: reason !== undefined,
  };
}

/** How the shell ended. A command may leave a background process holding the pipes open: what is buffered is taken, and it is not waited for. */
function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }> {
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => {
      const done = () => resolve({ code, signal });
      if (child.stdout!.readableEnded) return done();
      const t = setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        done();
      }, 250);
      child.stdout!.once('end', () => {
        clearTimeout(t);
        done();
      });
    });
  });
}

/** A call's output: its head and tail within the limit (the answer), and as progress to a client that asked for it, at most every 100 ms. */
class CallOutput {
  private collector: HeadTail;
  private pending = '';
  private sent = 0;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private decoder: OutputDecoder,
    limit: number,
    private progressTo: ToolContext | undefined,
  ) {
    this.collector = new HeadTail(limit);
  }

  /** Takes a chunk of the command's output; returns its text (less a character cut at its end, kept for the next). */
  push(chunk: Buffer): string {
    const text = this.decoder.write(chunk);
    this.collector.push(text);
    if (this.progressTo && text) {
      this.sent += text.length;
      this.pending += text;
      this.flushTimer ??= setTimeout(() => this.flush(), 100);
    }
    return text;
  }

  end(): { text: string; dropped: number } {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flush();
    }
    this.collector.push(this.decoder.end());
    return this.collector.result();
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (!this.pending) return;
    const msg = this.pending.length > 8000 ? cutMiddle(this.pending, 8000).text : this.pending;
    this.pending = '';
    // Progress to a client that left: the command's result still arrives (or is cancelled) on its own path.
    void this.progressTo!.progress(msg, this.sent).catch(ignoreFailure(log, 'progress to a client that may have left'));
  }
}
