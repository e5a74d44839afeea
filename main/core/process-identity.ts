import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { pidAlive } from './pid.js';

/**
 * A pid is not an identity: after a process dies its pid is handed to the next one.
 * Pincer records a process's start time next to its pid and signals nothing whose start time
 * differs. This module imports only Node built-ins: the job supervisor loads it at start.
 */

/**
 * When the process started, as the OS tells it: Linux's starttime in clock ticks since boot
 * (/proc, a file read), elsewhere on POSIX `ps -o lstart` (a second's resolution, one spawn).
 * Undefined when the process does not exist or the OS gives no start time to a plain read
 * (Windows: there Pincer never signals a recorded pid; a job is stopped through its supervisor).
 */
export function processStartTime(pid: number, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return fields[19]; // field 22, starttime
    } catch {
      // The process is gone (or ps is missing): no start time, so it is not the one recorded.
      return undefined;
    }
  }
  if (platform === 'win32') return undefined;
  try {
    const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    return out.trim() || undefined;
  } catch {
    // The process is gone (or ps is missing): no start time, so it is not the one recorded.
    return undefined;
  }
}

/**
 * Whether `pid` is still the process that started at `start`. Unknown start (not recorded, or
 * an OS without a cheap start time): alive is all that can be said.
 */
export function sameProcess(pid: number, start: string | undefined, platform: NodeJS.Platform = process.platform): boolean {
  if (!pidAlive(pid)) return false;
  if (start === undefined) return true;
  const now = processStartTime(pid, platform);
  return now === undefined ? platform === 'win32' : now === start;
}
