import fs from 'node:fs';
import path from 'node:path';
import type { PincerPaths } from '../core/paths.js';
import { readHubFile } from '../core/hub-file.js';

/** Which file a path named when the hub started: a folder or file deleted and made again is another one. */
export interface FileId {
  dev: bigint;
  ino: bigint;
}

export function fileId(file: string): FileId | undefined {
  try {
    const st = fs.statSync(file, { bigint: true });
    return { dev: st.dev, ino: st.ino };
  } catch {
    // Gone: the watch reports it.
    return undefined;
  }
}

export const sameFile = (a: FileId | undefined, b: FileId) => a !== undefined && a.dev === b.dev && a.ino === b.ino;

/**
 * Why this hub can no longer be found through its data folder, or undefined while it can (ARCHITECTURE §1):
 * the folder or its hub.lock deleted or replaced (a new hub could then take a new lock, a second hub
 * for the same folder), or hub.json gone or naming another process (bridges and `pincer status` find
 * the hub only through it). hub.json is written atomically (rename), so a reader never meets it half-written.
 */
export function homeProblem(paths: PincerPaths, started: { home: FileId; lock: FileId }, pid = process.pid): string | undefined {
  const home = fileId(paths.home);
  if (!home) return `its data folder ${paths.home} was deleted`;
  if (!sameFile(home, started.home)) return `its data folder ${paths.home} was deleted and made again`;
  const lockFile = path.join(paths.home, 'hub.lock');
  const lock = fileId(lockFile);
  if (!lock) return `${lockFile} was deleted`;
  if (!sameFile(lock, started.lock)) return `${lockFile} was replaced by another file`;
  if (!fs.existsSync(paths.hubFile)) return `${paths.hubFile} was deleted`;
  const info = readHubFile(paths);
  if (!info) return `${paths.hubFile} no longer describes a hub`;
  if (info.pid !== pid) return `${paths.hubFile} now names pid ${info.pid}`;
  return undefined;
}

export interface HomeWatchOptions {
  /** How often to look (default 2 s). */
  intervalMs?: number;
  /** How many looks in a row must see the same kind of problem before the hub gives up (default 2): a moment's state is not a loss. */
  confirmations?: number;
  /** While true (a handover or stop under way: this hub rewrites or removes hub.json itself), nothing counts. */
  paused: () => boolean;
  onLost: (reason: string) => void;
}

/**
 * Watches that the data folder still leads to this hub. A hub whose folder was deleted (a test's
 * temporary PINCER_HOME, `rm -rf ~/.pincer`) served on forever with no way to reach or stop it; now it
 * says why and stops, a few seconds later. Returns a function that stops watching.
 */
export function watchHome(paths: PincerPaths, started: { home: FileId; lock: FileId }, opts: HomeWatchOptions): () => void {
  const needed = opts.confirmations ?? 2;
  let seen = 0;
  let done = false;
  const timer = setInterval(() => {
    if (done) return;
    const problem = opts.paused() ? undefined : homeProblem(paths, started);
    seen = problem ? seen + 1 : 0;
    if (problem && seen >= needed) {
      done = true;
      clearInterval(timer);
      opts.onLost(problem);
    }
  }, opts.intervalMs ?? 2000);
  // The watch alone never keeps a process alive.
  timer.unref();
  return () => {
    done = true;
    clearInterval(timer);
  };
}
