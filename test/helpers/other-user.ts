import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** The local user the attack tests run their attackers as: another uid on the same machine, as on a shared workstation. */
export const ATTACKER = 'pincer-attacker';

export interface OtherUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * The attacker's account, made once (`useradd`) when the tests run as root; otherwise the reason
 * no test can run as another user here (for `skipUnless`).
 */
export function otherUser(): OtherUser | string {
  if (process.platform !== 'linux') return 'another local user (useradd and setpriv, Linux)';
  const ids = () => {
    const uid = spawnSync('id', ['-u', ATTACKER], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', ATTACKER], { encoding: 'utf8' });
    return uid.status === 0 && gid.status === 0 ? { name: ATTACKER, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) } : undefined;
  };
  const found = ids();
  if (found) return found;
  if (process.getuid?.() !== 0) return `root, to add the local user ${ATTACKER} the attacker runs as (useradd)`;
  // Another test file may add it at the same moment: whoever loses that race finds it made.
  const made = spawnSync('useradd', ['-m', '-s', '/usr/sbin/nologin', ATTACKER], { encoding: 'utf8' });
  return ids() ?? `could not add the local user ${ATTACKER}: ${made.stderr.trim()}`;
}

/** Runs `node <script> …args` as that user (setpriv), on the Node running the tests. */
export function spawnAs(user: OtherUser, script: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
  return spawn('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', process.execPath, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'], ...opts, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir() } });
}

/** A folder the other user may write in and the test may read: where an attacker keeps what it caught. */
export function sharedFolder(user: OtherUser, prefix: string): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chownSync(dir, user.uid, user.gid);
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
