import fs from 'node:fs';
import path from 'node:path';
import { UserError, errorMessage } from '../core/errors.js';
import { describeNode, MIN_NODE, nodeSupported, pinnedNode, runningNode, tooOldMessage, type NodeAt } from '../core/node-version.js';
import type { StdioLauncher } from './clients.js';

/** npm's cache of what `npx` fetched or linked: npm prunes it at will, so a client config must never point into it. */
const NPX_CACHE = /[\\/]_npx[\\/]/;

export interface CliLauncher extends StdioLauncher {
  node: NodeAt;
}

/**
 * How a client should start the `pincer` that runs now (from a checkout or an npm install): the
 * real path of its script — symlinks followed, so `npx pincer` in a checkout (a link in npm's npx
 * cache) and `npm link` (a link in the global bin folder) both end at the checkout — and a Node that
 * can run it: the checkout's pinned one when it has one (what its tests run on), else this one.
 * Refuses, saying why, a config that could not start: a script left only in npm's npx cache, or no
 * Node new enough. (The tray app writes its own launcher: its binary as Node.)
 */
export async function cliLauncher(script: string, env?: Record<string, string>): Promise<CliLauncher> {
  let real: string;
  try {
    real = fs.realpathSync(script);
  } catch (err) {
    throw new UserError(`cannot find Pincer's own script ${script} (${errorMessage(err)}); run "pincer connect" from a Pincer checkout or install.`, 'NOT_FOUND');
  }
  if (NPX_CACHE.test(real)) {
    throw new UserError(
      `this pincer runs from npm's npx cache (${real}), which npm deletes when it prunes the cache: a client config pointing there would stop working. Run "pincer connect" from a Pincer checkout ("npx pincer connect …" inside it, or "npm link" there first), or connect from the Pincer app.`,
      'UNAVAILABLE',
    );
  }
  const pinned = await pinnedNode();
  const running = runningNode();
  const node = pinned && nodeSupported({ node: pinned.version }) ? pinned : nodeSupported() ? { ...running, path: stableNodePath(running.path) } : undefined;
  if (node === undefined) {
    throw new UserError(tooOldMessage(running, 'Pincer', `a client started with it could not run Pincer; run "pincer connect" with Node.js ${MIN_NODE} or newer`), 'UNSUPPORTED');
  }
  return { command: node.path, args: [real, 'stdio'], ...(env ? { env } : {}), node };
}

/**
 * The environment a client's entry needs to start this Pincer as it runs now: its data folder when one
 * was chosen (PINCER_HOME), and ELECTRON_RUN_AS_NODE when this "Node" is the app's Electron binary (a hub
 * a client of the installed app started): without it that binary would open the app instead.
 */
export function launcherEnv(home: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> | undefined {
  const out: Record<string, string> = {
    ...(env.PINCER_HOME ? { PINCER_HOME: home } : {}),
    ...(process.versions.electron !== undefined ? { ELECTRON_RUN_AS_NODE: '1' } : {}),
  };
  return Object.keys(out).length ? out : undefined;
}

/**
 * The name on PATH of the Node at `real`, when one there leads to it: Homebrew's
 * `/opt/homebrew/bin/node` rather than `…/Cellar/node/24.1.0/bin/node`, which the next
 * `brew upgrade` deletes. `real` itself when no PATH entry is that Node.
 */
export function stableNodePath(real: string, envPath = process.env.PATH ?? ''): string {
  const name = process.platform === 'win32' ? 'node.exe' : 'node';
  for (const dir of envPath.split(path.delimiter)) {
    // Only absolute entries: a client starts from a folder of its own.
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      if (fs.realpathSync(candidate) === fs.realpathSync(real)) return candidate;
    } catch {
      // Not there: the next PATH entry.
    }
  }
  return real;
}

/** "Node.js 24.21.0 (/path/node) runs /path/pincer.js": what the written entry starts. */
export function describeLauncher(l: CliLauncher): string {
  return `${describeNode(l.node)} runs ${l.args[0]}`;
}
