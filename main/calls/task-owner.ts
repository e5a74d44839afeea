import { randomUUID } from 'node:crypto';
import { processStartTime, sameProcess } from '../core/process-identity.js';

/** A hub (it holds the data folder's hub lock) or a process serving one client on its own (`pincer stdio --standalone`). */
export type TaskOwnerRole = 'hub' | 'standalone';

/**
 * Who runs a task: "<uuid> <pid> <start> <role>". More than one process can serve one data folder
 * at a time (the hub and any number of `pincer stdio --standalone`), so a process that starts must
 * tell a task whose process died (its work died with it) from one another live process is running.
 * The pid with its start time says which (a pid alone could be reused). A hub's tasks are the
 * hub's: a hub that holds the lock counts every other hub as stopped (one handing over to it has
 * let go of the lock and is only closing). An owner that does not have this shape names no
 * process, so it counts as stopped.
 */
export function newTaskOwner(role: TaskOwnerRole, pid = process.pid): string {
  return `${randomUUID()} ${pid} ${processStartTime(pid) ?? '-'} ${role}`;
}

/** Whether the process that owns a task is still running it, as `self` sees it. */
export function ownerRunning(owner: string, self: string): boolean {
  if (owner === self) return false;
  // The start time may itself hold spaces (`ps -o lstart` on macOS): it is everything between the pid and the role.
  const parts = owner.split(' ');
  if (parts.length < 4) return false;
  const pidText = parts[1];
  const role = parts.at(-1);
  const start = parts.slice(2, -1).join(' ');
  if (role === 'hub' && self.endsWith(' hub')) return false;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return sameProcess(pid, start === '-' ? undefined : start);
}
