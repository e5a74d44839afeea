import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { notHere, skipUnless } from './prerequisites.js';

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
  // Acting as another user (setpriv) takes root, whether or not the account exists already.
  if (process.getuid?.() !== 0) return `root, to run the attacker as another local user (${ATTACKER}, setpriv)`;
  const found = ids();
  if (found) return found;
  // Another test file may add it at the same moment: whoever loses that race finds it made.
  const made = spawnSync('useradd', ['-m', '-s', '/usr/sbin/nologin', ATTACKER], { encoding: 'utf8' });
  return ids() ?? `could not add the local user ${ATTACKER}: ${made.stderr.trim()}`;
}

/**
 * The `skip` option of a test that needs the other user: it does not apply off Linux or on a non-root
 * account (only root acts as another user, and no install changes that); root that could not add the
 * account lacks a prerequisite (under CI a failure that names it).
 */
export function otherUserSkip(user: OtherUser | string): string | false {
  if (typeof user !== 'string') return false;
  return process.platform !== 'linux' || process.getuid?.() !== 0 ? notHere(user) : skipUnless(user);
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
