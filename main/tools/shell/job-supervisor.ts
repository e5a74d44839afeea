/**
 * A background job's supervisor: a small detached Node process (the Node that runs Pincer) that
 * starts the shell, writes its output to the job's log up to the cap (the rest is read and
 * counted), answers a stop request by stopping the whole process tree, and records how the job
 * ended. It outlives the hub; a restarted hub reads the same files (ARCHITECTURE §1).
 *
 *   <node> job-supervisor.js <spec file>
 *
 * Built-ins only (and two small modules that use only built-ins): it must start fast.
 */
import fs from 'node:fs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { processStartTime } from '../../core/process-identity.js';
import { type JobSpec, type ExitRecord, writeJsonAtomic } from './job-files.js';

const POLL_MS = 200;

type Ending = Omit<ExitRecord, 'endedAt' | 'dropped'>;

async function main(specFile: string): Promise<void> {
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8')) as JobSpec;
  fs.rmSync(specFile, { force: true });
  const out = await openOutput(spec);
  const finish = (rec: Ending) => {
    out.record(rec);
    process.exit(0);
  };
  // POSIX: the shell stays in this process's group (this process leads it, started detached), so
  // whoever stops the group from outside stops the job and its supervisor alike.
  const child = spawn(spec.file, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true, windowsVerbatimArguments: spec.verbatim });
  child.stdout!.on('data', out.write);
  child.stderr!.on('data', out.write);
  child.once('error', (err) => finish({ code: null, signal: null, error: err.message }));
  if (child.pid === undefined) return;
  const shellPid = child.pid;
  writeJsonAtomic(spec.run, {
    supervisorPid: process.pid,
    supervisorStart: processStartTime(process.pid),
    shellPid,
    shellStart: processStartTime(shellPid),
    startedAt: Date.now(),
  });
  const signalTree = treeSignaller(child, shellPid);
  const stops = stopper(spec, out.record, signalTree);

  // 'close', not 'exit': the log holds every byte the command wrote before its end is recorded
  // (and a stopped job counts as terminated only when nothing it started holds its output open).
  child.once('close', (code, signal) => {
    const stopping = stops.settle();
    if (!stopping) return finish({ code, signal });
    out.record({ code, signal, stopped: 'terminated', stopMs: Date.now() - stopping.at, ...stopping.timedOut });
    // Whatever is left of the tree (it closed its output but ignored TERM) goes with this process.
    signalTree(true);
    process.exit(0);
  });
}

/** The job's log, written up to the cap (the rest counted), and the one record of how the job ended. */
async function openOutput(spec: JobSpec): Promise<{ write: (chunk: Buffer) => void; record: (rec: Ending) => void }> {
  const log = fs.openSync(spec.log, 'a', 0o600);
  let kept = fs.fstatSync(log).size;
  let dropped = 0;
  // cmd.exe writes the console's code page: the log is UTF-8 for its readers. Loaded only then, so
  // that every other job's supervisor stays built-ins only.
  const transcode = spec.codePage ? await utf8From(spec.codePage) : undefined;
  const keep = (chunk: Buffer) => {
    const room = Math.max(0, spec.cap - kept);
    const n = Math.min(room, chunk.length);
    if (n > 0) {
      fs.writeSync(log, chunk, 0, n);
      kept += n;
    }
    dropped += chunk.length - n;
  };
  let recorded = false;
  const record = (rec: Ending) => {
    if (recorded) return;
    recorded = true;
    try {
      fs.closeSync(log);
    } catch {
      // Nothing more to write.
    }
    writeJsonAtomic(spec.exit, { ...rec, endedAt: Date.now(), dropped } satisfies ExitRecord);
    fs.rmSync(spec.stop, { force: true });
  };
  return { write: transcode ? (chunk: Buffer) => keep(transcode(chunk)) : keep, record };
}

/** Signals the job's whole process tree: TERM to ask, KILL (`force`) to end it. */
function treeSignaller(child: ChildProcess, shellPid: number): (force: boolean) => void {
  return (force) => {
    if (process.platform !== 'win32') {
      // The whole group, this process too: it ignores TERM while stopping, and is done when KILL comes.
      try {
        process.kill(-process.pid, force ? 'SIGKILL' : 'SIGTERM');
      } catch {
        // Not a group leader (started by hand): the shell alone.
        child.kill(force ? 'SIGKILL' : 'SIGTERM');
      }
      return;
    }
    // Windows: taskkill /T walks the tree from the shell (whose pid cannot be reused while this process holds its handle);
    // a process that left that tree is not reached (no Job Object).
    spawnSync('taskkill', ['/PID', String(shellPid), '/T', ...(force ? ['/F'] : [])], { stdio: 'ignore', windowsHide: true, timeout: 10_000 });
    if (force && child.exitCode === null) child.kill('SIGKILL');
  };
}

/**
 * What stops the job: a signal to this process, the stop file, the job's own timeout (a Bash call's).
 * A stop still running after the grace period is recorded as killed, then the rest of the tree is.
 * `settle`, once the shell closed: no more stops, and the one in progress, if any.
 */
function stopper(spec: JobSpec, record: (rec: Ending) => void, signalTree: (force: boolean) => void): { settle(): { at: number; timedOut: Pick<ExitRecord, 'timedOutMs'> } | undefined } {
  /** A stop in progress: when it was asked for. */
  let stopping: { at: number; timer: NodeJS.Timeout } | undefined;
  /** Set when the job's own timeout stopped it. */
  let timedOut: Pick<ExitRecord, 'timedOutMs'> = {};
  const stop = () => {
    if (stopping) return;
    stopping = {
      at: Date.now(),
      timer: setTimeout(() => {
        record({ code: null, signal: 'SIGKILL', stopped: 'killed', stopMs: Date.now() - stopping!.at, ...timedOut });
        signalTree(true);
        process.exit(0);
      }, spec.graceMs),
    };
    signalTree(false);
  };
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, stop);
  const poll = setInterval(() => {
    if (fs.existsSync(spec.stop)) stop();
  }, POLL_MS);
  const deadline =
    spec.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = { timedOutMs: spec.timeoutMs };
          stop();
        }, spec.timeoutMs);
  return {
    settle: () => {
      clearInterval(poll);
      clearTimeout(deadline);
      if (!stopping) return undefined;
      clearTimeout(stopping.timer);
      return { at: stopping.at, timedOut };
    },
  };
}

/** A chunk of output in `codePage`, as UTF-8 bytes (a character cut between chunks waits for the next). */
async function utf8From(codePage: number): Promise<(chunk: Buffer) => Buffer> {
  const { outputDecoder } = await import('./output-decoder.js');
  const decoder = outputDecoder(codePage);
  return (chunk) => Buffer.from(decoder.write(chunk), 'utf8');
}

main(process.argv[2] ?? '').catch((err: unknown) => {
  process.stderr.write(`pincer job supervisor: ${(err as Error).message}\n`);
  process.exit(1);
});
