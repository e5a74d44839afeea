import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const PINCER_BIN = path.join(ROOT, 'dist', 'main', 'cli', 'pincer.js');

/**
 * A fresh PINCER_HOME for one test; removed afterwards. A process the test just signalled (a bridge,
 * a hub) may still append its last log line while the folder is removed (ENOTEMPTY): retry briefly.
 */
export function tempHome(prefix = 'pincer-test-'): { home: string; cleanup(): void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    home,
    cleanup: () => {
      stopLeftHubs(home);
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/**
 * A hub a test left running for this home (one a bridge started after the test's own stop, or one a
 * test never stopped) is stopped before its folder goes: a hub outliving its folder served on where
 * nothing could reach it. Said on stderr, so the test that leaked it can be found and fixed. Linux
 * only (it finds them by /proc/<pid>/environ); elsewhere the hub's own watch stops it (hub/home-watch.ts).
 */
export function stopLeftHubs(home: string, opts: { quiet?: boolean } = {}): void {
  const left = hubsOf(home);
  for (const pid of left) {
    if (!opts.quiet) process.stderr.write(`test cleanup: a pincer serve for ${home} was left running (pid ${pid}); stopping it\n`);
    signal(pid, 'SIGTERM');
  }
  const until = Date.now() + 10_000;
  while (left.some(alive) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  for (const pid of left.filter(alive)) signal(pid, 'SIGKILL');
}

function hubsOf(home: string): number[] {
  if (process.platform !== 'linux') return [];
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid)) {
    try {
      const args = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!args.includes('serve') || !args.some((a) => a.endsWith(`${path.sep}pincer.js`))) continue;
      if (fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`PINCER_HOME=${home}`)) found.push(Number(name));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/** Environment for a spawned pincer: its own home, a known working directory, quiet logs. */
export function pincerEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(TOOL_|TOOLS$|AUTH_TOKEN$|HTTP_|BASH_|JOB_|STREAMING$)/.test(k)) env[k] = v;
  }
  // HOME too, so that ~/.claude/skills of the machine running the tests is never read.
  return { ...env, PINCER_HOME: home, HOME: home, BASH_CWD: home, PINCER_LOG_LEVEL: 'warn', ...extra };
}

// The real clock, taken before any test can put Node's fake timers in place (test/helpers/in-process.ts
// fakeClock): a wait on a condition polls in real time whatever the clock under test does.
const realSetTimeout = globalThis.setTimeout;
const realNow = () => performance.now();

/** A poll's pause between two looks at a condition (waitFor's own, a retry loop's): never a wait for something. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => realSetTimeout(r, ms));
}

/** What `promise` settles with, or a failure naming `what` once WAIT_MS (or `timeoutMs`) has passed. */
export async function settles<T>(promise: Promise<T>, what: string, timeoutMs = WAIT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = realSetTimeout(() => reject(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Lets `ms` pass in a test whose point is that nothing happens meanwhile — no fifth fire, no answer to a
 * cancelled request, no exit. A loaded machine can only make such a check more lenient (what should not
 * happen has less time to show), never fail a correct build. Anything a test waits *for* is `waitFor`.
 */
export function quietFor(ms: number, _nothing: string): Promise<void> {
  return sleep(ms);
}

/**
 * Spaces out work a test sends on purpose (calls that must straddle a handover). It waits for nothing: load
 * only spreads the work further apart. Anything a test waits *for* is `waitFor`.
 */
export function spaceOut(ms: number, _why: string): Promise<void> {
  return sleep(ms);
}

/**
 * How long a wait on a condition may take by default: generous, because only a failing test ever
 * waits that long, and a loaded CI machine (two cores shared with other builds) can take many times
 * what an idle one does for a process to start or a file to appear.
 */
export const WAIT_MS = 60_000;

/** Polls until `check` returns a truthy value or the time runs out (then throws with `what`). */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = WAIT_MS): Promise<NonNullable<T>> {
  const end = realNow() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (realNow() > end) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(50);
  }
}

export { pidAlive } from '../../main/core/pid.js';
