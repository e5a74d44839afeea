import type { Logger } from './log.js';

/** Write errors of a closed or full stdout/stderr: the environment failing, not the code. */
const STDIO_FAULTS = new Set(['EPIPE', 'ENOSPC', 'EBADF', 'ECONNRESET', 'EIO', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

function isStdioFault(err: unknown): boolean {
  const e = err as { code?: unknown; syscall?: unknown } | null;
  return typeof e?.code === 'string' && STDIO_FAULTS.has(e.code) && (e.syscall === undefined || e.syscall === 'write');
}

export interface LastResortOptions {
  /**
   * A hub keeps serving after an unexpected error (one failed call must not take every client's
   * jobs, questions and sessions down); a relay (the bridge) exits, since its state is one
   * connection that a client restarts cheaply.
   */
  keepServing: boolean;
  /** More uncaught exceptions than this within a minute: the state is likely broken; exit so a fresh hub can start. */
  maxPerMinute?: number;
  /** stdout carries only messages for a person (`pincer serve`'s banner): a closed one is ignored, never fatal. */
  ignoreStdoutErrors?: boolean;
  exit?: (code: number) => void;
}

/**
 * The last-resort handler: an error nothing caught is logged with its stack instead of killing
 * the process silently (its stderr may be gone), and a hub goes on serving where it safely can.
 * What counts here is the hub's own: a module plugin's code runs only in its worker thread, whose
 * handlers report its errors as that plugin's faults (plugins/worker-entry.ts), so no plugin can
 * spend this budget. Returns the function that removes it.
 */
export function installLastResort(log: Logger, opts: LastResortOptions): () => void {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const limit = opts.maxPerMinute ?? 20;
  const recent: number[] = [];
  const onException = (err: Error, origin: string) => {
    if (isStdioFault(err)) {
      log.warn('a write to stdout or stderr failed; going on without it', { err });
      return;
    }
    log.error(`uncaught ${origin === 'unhandledRejection' ? 'rejection' : 'exception'}${opts.keepServing ? '; still serving' : ''}`, { err });
    if (!opts.keepServing) return exit(70);
    const now = Date.now();
    recent.push(now);
    while (recent.length && now - recent[0]! > 60_000) recent.shift();
    if (recent.length > limit) {
      log.error(`${recent.length} uncaught errors within a minute: exiting so that a fresh hub can start`);
      exit(70);
    }
  };
  const onRejection = (reason: unknown) => onException(reason instanceof Error ? reason : new Error(`non-error rejection: ${String(reason)}`), 'unhandledRejection');
  const onStdout = (err: Error) => log.debug('stdout is closed; its messages are dropped', { err });
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  if (opts.ignoreStdoutErrors) process.stdout.on('error', onStdout);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
    if (opts.ignoreStdoutErrors) process.stdout.off('error', onStdout);
  };
}
