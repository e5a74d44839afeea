import path from 'node:path';

// fs through getBuiltinModule: an ESM import of node:fs reads all its exports, loading fs/promises and streams (~3 MB of RSS in `pincer stdio`).
const fs = process.getBuiltinModule('node:fs');

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

interface LogFile {
  write(line: string): void;
  end(): void;
}

interface Sink {
  level: LogLevel;
  stderr: boolean;
  /** The lowest level that also goes to stderr (the file gets everything from `level` up). */
  stderrLevel?: LogLevel;
  file?: LogFile;
}

const envLevel = (process.env.PINCER_LOG_LEVEL as LogLevel) in ORDER ? (process.env.PINCER_LOG_LEVEL as LogLevel) : undefined;
const sink: Sink = { level: envLevel ?? 'info', stderr: true };

/**
 * Logs go to stderr and to a file in the data directory — never stdout, which
 * belongs to the protocol when Pincer speaks stdio.
 */
export function configureLogging(opts: { logsDir?: string; fileName?: string; stderr?: boolean; level?: LogLevel; sync?: boolean; quietStderr?: boolean }): void {
  if (opts.level) sink.level = opts.level;
  if (opts.stderr !== undefined) sink.stderr = opts.stderr;
  // A process a client started (`pincer stdio`): clients show its stderr to their users, so it
  // carries only warnings and errors unless PINCER_LOG_LEVEL asks for more; the log file has the rest.
  if (opts.quietStderr) sink.stderrLevel = envLevel ?? 'warn';
  if (opts.logsDir) {
    fs.mkdirSync(opts.logsDir, { recursive: true, mode: 0o700 });
    sink.file?.end();
    const file = path.join(opts.logsDir, opts.fileName ?? 'pincer.log');
    sink.file = opts.sync ? appendSync(file) : stream(file);
  }
}

function stream(file: string): LogFile {
  const s = fs.createWriteStream(file, { flags: 'a', mode: 0o600 });
  s.on('error', () => { sink.file = undefined; });
  return s;
}

/**
 * Appends with synchronous writes: for a process that logs a few lines in its
 * life (the bridge), where a write stream's first write would start libuv's
 * thread pool, ~3 MB of RSS in every client's `pincer stdio`.
 */
function appendSync(file: string): LogFile | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'a', 0o600);
  } catch {
    return undefined;
  }
  return {
    write: (line) => {
      try {
        if (fd !== undefined) fs.writeSync(fd, line);
      } catch {
        // A full disk or a removed folder costs the log line, never the process.
      }
    },
    end: () => {
      if (fd !== undefined) fs.closeSync(fd);
      fd = undefined;
    },
  };
}

function write(level: LogLevel, scope: string, msg: string, extra?: Record<string, unknown>): void {
  if (ORDER[level] < ORDER[sink.level]) return;
  const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} [${scope}] ${msg}${extra ? ' ' + safeJson(extra) : ''}\n`;
  if (sink.stderr && (sink.stderrLevel === undefined || ORDER[level] >= ORDER[sink.stderrLevel])) process.stderr.write(line);
  sink.file?.write(line);
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, val) => (val instanceof Error ? val.message : val));
  } catch {
    return String(v);
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
