import path from 'node:path';

// fs through getBuiltinModule: an ESM import of node:fs reads all its exports, loading fs/promises and streams (~3 MB of RSS in `pincer stdio`).
const fs = process.getBuiltinModule('node:fs');

/** A log file is rotated past this size (PINCER_LOG_MAX_BYTES overrides it), keeping this many old ones (.1 … .3). */
const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;
const KEEP_ROTATED = 3;
/** After the log file failed (full disk, read-only folder), it is tried again at most this often. */
const REOPEN_AFTER_MS = 60_000;

/**
 * One log file, appended with synchronous writes and rotated by size. Synchronous: a hub logs a
 * few lines a second at most, a write to a local file costs microseconds, rotation stays simple
 * (close, rename, reopen), and the bridge never starts libuv's thread pool (~3 MB of RSS) for it.
 * A failing write (ENOSPC, EROFS, EBADF) closes the file; logging goes on without it and tries
 * again a minute later.
 */
export class LogFile {
  private fd: number | undefined;
  private size = 0;
  private failedAt = 0;
  /** Why the file cannot be written now (for the one warning on stderr), or undefined. */
  problem: string | undefined;

  private readonly maxBytes: number;

  constructor(
    readonly file: string,
    maxBytes: number,
  ) {
    this.maxBytes = Math.max(4096, maxBytes);
    this.open();
  }

  private open(): boolean {
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      this.fd = fs.openSync(this.file, 'a', 0o600);
      this.size = fs.fstatSync(this.fd).size;
      this.problem = undefined;
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  private fail(err: unknown): void {
    this.close();
    this.failedAt = Date.now();
    this.problem = `${this.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  }

  write(line: string): void {
    if (this.fd === undefined && (Date.now() - this.failedAt < REOPEN_AFTER_MS || !this.open())) return;
    const bytes = Buffer.byteLength(line);
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    try {
      fs.writeSync(this.fd!, line);
      this.size += bytes;
    } catch (err) {
      this.fail(err);
    }
  }

  /** pincer.log → pincer.log.1 → … → .3 (the oldest is dropped). Closed first: Windows renames no open file. */
  private rotate(): void {
    this.close();
    rotateFiles(this.file);
    this.open();
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      // Already closed by a failing disk: nothing is left to release.
    }
    this.fd = undefined;
  }
}

/** The size past which a log file is rotated: PINCER_LOG_MAX_BYTES, else 5 MB. */
export function logFileMaxBytes(): number {
  return Number(process.env.PINCER_LOG_MAX_BYTES) || DEFAULT_MAX_FILE_BYTES;
}

/** file → file.1 → … → file.3, the oldest dropped. */
function rotateFiles(file: string): void {
  try {
    for (let i = KEEP_ROTATED - 1; i >= 1; i--) {
      const from = `${file}.${i}`;
      if (fs.existsSync(from)) fs.renameSync(from, `${file}.${i + 1}`);
    }
    fs.renameSync(file, `${file}.1`);
  } catch {
    // Another process (a hub handing over) rotated it a moment ago, or the folder turned read-only: the next open decides.
  }
}

/** Rotates `file` now when it is already past the size (before a process is given it to write to). */
export function rotateIfLarge(file: string, maxBytes = logFileMaxBytes()): void {
  try {
    if (fs.statSync(file).size <= maxBytes) return;
  } catch {
    return; // no file yet: nothing to rotate
  }
  rotateFiles(file);
}

/**
 * A process whose stdout and stderr were opened onto `file` by whoever started it (a bridge's
 * `serve --if-none`: logs/hub-start.log, hub-client.ts) keeps that file bounded like its own log:
 * every write through process.stdout/stderr (console, warnings, its own lines) goes through a
 * LogFile of the same path, rotated past the size. Writes straight to descriptor 2 (a fatal V8
 * error) still reach the file it was given. False when stderr is not that file.
 */
export function boundStdioFile(file: string, maxBytes = logFileMaxBytes()): boolean {
  try {
    const given = fs.fstatSync(2);
    const named = fs.statSync(file);
    if (!given.isFile() || given.dev !== named.dev || given.ino !== named.ino) return false;
  } catch {
    // No such file, or stderr is closed: nothing to bound.
    return false;
  }
  const out = new LogFile(file, maxBytes);
  const write = (chunk: string | Uint8Array, encoding?: BufferEncoding | ((err?: Error | null) => void), done?: (err?: Error | null) => void): boolean => {
    out.write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8'));
    (typeof encoding === 'function' ? encoding : done)?.();
    return true;
  };
  process.stdout.write = write as typeof process.stdout.write;
  process.stderr.write = write as typeof process.stderr.write;
  return true;
}
