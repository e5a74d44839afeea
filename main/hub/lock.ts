import type BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import type { PincerPaths } from '../core/paths.js';
import { HUB_ROLES, readHubFile } from '../core/hub-file.js';
import { fileId, sameFile, type FileId } from './home-watch.js';

export { HUB_ROLES, readHubFile, writeHubInfo, type HubInfo } from '../core/hub-file.js';
/** The roles as a zod enum, for the schemas of the hub's own messages (identity, handover). */
export const HubRole = z.enum(HUB_ROLES);
export type HubRole = z.infer<typeof HubRole>;

function lockFile(paths: PincerPaths): string {
  return path.join(paths.home, 'hub.lock');
}

export interface HubLock {
  /** The hub.lock file this lock is held on: a hub.lock at that path that is another file guards nothing (home-watch.ts). */
  readonly file: FileId;
  /** Lets the next hub start; removes hub.json if it is still ours. Idempotent. */
  release(): void;
  /** Removes hub.json if it is still ours, keeping the lock: a closing hub does this before it stops listening. */
  forgetHubFile(): void;
}

// Loaded on first lock: reading hub.json (what a bridge does) must not load a native module.
let sqlite: typeof BetterSqlite3 | undefined;
const openSqlite = (file: string, timeout: number) => new (sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3)(file, { timeout });

/**
 * How long a starting hub waits out another process's brief hold on hub.lock before it concludes a
 * hub holds it. Taking the lock is several steps (SQLite reads the file under a shared lock, then
 * escalates), and every other starter, and every `pincer status` probe, holds the file for such an
 * instant: without waiting, starters that meet each other's instants can all give up at once, and
 * then each waited ~10 s for a hub that nobody was starting (test/lock-race.test.ts).
 */
export const LOCK_CONTENTION_MS = 500;

const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * Makes sure `hub.lock` exists, private, and is something SQLite can lock. A
 * file there that is not SQLite's (damaged, or written by something else) is
 * emptied in place (same inode, so a process that has it open keeps locking the
 * same file) rather than keeping every hub from starting.
 */
function prepareLockFile(file: string): void {
  const fd = fs.openSync(file, 'a+', 0o600);
  try {
    const head = Buffer.alloc(16);
    const n = fs.readSync(fd, head, 0, 16, 0);
    if (n > 0 && head.subarray(0, n).toString('latin1') !== SQLITE_HEADER.slice(0, n)) fs.ftruncateSync(fd, 0);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * One hub per data directory, held by an operating-system lock: an exclusive
 * SQLite transaction on `hub.lock` (fcntl on Unix, LockFileEx on Windows).
 * The OS drops it when the holder exits or crashes, so a lock is never stale,
 * a reused pid can never hold it, and of any number of simultaneous starters
 * exactly one wins. The file itself is never deleted: deleting a lock file
 * that another process has open is what lets two processes both "win".
 * Returns undefined when a live process of this data directory holds it (after waiting up to
 * `waitMs` for a brief hold to end: LOCK_CONTENTION_MS for a starting hub).
 */
export function tryHubLock(paths: PincerPaths, waitMs = 0): HubLock | undefined {
  const file = lockFile(paths);
  prepareLockFile(file);
  const before = fileId(file);
  const db = openSqlite(file, waitMs);
  try {
    db.pragma('journal_mode = OFF');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw err;
  }
  // The same file at the path before the open and after the lock: else the lock is on a file that was
  // deleted or replaced meanwhile (the folder being removed), and another process can lock the new one.
  const after = fileId(file);
  if (!before || !after || !sameFile(before, after)) {
    db.close();
    return undefined;
  }
  let released = false;
  const forgetHubFile = () => {
    if (readHubFile(paths)?.pid === process.pid) fs.rmSync(paths.hubFile, { force: true });
  };
  return {
    file: after,
    release() {
      if (released) return;
      released = true;
      // hub.json first: once the lock is free the next hub may write its own.
      forgetHubFile();
      db.close();
    },
    forgetHubFile,
  };
}

/** Whether some live process holds this data directory's hub lock (probes by taking it for an instant). */
export function hubLockHeld(paths: PincerPaths): boolean {
  const lock = tryHubLock(paths);
  if (!lock) return true;
  // The probe must not delete the hub.json of a hub that is between lock and listen.
  lock.release();
  return false;
}
