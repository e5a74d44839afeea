import fs from 'node:fs';
import path from 'node:path';

/**
 * What a test needs from the machine (a real-web corpus, a browser, a program) and what happens
 * when it is absent. Under CI (`CI=true`, which `.ci/run` and GitHub set) an absent prerequisite of
 * *this* OS is a failure that names it: a green run must have run everything that applies here.
 * Elsewhere the test is skipped and node:test prints why (`# SKIP <reason>`), so a developer sees
 * what they did not run. A test that cannot apply here at all (another OS's behaviour, root's
 * chown on a non-root account) is `notHere`: skipped with its reason, under CI too.
 */
export const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');

export class MissingPrerequisite extends Error {
  constructor(problem: string) {
    super(`CI=true and a prerequisite of the tests is missing: ${problem}`);
    this.name = 'MissingPrerequisite';
  }
}

/**
 * The `skip` option of a test that needs something: `false` when nothing is missing; outside CI
 * the reason, which node:test prints; under CI it throws, failing the test file with the reason.
 */
export function skipUnless(...problems: (string | undefined)[]): string | false {
  const problem = problems.filter(Boolean).join('; ');
  if (!problem) return false;
  if (IN_CI) throw new MissingPrerequisite(problem);
  return problem;
}

/**
 * The `skip` option of a test that does not apply on this OS or account: the reason, which
 * node:test prints (`# SKIP does not apply here: …`), whether or not CI is set; `false` when it
 * applies. Never for something that could be installed: that is `skipUnless`.
 */
export function notHere(reason: string | false | undefined): string | false {
  return reason ? `does not apply here: ${reason}` : false;
}

/** The reason a test runs only on `platforms`, for `notHere`; undefined on those. */
export function onlyOn(platforms: NodeJS.Platform[], what: string): string | undefined {
  return platforms.includes(process.platform) ? undefined : `${what} (${platforms.join(' or ')} only; this is ${process.platform})`;
}

/** Whether this process runs as root (POSIX), which some tests need (chown to another user) and others avoid. */
export const IS_ROOT = process.getuid?.() === 0;

const noted = new Set<string>();

/**
 * For a test that runs either way but checks more with the prerequisite (real pages instead of
 * made-up ones): true when present; absent, under CI it throws, elsewhere it says so once.
 */
export function optional(problem: string | undefined): boolean {
  if (!problem) return true;
  if (IN_CI) throw new MissingPrerequisite(problem);
  if (!noted.has(problem)) {
    noted.add(problem);
    process.stderr.write(`# not checked here: ${problem}\n`);
  }
  return false;
}

/** The first of `names` found on PATH (with PATHEXT on Windows), as an absolute path. */
export function onPath(names: string[]): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const exts = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const name of names) {
    for (const dir of dirs) {
      for (const ext of exts) {
        const file = path.join(dir, name + ext);
        try {
          if (fs.statSync(file).isFile()) return file;
        } catch {
          // Not in this folder of PATH: look in the next.
        }
      }
    }
  }
  return undefined;
}
