/**
 * V8 flags every hub process is started with: `pincer serve` (by hand, by a bridge, by `npm start`) and
 * the bench harness, so that what the bench measures is what users run. Measured in bench/RESULTS.md
 * ("mem2", issue 17):
 * - `--max-semi-space-size=1`: V8's young generation may otherwise grow to 2 × 16 MB, and a hub that
 *   loads ~500 modules at start or moves a megabyte per call (ReadBgOutput of a big log) keeps it
 *   grown. V8 reads it once, when it sets the heap up, so it must be on the command line.
 * - `--optimize-for-size`: what the runtime also sets with `v8.setFlagsFromString` (for hubs started
 *   some other way, e.g. inside the tray app); on the command line it also sizes the heap at its set-up.
 */
export const HUB_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--optimize-for-size'];

/** True when this process was started with every one of HUB_NODE_FLAGS. */
export function startedWithHubFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return HUB_NODE_FLAGS.every((f) => execArgv.includes(f));
}

/**
 * A hub started without HUB_NODE_FLAGS (`pincer serve` typed by hand, `npm start`, a service manager's
 * unit) replaces itself with the same command plus the flags: `process.execve` keeps the pid, the
 * terminal and the signals, and costs one more Node start (~50 ms) before anything heavy has loaded.
 * Not on Windows (no execve) nor where this Node lacks it: that hub runs with the runtime's
 * `--optimize-for-size` only. `PINCER_HUB_NODE_FLAGS=0` opts out. Returns only if it did not re-exec.
 */
export function adoptHubNodeFlags(): void {
  if (startedWithHubFlags() || process.env.PINCER_HUB_NODE_FLAGS === '0') return;
  if (process.platform === 'win32' || typeof process.execve !== 'function') return;
  const script = process.argv[1];
  if (script === undefined) return;
  const missing = HUB_NODE_FLAGS.filter((f) => !process.execArgv.includes(f));
  try {
    process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, script, ...process.argv.slice(2)], process.env);
  } catch (err) {
    // The flags save memory; a hub without them still serves. Say why, and go on.
    process.stderr.write(`pincer serve: running without ${missing.join(' ')}: could not restart with them (${(err as Error).message})\n`);
  }
}
