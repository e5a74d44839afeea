import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import type { JobsRepo, JobRow } from '../../store/jobs.js';
import type { SettingsView } from '../../core/settings/view.js';
import { formatBytes, formatDuration } from '../../core/format.js';
import { sameProcess } from '../../core/process-identity.js';
import { groupAlive, processGroup, signalGroup } from './process.js';
import { type ExitRecord, type RunRecord, readRunRecord, jobFile } from './job-files.js';
import { logSize } from './job-log.js';
import { logger } from '../../core/log.js';

const log = logger('jobs');

/** How long a job is given to stop on its own after KillBgTask before its process tree is killed. */
export const KILL_GRACE_MS = 3000;

/**
 * How a job ended: whether its supervisor still runs, what its exit record says, what is left of a
 * supervisor that vanished — recorded once in the jobs table. The same for jobs this process started
 * and jobs an earlier hub did (adoption is reading the files).
 */
export class JobEndings {
  /** Supervisors whose start time this process has checked, where checking costs a spawn (not Linux). */
  private verified = new Map<number, number>();

  constructor(private repo: JobsRepo, private settings: SettingsView) {}

  /** The job ended: its supervisor's start time need not be remembered any more. */
  settled(id: number): void {
    this.verified.delete(id);
  }

  /**
   * Whether the job's supervisor still runs: its pid alive with the start time it recorded (a
   * pid reused by another program is "gone"). A supervisor with no run record yet: its group, once its
   * command line proved it is the job's (startedAs).
   */
  alive(job: JobRow): boolean {
    const run = readRunRecord(jobFile(job.exit_path, 'run'));
    if (!run) return groupAlive(job.pid!) && startedAs(job.pid!, job.exit_path);
    if (process.platform !== 'linux' && this.verified.get(job.id) === run.supervisorPid) return sameProcess(run.supervisorPid, undefined);
    const same = sameProcess(run.supervisorPid, run.supervisorStart);
    if (same) this.verified.set(job.id, run.supervisorPid);
    return same;
  }

  /** Records a job's end once, with its log's size then (retention by bytes counts it). */
  end(job: JobRow, status: 'exited' | 'killed' | 'lost', code: number | null, endedAt: number, note?: string): boolean {
    return this.repo.finish(job.id, status, code, endedAt, note, logSize(job.log_path));
  }

  /** Records the end the supervisor wrote. */
  record(job: JobRow, rec: ExitRecord): boolean {
    const dropped = this.droppedNote(job, rec);
    const join = (...notes: (string | undefined)[]) => notes.filter(Boolean).join('; ') || undefined;
    if (rec.error !== undefined) return this.end(job, 'lost', null, rec.endedAt, `could not start the shell: ${rec.error}`);
    if (rec.stopped && rec.timedOutMs !== undefined) {
      const how = `timed out after ${formatDuration(rec.timedOutMs)} and was ${rec.stopped === 'killed' ? 'killed' : 'terminated'} with its child processes`;
      return this.end(job, 'killed', null, rec.endedAt, join(how, dropped));
    }
    if (rec.stopped) {
      const how = rec.stopped === 'killed'
        ? `killed by KillBgTask after ${formatDuration(rec.stopMs ?? KILL_GRACE_MS)}: it did not stop when asked`
        : 'terminated by KillBgTask';
      return this.end(job, 'killed', null, rec.endedAt, join(how, dropped));
    }
    if (rec.code !== null) return this.end(job, 'exited', rec.code, rec.endedAt, dropped);
    return this.end(job, 'killed', null, rec.endedAt, join(`ended by ${rec.signal ?? 'a signal'} from outside Pincer`, dropped));
  }

  /**
   * The supervisor is gone without an exit record. What it started may still run, orphaned:
   * stopped when its recorded start time proves it is that process — never a pid alone.
   */
  lose(job: JobRow): boolean {
    const run = readRunRecord(jobFile(job.exit_path, 'run'));
    let note = 'the process ended without recording an exit code';
    if (run && orphanAlive(run)) {
      // Its group keeps the supervisor's pid as id while the verified shell is in it: no other process can hold that id.
      // The run file is only a file: the shell is signalled through that group only once the OS confirms it is in it.
      if (processGroup(run.shellPid) === run.supervisorPid) {
        // Recorded as stopped only when the signal was delivered (POSIX: a group id is known only there).
        const outcome = signalGroup(run.supervisorPid, 'SIGKILL');
        if (outcome === 'sent') note += '; the commands it left running were stopped';
        else if (outcome === 'gone') note += '; the commands it left running ended meanwhile';
        else {
          log.warn(`job ${job.id}: the commands its lost supervisor left running could not be stopped`, { why: outcome.refused });
          note += `; the commands it left running could not be stopped (${outcome.refused})`;
        }
      } else {
        note += `; its shell (pid ${run.shellPid}) is not in the supervisor's process group ${run.supervisorPid} as far as the OS tells, so nothing was signalled`;
      }
    }
    return this.end(job, 'lost', null, Date.now(), note);
  }

  private droppedNote(job: JobRow, rec?: ExitRecord): string | undefined {
    const cap = this.settings.get('JOB_LOG_MAX_BYTES');
    if (rec && rec.dropped > 0) return `output beyond ${cap} bytes was dropped (JOB_LOG_MAX_BYTES): ${formatBytes(rec.dropped)} not kept`;
    return logSize(job.log_path) >= cap ? `output beyond ${cap} bytes was dropped (JOB_LOG_MAX_BYTES)` : undefined;
  }
}

/**
 * A supervisor without a run record (it has not written it yet) is known by its command line, which
 * names the job's spec file (`<node> job-supervisor.js <id>.spec`). Whatever else holds that pid is
 * not the job. (Windows: no cheap command line; the pid alone.)
 */
function startedAs(pid: number, exitPath: string): boolean {
  if (process.platform === 'win32') return true;
  try {
    const args = process.platform === 'linux'
      ? fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      : execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    return args.includes(jobFile(exitPath, 'spec'));
  } catch {
    return false;
  }
}

/**
 * How KillBgTask stops a job without a run record (a supervisor that died or hung before writing
 * it): on POSIX its group, once its command line proved the pid is the job
 * (startedAs); on Windows nothing proves that, so it is reported lost and never signalled.
 */
export function withoutRunRecord(platform: NodeJS.Platform): 'group' | 'lost' {
  return platform === 'win32' ? 'lost' : 'group';
}

/** The shell a supervisor started, still running and proven to be that process by its start time (POSIX only). */
function orphanAlive(run: RunRecord): boolean {
  return process.platform !== 'win32' && run.shellStart !== undefined && sameProcess(run.shellPid, run.shellStart);
}

export function isActive(job: JobRow): boolean {
  return job.status === 'running' || job.status === 'starting';
}

