import { UserError } from '../../core/errors.js';
import { sameProcess, processStartTime } from '../../core/process-identity.js';
import { processGroup } from './process.js';
import { windowBefore, windowFrom, type ByteRange } from './job-log.js';

/**
 * Bash calls of a client of MCP Apps, while they run in this process (ARCHITECTURE §1 "Views in the chat"):
 * Bash runs the command itself, as for any client, and keeps its output here too, so that the call's job
 * view can follow it and stop it — with no job supervisor, files or rows on the call's path (a quick
 * command costs what plain Bash costs). A run is forgotten a minute after it ends (its result is the
 * call's own); at most KEEP_BYTES of its newest output are kept.
 */

/** The newest output a run keeps for its view. */
const KEEP_BYTES = 1024 * 1024;
/** How long an ended run stays (a view's waiting read sees the end), and how many ended runs at most. */
const ENDED_FOR_MS = 60_000;
const ENDED_MAX = 20;

/** How a run ended: the shell's exit, and why Bash stopped it if it did. */
export interface RunEnd {
  code: number | null;
  signal: string | null;
  stopped?: 'timeout' | 'cancel' | 'view';
  at: number;
}

export interface RunStart {
  session: string | undefined;
  command: string;
  cwd: string;
  pid: number;
  /** Asks Bash to stop the command (TERM to its process group, KILL a second later), as its timeout does. */
  stop(): void;
}

export class LiveRun {
  readonly startedAt = Date.now();
  /** Bytes the command has written, and the first of them still kept. */
  size = 0;
  floor = 0;
  /** Set once Node has reaped the shell: from then its pid may be another process's. */
  exited = false;
  ended: RunEnd | undefined;
  /** Whether the view asked for the stop (Bash words its answer so). */
  stopRequested = false;
  private chunks: Buffer[] = [];
  private kept = 0;
  private startTime: string | undefined;
  private listeners = new Set<() => void>();

  constructor(
    readonly id: number,
    readonly spec: RunStart,
    private onEnd: (run: LiveRun) => void,
  ) {}

  get running(): boolean {
    return this.ended === undefined;
  }

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.kept += chunk.length;
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.kept - this.chunks[0]!.length >= KEEP_BYTES) {
      const gone = this.chunks.shift()!;
      this.kept -= gone.length;
      this.floor += gone.length;
    }
    this.changed();
  }

  end(how: RunEnd): void {
    this.ended = how;
    this.changed();
    this.listeners.clear();
    this.onEnd(this);
  }

  /** Calls `fn` on new output and at the end, until the returned function is called. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  /** A window of the kept output, as a job's log is read (job-log.ts): on from `from`, or the part before `before` (or the end) from a line start. */
  window(at: { from?: number; before?: number }, maxBytes: number): { text: string; from: number; to: number } {
    if (at.from !== undefined) {
      const from = Math.min(Math.max(at.from, this.floor), this.size);
      return windowFrom(this.range, from, Math.min(maxBytes, this.size - from), !this.running);
    }
    return windowBefore(this.range, Math.max(this.floor, Math.min(at.before ?? this.size, this.size)), maxBytes, this.floor);
  }

  /**
   * Notes who the shell is (its start time) while it is surely this run's: Node has not reaped it, so its
   * pid is still its own. Done when a view first finds the run, not on every call's path (on macOS it
   * costs a `ps`).
   */
  identify(): void {
    if (this.startTime === undefined && !this.exited) this.startTime = processStartTime(this.spec.pid);
  }

  /**
   * The view's Kill: Bash stops the command as its timeout does, once the OS confirms that the shell is
   * still the process that was started (its start time, as for a job's) and leads its own process group.
   */
  stop(): void {
    if (this.ended || this.exited) throw new UserError(`JobViewKill: the command of Bash call ${this.id} has already ended; there is nothing to stop.`, 'CONFLICT');
    this.identify();
    const leads = process.platform === 'win32' || processGroup(this.spec.pid) === this.spec.pid;
    if (!sameProcess(this.spec.pid, this.startTime) || !leads) {
      throw new UserError(`JobViewKill: the shell of Bash call ${this.id} (pid ${this.spec.pid}) can no longer be proven to be the command's; nothing was signalled.`, 'CONFLICT');
    }
    this.stopRequested = true;
    this.spec.stop();
  }

  private range: ByteRange = (from, length) => {
    const out: Buffer[] = [];
    let at = this.floor;
    for (const c of this.chunks) {
      const end = at + c.length;
      if (end > from && at < from + length) out.push(c.subarray(Math.max(0, from - at), Math.min(c.length, from + length - at)));
      at = end;
      if (at >= from + length) break;
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  };

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}

/** This process's runs, by id (ids count up from 1 in each process; a view reads and stops through this process only). */
export class LiveRuns {
  private next = 1;
  private runs = new Map<number, LiveRun>();

  start(spec: RunStart): LiveRun {
    const run = new LiveRun(this.next++, spec, (r) => this.ended(r));
    this.runs.set(run.id, run);
    return run;
  }

  get(id: number): LiveRun | undefined {
    return this.runs.get(id);
  }

  /** The newest run this client started with exactly this command (the Bash call a view shows, before its result). */
  newestOf(callerId: string, command: string): LiveRun | undefined {
    let found: LiveRun | undefined;
    for (const r of this.runs.values()) if (r.spec.session === callerId && r.spec.command === command && (!found || r.id > found.id)) found = r;
    return found;
  }

  /** An ended run is forgotten after ENDED_FOR_MS, and at once past the ENDED_MAX newest ended ones (each may hold a megabyte). */
  private ended(run: LiveRun): void {
    // Unref'd: a timer of a run's memory must not keep a process alive.
    setTimeout(() => this.runs.delete(run.id), ENDED_FOR_MS).unref();
    const ended = [...this.runs.values()].filter((r) => r.ended);
    for (const r of ended.slice(0, Math.max(0, ended.length - ENDED_MAX))) this.runs.delete(r.id);
  }
}
