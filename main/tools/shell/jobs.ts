import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { JobsRepo, type JobRow } from '../../store/jobs.js';
import type { Db } from '../../store/db.js';
import type { SettingsView } from '../../core/settings/view.js';
import { UserError } from '../../core/errors.js';
import { resolveShell, resolveCwd, killTree, groupAlive, commandEnv } from './process.js';
import { spawn } from 'node:child_process';
import { guarded, logger } from '../../core/log.js';

const log = logger('jobs');

/**
 * The wrapper every job runs in. It is the process-group leader, detached from
 * Pincer, so the job and the recording of its exit code survive Pincer being
 * killed. Output past the cap is read and dropped (never left to SIGPIPE the
 * command) by an unbuffered perl loop, so the log stays live; perl ships with
 * Debian (perl-base), macOS and Git for Windows. The exit file is written after
 * the pipeline, so all output is on disk before the exit code is.
 */
const CAP = 'perl -e \'binmode STDIN; binmode STDOUT; my ($max, $n) = (shift, 0); while (my $r = sysread(STDIN, my $buf, 65536)) { syswrite(STDOUT, $buf, $max - $n < $r ? $max - $n : $r) if $n < $max; $n += $r; }\' "$3"';
const WRAPPER = [
  'if command -v perl >/dev/null 2>&1; then',
  `  bash -c "$1" 2>&1 < /dev/null | ${CAP}`,
  '  code=${PIPESTATUS[0]}',
  'else',
  '  bash -c "$1" 2>&1 < /dev/null',
  '  code=$?',
  'fi',
  // The exit file lives in the private data folder: 0600 whatever the user's umask (the command keeps that umask).
  '(umask 077; printf "%s" "$code" > "$2.tmp") && mv -f "$2.tmp" "$2"',
].join('\n');

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

export class JobManager extends EventEmitter<{ event: [JobEvent] }> {
  readonly repo: JobsRepo;
  private timer?: NodeJS.Timeout;
  /** Jobs this process is stopping right now: the reconcile timer leaves their ending to kill(). */
  private killing = new Set<number>();

  constructor(db: Db, private settings: SettingsView, private jobsDir: string, private readOnly = false) {
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

  /** `dir` is the folder to run in (the client's); BASH_CWD or home when absent. */
  start(command: string, session?: string, dir?: string): JobRow {
    if (this.readOnly) throw new UserError('BackgroundBash: the database is read-only (written by a newer Pincer); update Pincer to start jobs.', 'UNAVAILABLE');
    if (command.trim() === '') throw new UserError('BackgroundBash: command is empty; pass the shell command to run.', 'INVALID_INPUT');
    this.reconcileAll();
    const max = this.settings.get('JOB_MAX_CONCURRENT');
    if (this.repo.countRunning() >= max) {
      throw new UserError(`BackgroundBash: ${max} jobs are already running (JOB_MAX_CONCURRENT). Wait for one to end or stop one with KillBgTask.`, 'LIMIT_REACHED');
    }
    const shell = resolveShell(this.settings);
    if (shell.kind !== 'bash') throw new UserError('BackgroundBash needs bash; it is not available with BASH_SHELL=powershell. Use Bash for PowerShell commands.', 'UNAVAILABLE');
    const cwd = dir ?? resolveCwd(this.settings);
    fs.mkdirSync(this.jobsDir, { recursive: true, mode: 0o700 });
    const job = this.repo.insert({
      command,
      cwd,
      session,
      logPath: (id) => path.join(this.jobsDir, `${id}.log`),
      exitPath: (id) => path.join(this.jobsDir, `${id}.exit`),
    });
    const fd = fs.openSync(job.log_path, 'a', 0o600);
    try {
      const child = spawn(shell.file, ['-c', WRAPPER, 'pincer-job', command, job.exit_path, String(this.settings.get('JOB_LOG_MAX_BYTES'))], {
        cwd,
        detached: true,
        stdio: ['ignore', fd, fd],
        windowsHide: true,
        env: commandEnv(),
      });
      child.on('error', (err) => {
        this.repo.finish(job.id, 'lost', null, Date.now(), `could not start: ${err.message}`);
      });
      child.unref();
      if (child.pid === undefined) throw new UserError(`BackgroundBash: could not start ${shell.file}.`, 'UNAVAILABLE');
      this.repo.markRunning(job.id, child.pid);
    } finally {
      fs.closeSync(fd);
    }
    const started = this.repo.get(job.id)!;
    this.emit('event', { type: 'job_started', job: started });
    return started;
  }

  get(id: number, tool: string): JobRow {
    const job = this.repo.get(id);
    if (!job) throw new UserError(`${tool}: there is no background task ${id}. ListBgTasks shows the ids of all tasks.`, 'NOT_FOUND');
    return this.reconcile(job);
  }

  /**
   * The newest jobs, the running ones among them brought up to date. One query, not two: a
   * running job older than the list's window is not shown, and the reconcile timer keeps it current.
   */
  list(): JobRow[] {
    return this.repo.list().map((job) => (isActive(job) ? this.refresh(job) : job));
  }

  private sizes = new Map<number, number>();

  reconcileAll(): void {
    if (this.readOnly) return;
    for (const job of this.repo.running()) this.refresh(job);
  }

  /** One running job: announces output it grew since last looked at, and records its end. */
  private refresh(job: JobRow): JobRow {
    if (this.readOnly) return job;
    // Growing logs are announced so that the dashboard can show output live.
    const size = fileSize(job.log_path);
    if (size !== (this.sizes.get(job.id) ?? 0)) {
      this.sizes.set(job.id, size);
      this.emit('event', { type: 'job_output', job });
    }
    const fresh = this.reconcile(job);
    if (!isActive(fresh)) this.sizes.delete(job.id);
    return fresh;
  }

  /** Brings one row up to date with the exit file and the process table. */
  reconcile(job: JobRow): JobRow {
    if (this.readOnly || (job.status !== 'running' && job.status !== 'starting')) return job;
    const code = readExitCode(job.exit_path);
    let ended = false;
    if (code !== undefined) {
      ended = this.repo.finish(job.id, 'exited', code, mtime(job.exit_path) ?? Date.now(), this.droppedNote(job));
    } else if (job.pid !== null && !this.killing.has(job.id) && !groupAlive(job.pid)) {
      // (A job being killed here ends as `killed`, recorded by kill(), not as `lost`.)
      // Look again: the wrapper may have written the file between the two checks.
      const late = readExitCode(job.exit_path);
      ended = late !== undefined
        ? this.repo.finish(job.id, 'exited', late, mtime(job.exit_path) ?? Date.now(), this.droppedNote(job))
        : this.repo.finish(job.id, 'lost', null, Date.now(), 'the process ended without recording an exit code');
    } else if (job.status === 'starting' && Date.now() - job.started_at > 30_000) {
      ended = this.repo.finish(job.id, 'lost', null, Date.now(), 'the job never started');
    }
    const fresh = this.repo.get(job.id)!;
    if (ended) this.emit('event', { type: 'job_ended', job: fresh });
    return fresh;
  }

  private droppedNote(job: JobRow): string | undefined {
    const size = fileSize(job.log_path);
    const cap = this.settings.get('JOB_LOG_MAX_BYTES');
    return size >= cap ? `output beyond ${cap} bytes was dropped (JOB_LOG_MAX_BYTES)` : undefined;
  }

  /** Output added since the last read, waiting up to waitMs for some to arrive or the job to end. */
  async read(id: number, opts: { waitMs: number; maxBytes: number; signal?: AbortSignal }): Promise<ReadResult> {
    let job = this.get(id, 'ReadBgOutput');
    const deadline = Date.now() + opts.waitMs;
    while (fileSize(job.log_path) <= job.read_offset && isActive(job) && Date.now() < deadline && !opts.signal?.aborted) {
      await sleep(Math.min(100, deadline - Date.now()));
      job = this.reconcile(this.repo.get(id)!);
    }
    for (let attempt = 0; ; attempt++) {
      const from = job.read_offset;
      const size = fileSize(job.log_path);
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

  /** Stops a job's whole process group: TERM, then KILL after a grace period. */
  async kill(id: number, graceMs = 3000): Promise<{ job: JobRow; forced: boolean; waitedMs: number }> {
    const job = this.get(id, 'KillBgTask');
    if (!isActive(job)) {
      const how = job.status === 'exited' ? `already exited with code ${job.exit_code}` : `already ${job.status}`;
      throw new UserError(`KillBgTask: task ${id} ${how}; there is nothing to kill. ReadBgOutput ${id} shows its output.`, 'CONFLICT');
    }
    if (job.pid === null) throw new UserError(`KillBgTask: task ${id} has no process yet; try again in a moment.`, 'CONFLICT');
    const t0 = Date.now();
    this.killing.add(id);
    try {
      return await this.stop(job.id, job.pid, t0, graceMs);
    } finally {
      this.killing.delete(id);
    }
  }

  private async stop(id: number, pid: number, t0: number, graceMs: number): Promise<{ job: JobRow; forced: boolean; waitedMs: number }> {
    await killTree(pid, 'SIGTERM');
    let forced = false;
    while (groupAlive(pid) && Date.now() - t0 < graceMs) await sleep(50);
    if (groupAlive(pid)) {
      forced = true;
      await killTree(pid, 'SIGKILL');
      while (groupAlive(pid) && Date.now() - t0 < graceMs + 2000) await sleep(50);
    }
    const note = forced ? `killed with SIGKILL after ignoring SIGTERM for ${graceMs} ms` : 'stopped by SIGTERM';
    if (!this.repo.finish(id, 'killed', null, Date.now(), note)) log.info(`job ${id} ended on its own while being killed`);
    const fresh = this.repo.get(id)!;
    this.emit('event', { type: 'job_ended', job: fresh });
    return { job: fresh, forced, waitedMs: Date.now() - t0 };
  }

  logSize(job: JobRow): number {
    return fileSize(job.log_path);
  }
}

export function isActive(job: JobRow): boolean {
  return job.status === 'running' || job.status === 'starting';
}

function readExitCode(file: string): number | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

function mtime(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
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
function readRange(file: string, from: number, length: number): Buffer {
  if (length <= 0) return Buffer.alloc(0);
  if (shared.length < length) shared = Buffer.allocUnsafe(Math.max(length, 64 * 1024));
  const fd = fs.openSync(file, 'r');
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

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(1, ms)));
}
