/**
 * V8 flags every hub process is started with: `pincer serve` (by hand, by a bridge, by `npm start`) and
 * the bench harness, so that what the bench measures is what users run. Measured in bench/RESULTS.md
 * ("mem2"):
 * - `--max-semi-space-size=1`: V8's young generation may otherwise grow to 2 × 16 MB, and a hub that
 *   loads ~500 modules at start or moves a megabyte per call (ReadBgOutput of a big log) keeps it
 *   grown. V8 reads it once, when it sets the heap up, so it must be on the command line.
 * - `--optimize-for-size`: what the runtime also sets with `v8.setFlagsFromString` (for hubs started
 *   some other way, e.g. inside the tray app); on the command line it also sizes the heap at its set-up.
 */
export const HUB_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--optimize-for-size'];

/**
 * A hub started without HUB_NODE_FLAGS (`pincer serve` typed by hand, `npm start`, a service manager's
 * unit) replaces itself with the same command plus the flags: `process.execve` keeps the pid, the
 * terminal and the signals, and costs one more Node start (~50 ms) before anything heavy has loaded.
 * Not on Windows (no execve) nor where this Node lacks it: that hub runs with the runtime's
 * `--optimize-for-size` only. On Linux the restart also adds HUB_MALLOC_ENV (below) to the environment, and
 * a hub started without it restarts for it alike. `PINCER_HUB_NODE_FLAGS=0` opts out of the restart and the
 * malloc settings. Returns only if it did not re-exec.
 */
export function adoptHubNodeFlags(): void {
  restartWithHubFlags();
  // Reached in the hub that serves (no restart needed, or it failed): what was added for glibc goes.
  dropHubLaunchEnv();
}

function restartWithHubFlags(): void {
  if (process.env.PINCER_HUB_NODE_FLAGS === '0') return;
  const missing = HUB_NODE_FLAGS.filter((f) => !process.execArgv.includes(f));
  if (missing.length === 0 && launchEnvPrepared(process.env, process.platform)) return;
  if (process.platform === 'win32' || typeof process.execve !== 'function') return;
  const script = process.argv[1];
  if (script === undefined) return;
  const env = hubLaunchEnv(process.env);
  try {
    process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, script, ...process.argv.slice(2)], env);
  } catch (err) {
    // The flags save memory; a hub without them still serves. Say why, and go on.
    const added = (env[HUB_ADDED_ENV] ?? '').split(',').filter(Boolean);
    process.stderr.write(`pincer serve: running without ${[...missing, ...added].join(' ')}: could not restart with them (${(err as Error).message})\n`);
  }
}

/**
 * glibc malloc settings for the hub (Linux; other C libraries ignore them). They can only be given in the
 * environment the process starts with, so the bridge's hub spawn and the restart above add them, and the
 * hub takes them out of its own environment once started (dropHubLaunchEnv) so that the commands and jobs
 * it runs never inherit them. A value the person set is theirs: it is neither overridden nor removed.
 * Measured in bench/RESULTS.md ("mem3"), peak RSS reading a 1 GB log through the hub (before
 * httpfast): 128–142 MB with both, 144–149 MB without; 146 MB against main's 160 MB after it.
 * MALLOC_MMAP_THRESHOLD_ fixes glibc's threshold for the megabyte buffers a read moves (the dynamic one
 * rises and then keeps them in the arena); MALLOC_ARENA_MAX bounds the arenas V8's and libuv's threads
 * each grow (one pair: 129 MB with it, 136 MB with the threshold alone).
 */
export const HUB_MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };

/** Names (comma-separated) of the variables Pincer added to the hub's start environment; its presence says the environment was prepared. */
export const HUB_ADDED_ENV = 'PINCER_HUB_ADDED_ENV';

/** The environment to start a hub in: `env` plus HUB_MALLOC_ENV where `env` does not set them, and the note of what was added. */
export function hubLaunchEnv(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  if (platform !== 'linux' || env.PINCER_HUB_NODE_FLAGS === '0') return { ...env };
  const added = Object.keys(HUB_MALLOC_ENV).filter((k) => env[k] === undefined);
  const out: NodeJS.ProcessEnv = { ...env, [HUB_ADDED_ENV]: added.join(',') };
  for (const k of added) out[k] = HUB_MALLOC_ENV[k];
  return out;
}

/** True when this process's environment already is what hubLaunchEnv makes of it (or needs nothing). */
function launchEnvPrepared(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  return platform !== 'linux' || env[HUB_ADDED_ENV] !== undefined;
}

/**
 * Takes what hubLaunchEnv added out of the running hub's environment (glibc has read it by now), so that
 * commands and jobs see the environment the hub was started in. Only names of HUB_MALLOC_ENV are removed,
 * whatever the note says.
 */
function dropHubLaunchEnv(env: NodeJS.ProcessEnv = process.env): void {
  const note = env[HUB_ADDED_ENV];
  if (note === undefined) return;
  for (const k of note.split(',')) if (Object.hasOwn(HUB_MALLOC_ENV, k)) delete env[k];
  delete env[HUB_ADDED_ENV];
}
