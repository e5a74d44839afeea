import { pidAlive } from '../core/pid.js';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic, type PincerPaths } from '../core/paths.js';

export const HubInfo = z.object({
  url: z.string(),
  port: z.number().int(),
  pid: z.number().int(),
  started: z.string(),
  version: z.string(),
});
export type HubInfo = z.infer<typeof HubInfo>;

function lockFile(paths: PincerPaths): string {
  return path.join(paths.home, 'hub.lock');
}


/** The running hub of this data directory, if its process is alive. */
export function readHubInfo(paths: PincerPaths): HubInfo | undefined {
  try {
    const info = HubInfo.parse(JSON.parse(fs.readFileSync(paths.hubFile, 'utf8')));
    return pidAlive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

export type LockResult = { acquired: true; release(): void } | { acquired: false; pid: number; info?: HubInfo };

/**
 * One hub per data directory: an exclusively created lock file holding the
 * owner's pid. A lock whose owner is dead is stale and taken over.
 */
export function acquireHubLock(paths: PincerPaths): LockResult {
  const file = lockFile(paths);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      let released = false;
      return {
        acquired: true,
        release() {
          if (released) return;
          released = true;
          for (const f of [file, paths.hubFile]) {
            try {
              const owner = f === file ? Number(fs.readFileSync(f, 'utf8')) : HubInfo.parse(JSON.parse(fs.readFileSync(f, 'utf8'))).pid;
              if (owner === process.pid) fs.rmSync(f, { force: true });
            } catch {
              // Already gone or not ours.
            }
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pidAlive(pid) && pid !== process.pid) {
        return { acquired: false, pid, info: readHubInfo(paths) };
      }
      // Stale: its owner is gone.
      fs.rmSync(file, { force: true });
    }
  }
  return { acquired: false, pid: -1 };
}

export function writeHubInfo(paths: PincerPaths, info: HubInfo): void {
  writeFileAtomic(paths.hubFile, JSON.stringify(info, null, 2) + '\n', 0o600);
}
