import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { JobsRepo, type JobRow, type JobPage, type JobQuery } from '../../store/jobs.js';
import type { Db } from '../../store/db.js';
import type { SettingsView } from '../../core/settings/view.js';
import { UserError } from '../../core/errors.js';
import { shellPhrase, type ShellSpec } from './shells.js';
import { resolveShell, resolveCwd } from './process.js';
import { readExitRecord, jobFile } from './job-files.js';
import { logSize, readRange, completeUtf8Length } from './job-log.js';
import { JobEndings, isActive } from './job-ending.js';
import { launchSupervisor, type JobOptions } from './job-launch.js';
import { stopJob, type Stopped } from './job-stop.js';
import { guarded, ignoreFailure, logger } from '../../core/log.js';

export { KILL_GRACE_MS, isActive, withoutRunRecord } from './job-ending.js';
export type { JobOptions } from './job-launch.js';

const log = logger('jobs');

export interface JobEvent {
  type: 'job_started' | 'job_ended' | 'job_output';
  job: JobRow;
}

export interface ReadResult {
  job: JobRow;
  output: string;
  bytes: number;
  remaining: number;
  dropped: boolean;
}

/**
 * Background jobs (ARCHITECTURE §1). Each runs under its own supervisor, a detached process of
 * the Node that runs Pincer: it owns the shell, the log, the cap and the stop, and writes how the
 * job ended to the exit file. This class starts supervisors, asks them to stop, and brings the
 * jobs table up to date from their files — the same way for jobs it started and jobs an earlier
 * hub started (adoption is reading the files).
 */
export class JobManager extends EventEmitter<{ event: [JobEvent] }> {
  readonly repo: JobsRepo;
  private timer?: NodeJS.Timeout;
  /** Jobs this process is stopping right now: the reconcile timer leaves their ending to kill(). */
  private killing = new Set<number>();
  /** Jobs whose supervisor this process started: the only ones a missing run record may still be on its way for. */
  private launched = new Set<number>();
  private sizes = new Map<number, number>();
  private endings: JobEndings;

  constructor(private db: Db, private settings: SettingsView, private jobsDir: string, private readOnly = false) {
    super();
    this.repo = new JobsRepo(db);
    this.endings = new JobEndings(this.repo, settings);
  }

  /** Records the end of jobs that finished or vanished while nobody watched; then keeps watching. */
  startWatching(intervalMs = 500): void {
    if (this.readOnly) return;
    this.reconcileAll();
    this.timer = setInterval(guarded(log, 'job reconcile', () => this.reconcileAll()), intervalMs);
    this.timer.unref();
  }

  stopWatching(): void {
    clearInterval(this.timer);
  }

  /**
   * `dir` is the folder to run in (the client's); BASH_CWD or home when absent. `opts` (a Bash call run as a
   * job): `wrap` gives the shell the command with what it adds (the report of the folder it ends in, written
   * to the job's `cwd` file); `timeoutMs` stops it after that long, whichever hub is running; `graceMs` is how
   * long a stop waits before the kill.
   */
  start(command: string, callerId?: string, dir?: string, opts: JobOptions = {}): { job: JobRow; shell: string; spec: ShellSpec } {
    if (this.readOnly) throw new UserError('BackgroundBash: the database is read-only (written by a newer Pincer); update Pincer to start jobs.', 'UNAVAILABLE');
    if (command.trim() === '') throw new UserError('BackgroundBash: command is empty; pass the shell command to run.', 'INVALID_INPUT');
    this.reconcileAll();
    const max = this.settings.get('JOB_MAX_CONCURRENT');
    if (this.repo.countRunning() >= max) {
      throw new UserError(`BackgroundBash: ${max} jobs are already running (JOB_MAX_CONCURRENT). Wait for one to end or stop one with KillBgTask.`, 'LIMIT_REACHED');
    }
    const shell = resolveShell(this.settings);
    const cwd = dir ?? resolveCwd(this.settings);
    fs.mkdirSync(this.jobsDir, { recursive: true, mode: 0o700 });
    const job = this.repo.insert({
      command,
      cwd,
      session: callerId,
      logPath: (id) => path.join(this.jobsDir, `${id}.log`),
      exitPath: (id) => path.join(this.jobsDir, `${id}.exit`),
    });
    const pid = launchSupervisor(job, command, shell, this.settings, opts, (err) => {
      this.endings.end(job, 'lost', null, Date.now(), `could not start the job supervisor: ${err.message}`);
    });
    this.repo.markRunning(job.id, pid);
    this.launched.add(job.id);
    const started = this.repo.get(job.id)!;
    this.emit('event', { type: 'job_started', job: started });
    return { job: started, shell: shellPhrase(shell), spec: shell };
  }

  /** Forgets a job that ended: its row and its files (a Bash call that ran as a job and finished in time leaves none). */
  forget(id: number): void {
    const job = this.repo.get(id);
    if (job && this.remove(job)) this.emit('event', { type: 'job_ended', job });
  }

  /** Deletes an ended job's files, then its row (forget); false for a running job or a read-only store. */
  remove(job: JobRow): boolean {
    return this.removeAll([job]).length === 1;
  }

  /**
   * Deletes ended jobs: their rows in one transaction (one commit, not one per job: retention deletes
   * hundreds at a time), then their files off the hub's thread. A file left by a crash in between belongs
   * to no job and goes with the retention sweep (job-retention.ts). Running jobs are left alone.
   */
  removeAll(jobs: JobRow[]): JobRow[] {
    if (this.readOnly) return [];
    const ended = jobs.filter((job) => !isActive(job));
    const removed = this.db.transaction(() => ended.filter((job) => this.repo.remove(job.id))).immediate();
    const files = removed.flatMap((job) => [job.log_path, job.exit_path, ...(['run', 'stop', 'spec', 'cwd'] as const).map((k) => jobFile(job.exit_path, k))]);
    void Promise.all(files.map((f) => fs.promises.rm(f, { force: true }))).catch(ignoreFailure(log, 'deleting the files of removed jobs'));
    for (const job of removed) {
      this.launched.delete(job.id);
      this.sizes.delete(job.id);
    }
    return removed;
  }

  get(id: number, tool: string): JobRow {
    const job = this.repo.get(id);
    if (!job) throw new UserError(`${tool}: there is no background task ${id}. ListBgTasks shows the ids of all tasks.`, 'NOT_FOUND');
    return this.reconcile(job);
  }

  /** One page of jobs (newest first), the running ones among them brought up to date, and how many match. */
  page(query: JobQuery): JobPage {
    const page = this.repo.page(query);
    if (!page.rows.some(isActive)) return page;
    return { rows: page.rows.map((job) => (isActive(job) ? this.refresh(job) : job)), total: page.total };
  }

  /** Every running job, brought up to date (at most JOB_MAX_CONCURRENT of them): always listed, whatever the history. */
  running(): JobRow[] {
    if (this.readOnly) return this.repo.running();
    return this.repo.running().map((job) => this.refresh(job)).filter(isActive);
  }

  reconcileAll(): void {
    if (this.readOnly) return;
    for (const job of this.repo.running()) this.refresh(job);
  }

  /** One running job: announces output it grew since last looked at, and records its end. */
  private refresh(job: JobRow): JobRow {
    if (this.readOnly) return job;
    // Growing logs are announced so that the dashboard can show output live.
    const size = logSize(job.log_path);
    if (size !== (this.sizes.get(job.id) ?? 0)) {
      this.sizes.set(job.id, size);
      this.emit('event', { type: 'job_output', job });
    }
    const fresh = this.reconcile(job);
    if (!isActive(fresh)) this.sizes.delete(job.id);
    return fresh;
  }

  /** Brings one row up to date with the job's files and the process table. */
  reconcile(job: JobRow): JobRow {
    if (this.readOnly || !isActive(job)) return job;
    const { endings } = this;
    const rec = readExitRecord(job.exit_path);
    let ended = false;
    if (rec) {
      ended = endings.record(job, rec);
    } else if (job.pid !== null && !this.killing.has(job.id) && !endings.alive(job)) {
      // (A job being killed here is ended by kill(), not as `lost`.)
      // Look again: the supervisor may have written the file between the two checks.
      const late = readExitRecord(job.exit_path);
      ended = late ? endings.record(job, late) : endings.lose(job);
    } else if (job.status === 'starting' && Date.now() - job.started_at > 30_000) {
      ended = endings.end(job, 'lost', null, Date.now(), 'the job never started');
    }
    const fresh = this.repo.get(job.id)!;
    if (ended) {
      endings.settled(job.id);
      this.emit('event', { type: 'job_ended', job: fresh });
    }
    return fresh;
  }

  /** Output added since the last read, waiting up to waitMs for some to arrive or the job to end. */
  async read(id: number, opts: { waitMs: number; maxBytes: number; signal?: AbortSignal }): Promise<ReadResult> {
    let job = this.get(id, 'ReadBgOutput');
    const deadline = Date.now() + opts.waitMs;
    while (logSize(job.log_path) <= job.read_offset && isActive(job) && Date.now() < deadline && !opts.signal?.aborted) {
      await sleep(Math.min(100, deadline - Date.now()));
      job = this.reconcile(this.repo.get(id)!);
    }
    for (let attempt = 0; ; attempt++) {
      const from = job.read_offset;
      const size = logSize(job.log_path);
      const want = Math.max(0, Math.min(size - from, opts.maxBytes));
      // Read into the one shared buffer and decode straight from it, with no await in between:
      // a megabyte read leaves one string behind, not a buffer, a copy and a string.
      const buf = readRange(job.log_path, from, want);
      const usable = isActive(job) || want < size - from ? completeUtf8Length(buf) : buf.length;
      if (this.readOnly || this.repo.advanceOffset(id, from, from + usable) || attempt > 5) {
        const output = buf.toString('utf8', 0, usable);
        return { job, output, bytes: usable, remaining: Math.max(0, size - from - usable), dropped: Boolean(job.note?.includes('dropped')) };
      }
      // Another reader moved the position first; read on from where it left off.
      job = this.repo.get(id)!;
    }
  }

  /** Stops a running job's whole process tree through its supervisor (job-stop.ts); a job that is not running is the caller's mistake. */
  async kill(id: number): Promise<Stopped> {
    const job = this.get(id, 'KillBgTask');
    if (!isActive(job)) {
      const how = job.status === 'exited' ? `already exited with code ${job.exit_code}` : `already ${job.status}${job.note ? ` (${job.note})` : ''}`;
      throw new UserError(`KillBgTask: task ${id} ${how}; there is nothing to kill. ReadBgOutput ${id} shows its output.`, 'CONFLICT');
    }
    const pid = job.pid;
    if (pid === null) throw new UserError(`KillBgTask: task ${id} has no process yet; try again in a moment.`, 'CONFLICT');
    this.killing.add(id);
    try {
      return await stopJob({ ...job, pid }, { repo: this.repo, endings: this.endings, launched: this.launched, ended: (j) => this.emit('event', { type: 'job_ended', job: j }) });
    } finally {
      this.killing.delete(id);
    }
  }

  logSize(job: JobRow): number {
    return logSize(job.log_path);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(1, ms)));
}
