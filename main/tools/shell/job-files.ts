import fs from 'node:fs';

/**
 * The files a job's supervisor and the hub share, all in the private jobs folder (0700), named
 * by job id: `<id>.spec` (what to run; the supervisor deletes it once read), `<id>.run` (who
 * runs it), `<id>.stop` (a request to stop it), `<id>.exit` (how it ended), `<id>.log`.
 * Built-ins only: the supervisor imports this module and must start fast.
 */

export interface JobSpec {
  id: number;
  /** The shell and the arguments that run the command in it (stderr merged into stdout). */
  file: string;
  args: string[];
  /** Windows: pass the arguments as written (cmd.exe parses its own command line). */
  verbatim: boolean;
  cwd: string;
  env: Record<string, string>;
  log: string;
  exit: string;
  run: string;
  stop: string;
  /** Bytes of output kept; the rest is read and counted, never left to block the command. */
  cap: number;
  graceMs: number;
  /** The Windows code page the shell writes in (cmd.exe's console page): the log is kept as UTF-8. */
  codePage?: number;
  /** Stop the job (as a stop request would) once it has run this long: a Bash call's timeout, kept by the supervisor so it holds whichever hub is running. */
  timeoutMs?: number;
}

/** Written by the supervisor once the shell runs: the pids and start times Pincer may verify and signal. */
export interface RunRecord {
  supervisorPid: number;
  supervisorStart?: string;
  shellPid: number;
  shellStart?: string;
  startedAt: number;
}

/** Written by the supervisor last, after every byte of output is in the log. */
export interface ExitRecord {
  code: number | null;
  signal: string | null;
  endedAt: number;
  /** Bytes of output beyond the cap that were read and dropped. */
  dropped: number;
  /** Set when a stop request ended the job: terminated (within the grace period) or killed (forced after it). */
  stopped?: 'terminated' | 'killed';
  stopMs?: number;
  /** The shell could not be started. */
  error?: string;
  /** Set when the spec's timeoutMs ended the job (then `stopped` says how it went). */
  timedOutMs?: number;
}

export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // Absent (the job has not written it yet) or torn: the caller treats the job as not yet recorded.
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const optString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function readRunRecord(file: string): RunRecord | undefined {
  const v = readJson(file);
  if (!isObject(v) || typeof v.supervisorPid !== 'number' || typeof v.shellPid !== 'number') return undefined;
  return { supervisorPid: v.supervisorPid, supervisorStart: optString(v.supervisorStart), shellPid: v.shellPid, shellStart: optString(v.shellStart), startedAt: Number(v.startedAt) || 0 };
}

/** The exit record a job's supervisor wrote when the job ended. */
export function readExitRecord(file: string): ExitRecord | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch {
    // Absent (the job has not written it yet) or torn: the caller treats the job as not yet recorded.
    return undefined;
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    // Absent (the job has not written it yet) or torn: the caller treats the job as not yet recorded.
    return undefined;
  }
  if (!isObject(v)) return undefined;
  const stopped = v.stopped === 'terminated' || v.stopped === 'killed' ? v.stopped : undefined;
  return {
    code: typeof v.code === 'number' ? v.code : null,
    signal: optString(v.signal) ?? null,
    endedAt: Number(v.endedAt) || Date.now(),
    dropped: Number(v.dropped) || 0,
    ...(stopped ? { stopped, stopMs: Number(v.stopMs) || 0 } : {}),
    ...(typeof v.error === 'string' ? { error: v.error } : {}),
    ...(typeof v.timedOutMs === 'number' ? { timedOutMs: v.timedOutMs } : {}),
  };
}

/** The run, stop and spec files of a job, beside its exit file (and `cwd`: where a Bash command run as a job ended). */
export function jobFile(exitPath: string, kind: 'run' | 'stop' | 'spec' | 'cwd'): string {
  return exitPath.replace(/\.exit$/, `.${kind}`);
}
