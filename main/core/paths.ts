import os from 'node:os';
import path from 'node:path';

// fs through getBuiltinModule: an ESM import of node:fs reads all its exports, loading fs/promises and streams (~3 MB of RSS in `pincer stdio`).
const fs = process.getBuiltinModule('node:fs');

/** Where Pincer keeps everything that must survive a restart (DESIGN §4). */
export interface PincerPaths {
  home: string;
  settingsFile: string;
  database: string;
  jobsDir: string;
  skillsDir: string;
  logsDir: string;
  hubFile: string;
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
    logsDir: path.join(home, 'logs'),
    hubFile: path.join(home, 'hub.json'),
  };
}

/** Creates the data directory tree; private to the user because it holds the token and job output. */
export function ensureHome(paths: PincerPaths): void {
  for (const dir of [paths.home, paths.jobsDir, paths.skillsDir, paths.logsDir]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
}

/** Writes a file atomically (temp file + rename) so readers never see half a file. */
export function writeFileAtomic(file: string, data: string | Buffer, mode = 0o600): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, data, { mode });
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
