import path from 'node:path';

// fs through getBuiltinModule, as in paths.ts: `pincer stdio` runs this on every start.
const fs = process.getBuiltinModule('node:fs');

/**
 * The data folder and what is in it are the user's. Whoever can change pincer-env.txt,
 * hub-secret or a job's files runs commands as the user, so on POSIX:
 * - a folder or file another user owns (a link included: never followed when someone else planted
 *   it) is refused, naming the path, its owner and what to do — Pincer cannot make it safe;
 * - a folder or file the user owns but left writable by the group or others is tightened (0700 or
 *   0600): only its owner can change that, and once tightened nobody else can. What such a folder
 *   holds is checked too, since anyone could have put something in it while it was open.
 * Windows has no owner uid or mode bits here: the folder's safety is the ACL of the user profile it
 * sits under (see `outsideProfileWarning`).
 */
export class HomeNotYoursError extends Error {
  readonly code = 'HOME_NOT_YOURS';
  constructor(message: string) {
    super(message);
    this.name = 'HomeNotYoursError';
  }
}

type Stat = import('node:fs').Stats;

function ownerName(uid: number): string {
  try {
    // Best effort, only on the way to an error: /etc/passwd has local users (not directory-service ones).
    const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.split(':')[2] === String(uid));
    const name = line?.split(':')[0];
    return name ? `${name} (uid ${uid})` : `uid ${uid}`;
  } catch {
    return `uid ${uid}`;
  }
}

function foreign(p: string, what: string, st: Stat, uid: number, home: string, linkedFrom?: string): HomeNotYoursError {
  const isHome = p === home || linkedFrom === home;
  const todo = isHome
    ? `Use a folder of your own: move this one away (or set PINCER_HOME to another folder) and Pincer creates a new, private one.`
    : `Remove it (it is not yours: "rm -rf '${p}'" as its owner or an administrator), or if you know why it is there and trust it, take it over with "sudo chown ${uid} '${p}'"; then start Pincer again.`;
  return new HomeNotYoursError(
    `${what} ${p}${linkedFrom ? ` (linked from ${linkedFrom})` : ''} belongs to ${ownerName(st.uid)}, not to you (uid ${uid}). Another user who controls Pincer's data folder can change its settings and run commands as you, so Pincer will not use it. ${todo}`,
  );
}

/** What to tighten once everything was checked: tightening first would hide, from the next start, what a refused run found. */
type Tighten = { path: string; mode: 0o700 | 0o600 }[];

/** Refuses `p` unless it (and, for a link, its target) is ours; notes it for tightening when it is ours but group/world-writable. True when it is open to others. */
function checkOne(p: string, uid: number, home: string, tighten: Tighten): boolean {
  let st: Stat;
  try {
    st = fs.lstatSync(p);
  } catch {
    return false;
  }
  const what = p === home ? "Pincer's data folder" : st.isDirectory() ? 'The folder' : 'The file';
  if (st.uid !== uid) throw foreign(p, st.isSymbolicLink() ? `The link${p === home ? " (Pincer's data folder)" : ''}` : what, st, uid, home);
  if (st.isSymbolicLink()) {
    // A link the user made (a data folder on another disk, settings kept in a dotfiles repository): what it points at must be theirs too.
    let target: Stat;
    try {
      target = fs.statSync(p);
    } catch {
      return false;
    }
    if (target.uid !== uid) throw foreign(fs.realpathSync(p), target.isDirectory() ? 'The folder' : 'The file', target, uid, home, p);
    st = target;
  }
  if ((st.mode & 0o022) === 0) return false;
  tighten.push({ path: p, mode: st.isDirectory() ? 0o700 : 0o600 });
  return true;
}

/** What a folder holds, each entry checked (not followed further than checkOne does). */
function checkEntries(dir: string, uid: number, home: string, tighten: Tighten): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    if (checkOne(p, uid, home, tighten) && fs.statSync(p).isDirectory()) checkEntries(p, uid, home, tighten);
  }
}

/**
 * Checks the data folder before Pincer uses it: the folder itself, everything at its top (settings,
 * database, hub-secret, hub.json, the lock) and the contents of any of its folders that were open to
 * others. Throws HomeNotYoursError; returns when all is the user's (tightening on the way).
 */
export function ensureOwnedHome(home: string, subfolders: readonly string[]): void {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return;
  const uid = process.getuid();
  const tighten: Tighten = [];
  const openHome = checkOne(home, uid, home, tighten);
  let names: string[] = [];
  try {
    names = fs.readdirSync(home);
  } catch {
    // Not there yet: ensureHome creates it.
  }
  for (const name of names) {
    const p = path.join(home, name);
    const open = checkOne(p, uid, home, tighten);
    if (open || (openHome && subfolders.includes(p))) checkEntries(p, uid, home, tighten);
  }
  for (const t of tighten) fs.chmodSync(t.path, t.mode);
}

/** Windows: a data folder outside the user's profile does not inherit its private ACL; a warning says so (undefined when it is inside, or not Windows). */
export function outsideProfileWarning(home: string, profile: string, platform = process.platform): string | undefined {
  if (platform !== 'win32') return undefined;
  const rel = path.win32.relative(profile.toLowerCase(), home.toLowerCase());
  if (!rel.startsWith('..') && !path.win32.isAbsolute(rel)) return undefined;
  return `The data folder ${home} is outside your user profile (${profile}), so it does not inherit the profile's private permissions: other users of this computer may be able to change its settings and run commands as you. Move it under your profile (unset PINCER_HOME), or limit the folder's permissions to your account.`;
}
