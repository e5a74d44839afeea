import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { JobRow } from '../../store/jobs.js';
import type { SettingsView } from '../../core/settings/view.js';
import { UserError } from '../../core/errors.js';
import type { ShellSpec } from './shells.js';
import { commandEnv } from './process.js';
import { type JobSpec, writeJsonAtomic, jobFile } from './job-files.js';
import { KILL_GRACE_MS } from './job-ending.js';

/** The supervisor entry, beside this module in dist (inside app.asar in the packaged app, which Electron's Node reads). */
const SUPERVISOR = fileURLToPath(new URL('./job-supervisor.js', import.meta.url));

/** How a job differs from BackgroundBash's (see JobManager.start). */
export interface JobOptions {
  wrap?: (shell: ShellSpec, cwdFile: string) => string;
  timeoutMs?: number;
  graceMs?: number;
}

/**
 * Starts the supervisor of a job just inserted: writes its spec (the shell, the folder, the
 * environment, the log cap, how long a stop waits) and spawns it detached. Returns its pid;
 * `failed` hears a spawn that fails after it returned.
 */
export function launchSupervisor(job: JobRow, command: string, shell: ShellSpec, settings: SettingsView, opts: JobOptions, failed: (err: Error) => void): number {
  const env = commandEnv();
  const spec: JobSpec = {
    id: job.id,
    file: shell.file,
    args: shell.args(opts.wrap ? opts.wrap(shell, jobFile(job.exit_path, 'cwd')) : command),
    verbatim: shell.verbatim === true,
    cwd: job.cwd,
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    log: job.log_path,
    exit: job.exit_path,
    run: jobFile(job.exit_path, 'run'),
    stop: jobFile(job.exit_path, 'stop'),
    cap: settings.get('JOB_LOG_MAX_BYTES'),
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
      cwd: job.cwd,
      detached: true,
      stdio: ['ignore', 'ignore', fd],
      windowsHide: true,
      env: process.versions.electron ? { ...env, ELECTRON_RUN_AS_NODE: '1' } : env,
    });
    child.on('error', failed);
    child.unref();
    if (child.pid === undefined) throw new UserError(`BackgroundBash: could not start the job supervisor (${process.execPath}).`, 'UNAVAILABLE');
    return child.pid;
  } finally {
    fs.closeSync(fd);
  }
}
