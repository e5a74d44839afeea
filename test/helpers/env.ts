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
  return { home, cleanup: () => fs.rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) };
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

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls until `check` returns a truthy value or the time runs out (then throws with `what`). */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export { pidAlive } from '../../main/core/pid.js';
