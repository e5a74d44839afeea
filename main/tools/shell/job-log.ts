import fs from 'node:fs';

/**
 * The one reader of job logs: ReadBgOutput (which moves the model's read position) and the
 * dashboard (which reads a window and moves nothing) both decode through here, so neither
 * ever cuts a UTF-8 character in half.
 */

export function logSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    // No log yet (the job has not written) or removed: nothing to read.
    return 0;
  }
}

/**
 * Reused by every read: reads are bounded (1 MB) and synchronous, and callers decode
 * before they await, so one buffer serves them all instead of a fresh megabyte per call.
 */
let shared = Buffer.alloc(0);

/**
 * Reads a byte range without loading the rest of a (possibly huge) log. The result is a
 * view of the shared buffer: valid only until the next read, so decode it before awaiting.
 */
export function readRange(file: string, from: number, length: number): Buffer {
  if (length <= 0) return Buffer.alloc(0);
  if (shared.length < length) shared = Buffer.allocUnsafe(Math.max(length, 64 * 1024));
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    // No log yet (the job has not written) or removed: nothing to read.
    return Buffer.alloc(0);
  }
  try {
    const n = fs.readSync(fd, shared, 0, length, from);
    return shared.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** Length of the longest prefix that does not end inside a UTF-8 sequence. */
export function completeUtf8Length(buf: Buffer): number {
  const n = buf.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = buf[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

/** Continuation bytes at the start of `buf` (a window that begins inside a character), at most 3. */
function leadingContinuations(buf: Buffer): number {
  let i = 0;
  while (i < Math.min(3, buf.length) && (buf[i]! & 0xc0) === 0x80) i++;
  return i;
}

/** Bytes [from, from + length) of some output (a log file, or a run's output kept in memory); fewer past its end. */
export type ByteRange = (from: number, length: number) => Buffer;

/**
 * Whole characters of the byte window [from, from + maxBytes): the start moves past a character
 * it would cut, the end stops before one (unless `complete`: the log will not grow, so a broken
 * end is shown as it is). `from`/`to` are the byte offsets actually decoded.
 */
export function readLogWindow(file: string, from: number, maxBytes: number, complete = false): { text: string; from: number; to: number } {
  return windowFrom((f, n) => readRange(file, f, n), from, maxBytes, complete);
}

/** readLogWindow of any output. */
export function windowFrom(read: ByteRange, from: number, maxBytes: number, complete = false): { text: string; from: number; to: number } {
  const buf = read(from, maxBytes);
  const skip = from > 0 ? leadingContinuations(buf) : 0;
  const body = buf.subarray(skip);
  const usable = complete ? body.length : completeUtf8Length(body);
  return { text: body.toString('utf8', 0, usable), from: from + skip, to: from + skip + usable };
}

/**
 * The window of at most `maxBytes` that ends at `before` and starts at a line start: the part of a log
 * just earlier than what a reader shows (the dashboard's "earlier output"). A window whose first line is
 * longer than the window starts inside it, at a whole character. `from`/`to` are the offsets decoded.
 */
export function readLogBefore(file: string, before: number, maxBytes: number): { text: string; from: number; to: number } {
  return windowBefore((f, n) => readRange(file, f, n), before, maxBytes);
}

/**
 * readLogBefore of any output; `floor` is its first byte still kept (a run kept in memory lets its start
 * go): a window never starts below it, and starts at a line start only where the byte before it says so.
 */
export function windowBefore(read: ByteRange, before: number, maxBytes: number, floor = 0): { text: string; from: number; to: number } {
  const start = Math.max(floor, before - maxBytes);
  // Asked first: the window below may be a view of a shared buffer, which the next read overwrites.
  const atLineStart = start === 0 || (start > floor && read(start - 1, 1)[0] === 0x0a);
  const buf = read(start, before - start);
  let skip = 0;
  if (!atLineStart) {
    const nl = buf.indexOf(0x0a);
    skip = nl >= 0 ? nl + 1 : leadingContinuations(buf);
  }
  const body = buf.subarray(skip);
  const usable = completeUtf8Length(body);
  return { text: body.toString('utf8', 0, usable), from: start + skip, to: start + skip + usable };
}
