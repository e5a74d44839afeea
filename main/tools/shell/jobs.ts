import fs from 'node:fs';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EventEmitter } from 'node:events';
import { JobsRepo, type JobRow, type JobPage, type JobQuery } from '../../store/jobs.js';
import type { Db } from '../../store/db.js';
import type { SettingsView } from '../../core/settings/view.js';
import { UserError } from '../../core/errors.js';
import { formatBytes, formatDuration } from '../../core/format.js';
import { sameProcess } from '../../core/process-identity.js';
import { shellPhrase, type ShellSpec } from './shells.js';
import { resolveShell, resolveCwd, killTree, groupAlive, commandEnv, processGroup, signalGroup, type SignalOutcome } from './process.js';
import { type JobSpec, type ExitRecord, type RunRecord, readExitRecord, readRunRecord, writeJsonAtomic, jobFile } from './job-files.js';
import { logSize, readRange, completeUtf8Length } from './job-log.js';
import { guarded, ignoreFailure, logger } from '../../core/log.js';

const log = logger('jobs');

/** The supervisor entry, beside this module in dist (inside app.asar in the packaged app, which Electron's Node reads). */
const SUPERVISOR = fileURLToPath(new URL('./job-supervisor.js', import.meta.url));
/** How long a job is given to stop on its own after KillBgTask before its process tree is killed. */
export const KILL_GRACE_MS = 3000;
/** How long a job may be without its run record after it started (its supervisor writes it once the shell runs; slow under load or Wine). */
const RUN_RECORD_WAIT_MS = 10_000;

/** How a job differs from BackgroundBash's (see JobManager.start). */
export interface JobOptions {
  wrap?: (shell: ShellSpec, cwdFile: string) => string;
  timeoutMs?: number;
  graceMs?: number;
}

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
  /** Supervisors whose start time this process has checked, where checking costs a spawn (not Linux). */
  private verified = new Map<number, number>();
  private sizes = new Map<number, number>();

  constructor(private db: Db, private settings: SettingsView, private jobsDir: string, private readOnly = false) {
    super();
    this.repo = new JobsRepo(db);
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
  start(command: string, session?: string, dir?: string, opts: JobOptions = {}): { job: JobRow; shell: string; spec: ShellSpec } {
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
      session,
      logPath: (id) => path.join(this.jobsDir, `${id}.log`),
      exitPath: (id) => path.join(this.jobsDir, `${id}.exit`),
    });
    const env = commandEnv();
    const spec: JobSpec = {
      id: job.id,
      file: shell.file,
      args: shell.args(opts.wrap ? opts.wrap(shell, jobFile(job.exit_path, 'cwd')) : command),
      verbatim: shell.verbatim === true,
      cwd,
      env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
      log: job.log_path,
      exit: job.exit_path,
      run: jobFile(job.exit_path, 'run'),
      stop: jobFile(job.exit_path, 'stop'),
      cap: this.settings.get('JOB_LOG_MAX_BYTES'),
      graceMs: opts.graceMs ?? KILL_GRACE_MS,
      ...(shell.codePage ? { codePage: shell.codePage } : {}),
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    };
    const specFile = jobFile(job.exit_path, 'spec');
    writeJsonAtomic(specFile, spec);
    // The supervisor's own complaints (it could not read its spec) land in the job's log.
    const fd = fs.openSync(job.log_path, 'a', 0o600);
    try {
      const child = spawn(process.execPath, [SUPERVISOR, specFile], {
        cwd,
        detached: true,
        stdio: ['ignore', 'ignore', fd],
        windowsHide: true,
        env: process.versions.electron ? { ...env, ELECTRON_RUN_AS_NODE: '1' } : env,
      });
      child.on('error', (err) => {
        this.end(job, 'lost', null, Date.now(), `could not start the job supervisor: ${err.message}`);
      });
      child.unref();
      if (child.pid === undefined) throw new UserError(`BackgroundBash: could not start the job supervisor (${process.execPath}).`, 'UNAVAILABLE');
      this.repo.markRunning(job.id, child.pid);
      this.launched.add(job.id);
    } finally {
      fs.closeSync(fd);
    }
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
    const rec = readExitRecord(job.exit_path);
    let ended = false;
    if (rec) {
      ended = this.record(job, rec);
    } else if (job.pid !== null && !this.killing.has(job.id) && !this.alive(job)) {
      // (A job being killed here is ended by kill(), not as `lost`.)
      // Look again: the supervisor may have written the file between the two checks.
      const late = readExitRecord(job.exit_path);
      ended = late ? this.record(job, late) : this.lose(job);
    } else if (job.status === 'starting' && Date.now() - job.started_at > 30_000) {
      ended = this.end(job, 'lost', null, Date.now(), 'the job never started');
    }
    const fresh = this.repo.get(job.id)!;
    if (ended) {
      this.verified.delete(job.id);
      this.emit('event', { type: 'job_ended', job: fresh });
    }
    return fresh;
  }

  /**
   * Whether the job's supervisor still runs: its pid alive with the start time it recorded (a
   * pid reused by another program is "gone"). A supervisor with no run record yet: its group, once its
   * command line proved it is the job's (startedAs).
   */
  private alive(job: JobRow): boolean {
    const run = readRunRecord(jobFile(job.exit_path, 'run'));
    if (!run) return groupAlive(job.pid!) && startedAs(job.pid!, job.exit_path);
    if (process.platform !== 'linux' && this.verified.get(job.id) === run.supervisorPid) return sameProcess(run.supervisorPid, undefined);
    const same = sameProcess(run.supervisorPid, run.supervisorStart);
    if (same) this.verified.set(job.id, run.supervisorPid);
    return same;
  }

  /** Records a job's end once, with its log's size then (retention by bytes counts it). */
  private end(job: JobRow, status: 'exited' | 'killed' | 'lost', code: number | null, endedAt: number, note?: string): boolean {
    return this.repo.finish(job.id, status, code, endedAt, note, logSize(job.log_path));
  }

  /** Records the end the supervisor wrote. */
  private record(job: JobRow, rec: ExitRecord): boolean {
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
  private lose(job: JobRow): boolean {
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

  /**
   * The job's run record. A supervisor writes it right after it started the shell, so a job this
   * process launched and kills in its first moments may not have one yet: wait for it, rather than
   * calling lost a job its supervisor is about to run.
   */
  private async runRecordOf(job: JobRow): Promise<RunRecord | undefined> {
    const file = jobFile(job.exit_path, 'run');
    let run = readRunRecord(file);
    while (!run && this.launched.has(job.id) && Date.now() - job.started_at < RUN_RECORD_WAIT_MS && this.alive(job)) {
      await sleep(50);
      run = readRunRecord(file);
    }
    return run;
  }

  /**
   * Stops a job's whole process tree through its supervisor: a stop request, answered with
   * TERM (POSIX process group; Windows `taskkill /T`), then KILL after KILL_GRACE_MS. A job whose
   * supervisor is gone is reported lost; nothing is signalled by a pid that was not verified.
   */
  async kill(id: number): Promise<{ job: JobRow; forced: boolean; waitedMs: number }> {
    const job = this.get(id, 'KillBgTask');
    if (!isActive(job)) {
      const how = job.status === 'exited' ? `already exited with code ${job.exit_code}` : `already ${job.status}${job.note ? ` (${job.note})` : ''}`;
      throw new UserError(`KillBgTask: task ${id} ${how}; there is nothing to kill. ReadBgOutput ${id} shows its output.`, 'CONFLICT');
    }
    if (job.pid === null) throw new UserError(`KillBgTask: task ${id} has no process yet; try again in a moment.`, 'CONFLICT');
    const t0 = Date.now();
    this.killing.add(id);
    try {
      const run = await this.runRecordOf(job);
      if (!run) {
        if (withoutRunRecord(process.platform) === 'group') return await this.stopGroup(job.id, job.pid, t0);
        this.end(job, 'lost', null, Date.now(), `it has no run record, so its process (pid ${job.pid}) cannot be proven to be it; nothing was signalled`);
        const lost = this.repo.get(id)!;
        this.emit('event', { type: 'job_ended', job: lost });
        return { job: lost, forced: false, waitedMs: Date.now() - t0 };
      }
      writeJsonAtomic(jobFile(job.exit_path, 'stop'), { at: t0 });
      let rec = readExitRecord(job.exit_path);
      while (!rec && Date.now() - t0 < KILL_GRACE_MS + 5000 && this.alive(job)) {
        await sleep(50);
        rec = readExitRecord(job.exit_path);
      }
      rec ??= readExitRecord(job.exit_path);
      let forced = rec?.stopped === 'killed';
      // Checked afresh right before any signal, never from alive()'s cache: on an OS where that
      // check costs a spawn the cache trusts a live pid, which may have been reused since.
      const same = !rec && run.supervisorStart !== undefined && sameProcess(run.supervisorPid, run.supervisorStart);
      if (rec) this.record(job, rec);
      else if (!this.alive(job) || (run.supervisorStart !== undefined && !same)) this.lose(job);
      else if (!same) {
        this.end(job, 'lost', null, Date.now(), `its supervisor (pid ${run.supervisorPid}) did not answer the stop request; nothing was signalled, as that pid cannot be proven to be it`);
      } else {
        // A supervisor that does not answer (stopped, or hung): its tree is stopped from here, verified.
        const outcome = await killTree(run.supervisorPid, 'SIGKILL');
        if (outcome === 'gone') this.lose(job);
        else {
          await this.gone(job.id, run.supervisorPid, outcome, Date.now() + 2000);
          forced = true;
          this.end(job, 'killed', null, Date.now(), 'killed by KillBgTask: its supervisor did not answer');
        }
      }
      const fresh = this.repo.get(id)!;
      this.emit('event', { type: 'job_ended', job: fresh });
      return { job: fresh, forced, waitedMs: rec?.stopMs ?? Date.now() - t0 };
    } finally {
      this.killing.delete(id);
    }
  }

  /** A job whose supervisor wrote no run record (it cannot be asked to stop): its process group, TERM then KILL. */
  private async stopGroup(id: number, pid: number, t0: number): Promise<{ job: JobRow; forced: boolean; waitedMs: number }> {
    const asked = await killTree(pid, 'SIGTERM');
    if (typeof asked === 'object') await this.gone(id, pid, asked, 0);
    let forced = false;
    while (groupAlive(pid) && Date.now() - t0 < KILL_GRACE_MS) await sleep(50);
    if (groupAlive(pid)) {
      forced = true;
      await this.gone(id, pid, await killTree(pid, 'SIGKILL'), t0 + KILL_GRACE_MS + 2000);
    }
    const note = forced ? `killed by KillBgTask after ${formatDuration(KILL_GRACE_MS)}: it did not stop when asked` : 'terminated by KillBgTask';
    if (!this.end(this.repo.get(id)!, 'killed', null, Date.now(), note)) log.info(`job ${id} ended on its own while being killed`);
    const fresh = this.repo.get(id)!;
    this.emit('event', { type: 'job_ended', job: fresh });
    return { job: fresh, forced, waitedMs: Date.now() - t0 };
  }

  /**
   * Waits (until `by`) for a signalled process group to be gone; throws, leaving the job as it is,
   * when the signal was refused or the group outlived it: a job is recorded stopped only when it is.
   */
  private async gone(id: number, pgid: number, outcome: SignalOutcome, by: number): Promise<void> {
    while (outcome !== 'gone' && typeof outcome !== 'object' && groupAlive(pgid) && Date.now() < by) await sleep(50);
    const why = typeof outcome === 'object' ? outcome.refused : outcome === 'sent' && groupAlive(pgid) ? `process group ${pgid} is still there after SIGKILL` : undefined;
    if (!why) return;
    log.warn(`job ${id} could not be stopped`, { why });
    throw new UserError(`KillBgTask: task ${id} could not be stopped (${why}); it is still recorded as running. Try again, or end process group ${pgid} yourself.`, typeof outcome === 'object' ? 'DENIED' : 'TIMEOUT');
  }

  logSize(job: JobRow): number {
    return logSize(job.log_path);
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

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(1, ms)));
}
