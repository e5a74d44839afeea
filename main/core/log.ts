import path from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { LogFile, logFileMaxBytes } from './log-file.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

/** A log line past this is cut (its message and a note of the original size are kept). */
export const MAX_LINE_BYTES = 16 * 1024;
/** An error's stack is kept up to this many characters; causes up to this depth. */
const MAX_STACK_CHARS = 8 * 1024;
const MAX_CAUSE_DEPTH = 3;
interface Sink {
  level: LogLevel;
  stderr: boolean;
  /** The lowest level that also goes to stderr (the file gets everything from `level` up). */
  stderrLevel?: LogLevel;
  file?: LogFile;
  /** The file's problem already reported on stderr. */
  reported?: string;
}

const envLevel = (process.env.PINCER_LOG_LEVEL as LogLevel) in ORDER ? (process.env.PINCER_LOG_LEVEL as LogLevel) : undefined;
const sink: Sink = { level: envLevel ?? 'info', stderr: true };

let stdioGuarded = false;
/**
 * A stderr that fails (a full disk, a closed pipe: ENOSPC, EPIPE) stops being written; logging
 * goes on to the file and the process goes on serving. Without a listener such an error would be
 * an uncaught exception.
 */
function guardStderr(): void {
  if (stdioGuarded) return;
  stdioGuarded = true;
  process.stderr.on('error', () => {
    sink.stderr = false;
  });
}

/**
 * Logs go to a file in the data directory, one JSON object a line, and (unless `stderr: false`)
 * to stderr as readable text — never stdout, which belongs to the protocol when Pincer speaks
 * stdio. A log folder that cannot be written costs the file, not the process.
 */
export function configureLogging(opts: { logsDir?: string; fileName?: string; stderr?: boolean; level?: LogLevel; maxFileBytes?: number; quietStderr?: boolean }): void {
  if (opts.level) sink.level = opts.level;
  if (opts.stderr !== undefined) sink.stderr = opts.stderr;
  // A process a client started (`pincer stdio`): clients show its stderr to their users, so it
  // carries only warnings and errors unless PINCER_LOG_LEVEL asks for more; the log file has the rest.
  if (opts.quietStderr) sink.stderrLevel = envLevel ?? 'warn';
  if (opts.logsDir) {
    sink.file?.close();
    sink.file = new LogFile(path.join(opts.logsDir, opts.fileName ?? 'pincer.log'), opts.maxFileBytes ?? logFileMaxBytes());
    sink.reported = undefined;
  }
}

/** Where this process logs, and why not when its file cannot be written (for `pincer status` and tests). */
export function logState(): { file?: string; problem?: string; stderr: boolean } {
  return { file: sink.file?.file, problem: sink.file?.problem, stderr: sink.stderr };
}

export interface SerializedError {
  name: string;
  message: string;
  code?: string | number;
  stack?: string;
  cause?: SerializedError | string;
}

/** An error as a log line carries it: its name, message, code and stack (cut at 8 KB), and its causes. */
export function serializeError(err: unknown, depth = 0): SerializedError | string {
  if (!(err instanceof Error)) return typeof err === 'string' ? err : safeString(err);
  const e = err as Error & { code?: unknown; cause?: unknown };
  const out: SerializedError = { name: e.name, message: e.message };
  if (typeof e.code === 'string' || typeof e.code === 'number') out.code = e.code;
  if (e.stack) out.stack = e.stack.length > MAX_STACK_CHARS ? `${e.stack.slice(0, MAX_STACK_CHARS)}…` : e.stack;
  if (e.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

function safeString(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    // A cycle or a throwing getter: its string form is all that can be said of it.
    return String(v);
  }
}

function jsonLine(record: Record<string, unknown>): string {
  let line: string;
  try {
    line = JSON.stringify(record, (_k, val: unknown) => (val instanceof Error ? serializeError(val) : typeof val === 'bigint' ? String(val) : val));
  } catch (err) {
    // A cycle or a throwing getter in `extra`: keep the line, say what was lost.
    line = JSON.stringify({ time: record.time, level: record.level, scope: record.scope, msg: record.msg, pid: record.pid, unserializable: String(err) });
  }
  if (Buffer.byteLength(line) > MAX_LINE_BYTES) {
    line = JSON.stringify({ time: record.time, level: record.level, scope: record.scope, msg: String(record.msg).slice(0, 2048), pid: record.pid, truncated: Buffer.byteLength(line) });
  }
  return `${line}\n`;
}

/** The stderr form: one readable line, then the stack of each error in `extra`, indented. */
function textLine(time: string, level: LogLevel, scope: string, msg: string, extra?: Record<string, unknown>): string {
  const stacks: string[] = [];
  const rest = extra && safeJsonText(extra, stacks);
  const head = `${time} ${level.toUpperCase().padEnd(5)} [${scope}] ${msg}${rest ? ` ${rest}` : ''}\n`;
  return head + stacks.map((s) => `  ${s.split('\n').join('\n  ')}\n`).join('');
}

function safeJsonText(v: Record<string, unknown>, stacks: string[]): string {
  try {
    return JSON.stringify(v, (_k, val: unknown) => {
      if (!(val instanceof Error)) return typeof val === 'bigint' ? String(val) : val;
      if (val.stack) stacks.push(val.stack.slice(0, MAX_STACK_CHARS));
      return val.message;
    });
  } catch {
    // A cycle or a throwing getter in the fields: the line keeps its message and level.
    return String(v);
  }
}

/** What a tool call's log lines carry, whichever module writes them: its activity row's id, the tool, the client. */
export interface CallFields {
  callId: string;
  tool: string;
  client?: string;
}

const callScope = new AsyncLocalStorage<CallFields>();

/**
 * Runs one tool call (calls/calls.ts) so that every line logged on its path — the call core, the
 * asking, the tool's own modules, a plugin's host side — names the call, and a failure in the log
 * can be matched to its row in the dashboard's activity.
 */
export function inCall<T>(fields: CallFields, fn: () => T): T {
  return callScope.run(fields, fn);
}

function write(level: LogLevel, scope: string, msg: string, extra?: Record<string, unknown>): void {
  if (ORDER[level] < ORDER[sink.level]) return;
  const call = callScope.getStore();
  if (call) extra = { ...call, ...extra };
  const time = new Date().toISOString();
  if (sink.file) {
    sink.file.write(jsonLine({ time, level, scope, msg, pid: process.pid, ...extra }));
    const problem = sink.file.problem;
    if (problem && sink.reported !== problem) {
      sink.reported = problem;
      writeStderr(`${time} WARN  [log] the log file cannot be written (${problem}); logging to stderr only until it can\n`);
    }
  }
  if (sink.stderr && (sink.stderrLevel === undefined || ORDER[level] >= ORDER[sink.stderrLevel])) writeStderr(textLine(time, level, scope, msg, extra));
}

function writeStderr(text: string): void {
  if (!sink.stderr) return;
  // On first use, not at start: process.stderr is created lazily (a pipe's loads net), and the bridge logs rarely.
  guardStderr();
  try {
    process.stderr.write(text);
  } catch {
    // A synchronous stderr (a file) on a full disk throws here in some Node versions: stop writing it.
    sink.stderr = false;
  }
}

export function logger(scope: string): Logger {
  return {
    debug: (m, e) => write('debug', scope, m, e),
    info: (m, e) => write('info', scope, m, e),
    warn: (m, e) => write('warn', scope, m, e),
    error: (m, e) => write('error', scope, m, e),
    child: (s) => logger(`${scope}:${s}`),
  };
}

/**
 * Wraps a callback that runs outside any request (a timer, a file watcher, an
 * upgrade handler) so that its failure becomes a log line instead of taking
 * the process down.
 */
export function guarded<A extends unknown[]>(log: Logger, what: string, fn: (...args: A) => void): (...args: A) => void {
  return (...args: A) => {
    try {
      fn(...args);
    } catch (err) {
      log.error(`${what} failed`, { err });
    }
  };
}

/**
 * For a promise whose failure changes nothing for anyone (closing what is already closing, a
 * progress note to a client that left): the failure is logged at debug with what it was, so a
 * developer chasing a leak still sees it, and never surfaces.
 */
export function ignoreFailure(log: Logger, what: string): (err: unknown) => void {
  return (err) => log.debug(`${what} failed (ignored)`, { err });
}
