import { z } from 'zod';
import { StringDecoder } from 'node:string_decoder';
import { defineTool, type ToolContext, type ToolResult } from '../types.js';
import { resolveShell, spawnShell, killTree, shellSentence, commandEnv, commandEnvReady } from './process.js';
import { shellPhrase, withDelayedExpansion } from './shells.js';
import { trackCwd } from './cwd-track.js';
import { startingFolder, rememberFolder } from './workdir.js';
import { cutMiddle, formatDuration } from '../../core/format.js';
import { UserError } from '../../core/errors.js';

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
  cwd_after: z.string().optional().describe('The folder the next command runs in, when the command changed it (cd)'),
  shell: z.string().describe('The shell that ran the command, e.g. "bash on Linux", "PowerShell 7 on Windows"'),
});

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
  async handler(args, ctx) {
    return runBash(args.command, args.timeout, ctx);
  },
});

/**
 * Runs one command the way Bash does (the client's folder and shell, timeout, output limit, cancel,
 * progress). `env`: extra variables for this command only (a plugin's command tool passes its arguments so;
 * with cmd.exe such a command runs with delayed expansion on, so it reads them as `!ARG_X!`).
 */
export async function runBash(command: string, timeoutArg: number | undefined, ctx: ToolContext, env?: Record<string, string>): Promise<ToolResult> {
  const settings = ctx.services.settings;
  if (command.trim() === '') throw new UserError('Bash: command is empty; pass the shell command to run.', 'INVALID_INPUT');
  const timeout = Math.min(timeoutArg ?? settings.get('BASH_TIMEOUT_MS'), settings.get('BASH_MAX_TIMEOUT_MS'), MAX_TIMEOUT_MS);
  const limit = settings.get('BASH_OUTPUT_LIMIT');
  // A command tool's arguments (env) must be expanded after the command line is parsed: cmd.exe /v:on.
  const shell = env ? withDelayedExpansion(resolveShell(settings)) : resolveShell(settings);
  const cwd = await startingFolder(ctx);
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
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let sent = 0;
  let flushTimer: NodeJS.Timeout | undefined;
  const flush = () => {
    flushTimer = undefined;
    if (!pending) return;
    const msg = pending.length > 8000 ? cutMiddle(pending, 8000).text : pending;
    pending = '';
    // Progress to a client that left: the command's result still arrives (or is cancelled) on its own path.
    void ctx.progress(msg, sent).catch(() => undefined);
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
      ...(moved ? { cwd_after: after } : {}),
      shell: shellPhrase(shell),
    },
    isError: reason !== undefined,
  };
}

/** Keeps the first and last half of the limit, so memory stays bounded however much a command prints. */
class HeadTail {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly half: number;

  constructor(private limit: number) {
    this.half = Math.floor(limit / 2);
  }

  push(text: string): void {
    if (!text) return;
    this.total += text.length;
    if (this.head.length < this.limit) {
      const room = this.limit - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text) {
      this.tail += text;
      if (this.tail.length > this.limit * 2) this.tail = this.tail.slice(-this.limit);
    }
  }

  result(): { text: string; dropped: number } {
    if (this.total <= this.limit) return { text: this.head + this.tail, dropped: 0 };
    const start = this.head.slice(0, this.half);
    const combined = this.head.slice(this.half) + this.tail;
    const end = combined.slice(-(this.limit - this.half));
    const dropped = this.total - start.length - end.length;
    return { text: `${start}\n\n[... ${dropped} characters dropped from the middle ...]\n\n${end}`, dropped };
  }
}
