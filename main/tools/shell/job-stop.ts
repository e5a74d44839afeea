import type { JobsRepo, JobRow } from '../../store/jobs.js';
import { formatDuration } from '../../core/format.js';
import { sameProcess } from '../../core/process-identity.js';
import { killTree, groupAlive, type SignalOutcome } from './process.js';
import { UserError } from '../../core/errors.js';
import { type RunRecord, readExitRecord, readRunRecord, writeJsonAtomic, jobFile } from './job-files.js';
import { KILL_GRACE_MS, withoutRunRecord, type JobEndings } from './job-ending.js';
import { logger } from '../../core/log.js';

const log = logger('jobs');

/** How long a job may be without its run record after it started (its supervisor writes it once the shell runs; slow under load or Wine). */
const RUN_RECORD_WAIT_MS = 10_000;

export interface Stopped {
  job: JobRow;
  forced: boolean;
  waitedMs: number;
}

/** What stopping a job needs of the JobManager that owns it. */
export interface StopDeps {
  repo: JobsRepo;
  endings: JobEndings;
  /** Jobs whose supervisor this process started: the only ones a missing run record may still be on its way for. */
  launched: ReadonlySet<number>;
  /** Announces the job's end (job_ended). */
  ended(job: JobRow): void;
}

/**
 * Stops a running job's whole process tree through its supervisor: a stop request, answered with
 * TERM (POSIX process group; Windows `taskkill /T`), then KILL after KILL_GRACE_MS. A job whose
 * supervisor is gone is reported lost; nothing is signalled by a pid that was not verified.
 */
export async function stopJob(job: JobRow & { pid: number }, deps: StopDeps): Promise<Stopped> {
  const { repo, endings } = deps;
  const t0 = Date.now();
  const run = await runRecordOf(job, deps);
  if (!run) {
    if (withoutRunRecord(process.platform) === 'group') return stopGroup(job.id, job.pid, t0, deps);
    endings.end(job, 'lost', null, Date.now(), `it has no run record, so its process (pid ${job.pid}) cannot be proven to be it; nothing was signalled`);
    const lost = repo.get(job.id)!;
    deps.ended(lost);
    return { job: lost, forced: false, waitedMs: Date.now() - t0 };
  }
  writeJsonAtomic(jobFile(job.exit_path, 'stop'), { at: t0 });
  let rec = readExitRecord(job.exit_path);
  while (!rec && Date.now() - t0 < KILL_GRACE_MS + 5000 && endings.alive(job)) {
    await sleep(50);
    rec = readExitRecord(job.exit_path);
  }
  rec ??= readExitRecord(job.exit_path);
  let forced = rec?.stopped === 'killed';
  // Checked afresh right before any signal, never from alive()'s cache: on an OS where that
  // check costs a spawn the cache trusts a live pid, which may have been reused since.
  const same = !rec && run.supervisorStart !== undefined && sameProcess(run.supervisorPid, run.supervisorStart);
  if (rec) endings.record(job, rec);
  else if (!endings.alive(job) || (run.supervisorStart !== undefined && !same)) endings.lose(job);
  else if (!same) {
    endings.end(job, 'lost', null, Date.now(), `its supervisor (pid ${run.supervisorPid}) did not answer the stop request; nothing was signalled, as that pid cannot be proven to be it`);
  } else {
    // A supervisor that does not answer (stopped, or hung): its tree is stopped from here, verified.
    const outcome = await killTree(run.supervisorPid, 'SIGKILL');
    if (outcome === 'gone') endings.lose(job);
    else {
      await gone(job.id, run.supervisorPid, outcome, Date.now() + 2000);
      forced = true;
      endings.end(job, 'killed', null, Date.now(), 'killed by KillBgTask: its supervisor did not answer');
    }
  }
  const fresh = repo.get(job.id)!;
  deps.ended(fresh);
  return { job: fresh, forced, waitedMs: rec?.stopMs ?? Date.now() - t0 };
}

/**
 * The job's run record. A supervisor writes it right after it started the shell, so a job this
 * process launched and kills in its first moments may not have one yet: wait for it, rather than
 * calling lost a job its supervisor is about to run.
 */
async function runRecordOf(job: JobRow, deps: StopDeps): Promise<RunRecord | undefined> {
  const file = jobFile(job.exit_path, 'run');
  let run = readRunRecord(file);
  while (!run && deps.launched.has(job.id) && Date.now() - job.started_at < RUN_RECORD_WAIT_MS && deps.endings.alive(job)) {
    await sleep(50);
    run = readRunRecord(file);
  }
  return run;
}

/** A job whose supervisor wrote no run record (it cannot be asked to stop): its process group, TERM then KILL. */
async function stopGroup(id: number, pid: number, t0: number, deps: StopDeps): Promise<Stopped> {
  const asked = await killTree(pid, 'SIGTERM');
  if (typeof asked === 'object') await gone(id, pid, asked, 0);
  let forced = false;
  while (groupAlive(pid) && Date.now() - t0 < KILL_GRACE_MS) await sleep(50);
  if (groupAlive(pid)) {
    forced = true;
    await gone(id, pid, await killTree(pid, 'SIGKILL'), t0 + KILL_GRACE_MS + 2000);
  }
  const note = forced ? `killed by KillBgTask after ${formatDuration(KILL_GRACE_MS)}: it did not stop when asked` : 'terminated by KillBgTask';
  if (!deps.endings.end(deps.repo.get(id)!, 'killed', null, Date.now(), note)) log.info(`job ${id} ended on its own while being killed`);
  const fresh = deps.repo.get(id)!;
  deps.ended(fresh);
  return { job: fresh, forced, waitedMs: Date.now() - t0 };
}

/**
 * Waits (until `by`) for a signalled process group to be gone; throws, leaving the job as it is,
 * when the signal was refused or the group outlived it: a job is recorded stopped only when it is.
 */
async function gone(id: number, pgid: number, outcome: SignalOutcome, by: number): Promise<void> {
  while (outcome !== 'gone' && typeof outcome !== 'object' && groupAlive(pgid) && Date.now() < by) await sleep(50);
  const why = typeof outcome === 'object' ? outcome.refused : outcome === 'sent' && groupAlive(pgid) ? `process group ${pgid} is still there after SIGKILL` : undefined;
  if (!why) return;
  log.warn(`job ${id} could not be stopped`, { why });
  throw new UserError(`KillBgTask: task ${id} could not be stopped (${why}); it is still recorded as running. Try again, or end process group ${pgid} yourself.`, typeof outcome === 'object' ? 'DENIED' : 'TIMEOUT');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(1, ms)));
}
