import os from 'node:os';
import path from 'node:path';
import { ensureOwnedHome } from './ownership.js';

// fs through getBuiltinModule: an ESM import of node:fs reads all its exports, loading fs/promises and streams (~3 MB of RSS in `pincer stdio`).
const fs = process.getBuiltinModule('node:fs');

/** Where Pincer keeps everything that must survive a restart (ARCHITECTURE §4). */
export interface PincerPaths {
  home: string;
  settingsFile: string;
  database: string;
  jobsDir: string;
  skillsDir: string;
  /** The user's command tools (YAML/JSON), read by the plugin host; never created by Pincer. */
  toolsDir: string;
  /** The user's module plugins (.mjs/.js). */
  pluginsDir: string;
  logsDir: string;
  hubFile: string;
  /** Results of MCP tasks too large to keep in pincer.db (calls/task-results.ts); made when first needed. */
  taskResultsDir: string;
}

export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.PINCER_HOME?.trim();
  return path.resolve(fromEnv && fromEnv.length > 0 ? fromEnv : path.join(os.homedir(), '.pincer'));
}

export function pincerPaths(home: string): PincerPaths {
  return {
    home,
    settingsFile: path.join(home, 'pincer-env.txt'),
    database: path.join(home, 'pincer.db'),
    jobsDir: path.join(home, 'jobs'),
    skillsDir: path.join(home, 'skills'),
    toolsDir: path.join(home, 'tools'),
    pluginsDir: path.join(home, 'plugins'),
    logsDir: path.join(home, 'logs'),
    hubFile: path.join(home, 'hub.json'),
    taskResultsDir: path.join(home, 'task-results'),
  };
}

/**
 * Creates the data directory tree, private to the user because it holds the
 * token, commands and their output: 0700 directories whichever command runs
 * first. A home made wider (`mkdir ~/.pincer` under a 022 umask: 0755) is tightened. A folder or file in it that
 * another user owns is refused (ownership.ts). On Windows,
 * modes mean little; the ACL a new folder under the user profile inherits
 * already limits it to the user.
 */
export function ensureHome(paths: PincerPaths): void {
  // Once per process and folder: every command calls this, some more than once.
  if (checkedHomes.has(paths.home)) return;
  checkIsFolder(paths.home);
  ensureOwnedHome(paths.home, [paths.jobsDir, paths.skillsDir, paths.logsDir]);
  for (const dir of [paths.home, paths.jobsDir, paths.skillsDir]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    privateMode(dir, 0o700);
  }
  try {
    fs.mkdirSync(paths.logsDir, { recursive: true, mode: 0o700 });
    privateMode(paths.logsDir, 0o700);
  } catch {
    // A log folder that cannot be made costs the log files (core/log.ts says so on stderr), never the hub.
  }
  checkedHomes.add(paths.home);
}

const checkedHomes = new Set<string>();

/** A data folder path that is (or runs through) a file gets a sentence, not mkdir's raw EEXIST or ENOTDIR. */
function checkIsFolder(home: string): void {
  for (let p = home; ; p = path.dirname(p)) {
    let st;
    try {
      st = fs.statSync(p);
    } catch {
      // Not there (mkdir makes it) or not readable (mkdir says why): look further up.
      if (path.dirname(p) === p) return;
      continue;
    }
    if (st.isDirectory()) return;
    const what = p === home ? `the data folder ${home} is a file, not a folder` : `${p} is a file, so the data folder ${home} cannot be made inside it`;
    throw new Error(`${what}. Set PINCER_HOME to a folder (Pincer makes it if it does not exist), or move that file away.`);
  }
}

/** Tightens a file or folder to `mode` if it is wider (best effort: it may belong to someone else). */
export function privateMode(file: string, mode: 0o700 | 0o600): void {
  if (process.platform === 'win32') return;
  try {
    const st = fs.statSync(file);
    if ((st.mode & 0o777 & ~mode) !== 0) fs.chmodSync(file, mode);
  } catch {
    // Missing or not ours: the caller's own open/create reports what matters.
  }
}

/** Creates `file` empty with mode 0600 if it does not exist, so that whatever opens it next (SQLite) keeps it private. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  privateMode(file, 0o600);
}

/**
 * Writes a file atomically (temp file + rename) so readers never see half a file. The temp file
 * is created new (O_EXCL: never through a link someone left at its name) with `mode`, and reaches
 * the disk before the rename (unless `durable` is false: a file that only describes a running
 * process), so a power cut leaves the old file or the new one, not an empty one.
 */
export function writeFileAtomic(file: string, data: string | Buffer, mode = 0o600, durable = true): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    const fd = fs.openSync(tmp, 'wx', mode);
    try {
      fs.writeFileSync(fd, data);
      if (durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
