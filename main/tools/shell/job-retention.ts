import fs from 'node:fs';
import path from 'node:path';
import type { JobManager } from './job-manager.js';

/** What retention keeps of ended jobs (ARCHITECTURE §4): by age, by count and by the bytes of their logs together. */
export interface JobLimits {
  endedBefore: number;
  keep: number;
  maxBytes: number;
}

/** Jobs deleted per pass (six files each, one commit for all): a pass holds the hub's one thread briefly, the next goes on. */
const PER_PASS = 200;
/** A file in the jobs folder with no job row is left this long (a job being started writes its row first). */
const ORPHAN_AFTER_MS = 3_600_000;

/** Deletes the ended jobs past the limits, oldest first, with their files; running jobs are never touched. */
export function pruneJobs(jobs: JobManager, limits: JobLimits): { jobs: number; bytes: number; more: boolean } {
  const expired = jobs.repo.expired(limits.endedBefore, limits.keep, limits.maxBytes, PER_PASS);
  const removed = jobs.removeAll(expired);
  return { jobs: removed.length, bytes: removed.reduce((n, job) => n + (job.log_bytes ?? 0), 0), more: expired.length === PER_PASS };
}

/**
 * Files of the jobs folder that belong to no job (a crash between deleting a job's files and its row, or
 * rows deleted by hand) and are older than an hour: deleted. Returns their bytes.
 */
export function sweepOrphanFiles(jobs: JobManager, dir: string, now = Date.now()): number {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    // No jobs folder yet: nothing to sweep.
    return 0;
  }
  const known = jobs.repo.ids();
  let bytes = 0;
  for (const name of names) {
    const m = /^(\d+)\.(log|exit|run|stop|spec|cwd)$/.exec(name);
    if (!m || known.has(Number(m[1]))) continue;
    const file = path.join(dir, name);
    try {
      const st = fs.statSync(file);
      if (now - st.mtimeMs < ORPHAN_AFTER_MS) continue;
      fs.rmSync(file, { force: true });
      bytes += st.size;
    } catch {
      // Gone meanwhile (another process swept it): nothing to do.
    }
  }
  return bytes;
}
