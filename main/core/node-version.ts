/**
 * The Node.js Pincer runs on, checked by every entry point before anything native loads.
 *
 * The floor is better-sqlite3's prebuilt binary: it is built for Node-API 10, which Node has
 * from 22.14.0 (and 23.6.0) on. An older Node loads it and dies with SIGSEGV — measured on
 * 20.20, 22.3.0, 22.12.0 and 22.13.1; 22.14.0 runs (its package says `>=22`, which is not
 * enough). Pincer's own code needs `process.getBuiltinModule` (22.3). `engines` in
 * package.json, the bundle manifest's `compatibility`, the README and the messages below say
 * the same; the suite runs Pincer on exactly this Node (test/node-minimum.test.ts).
 *
 * This module imports nothing: it runs first, on any Node, before the modules that need a
 * newer one are loaded.
 */

/** The lowest supported Node, for people. */
export const MIN_NODE = '22.14';
/** The same as a semver range, for `engines` and the bundle manifest (23.0–23.5 lack Node-API 10). */
export const NODE_RANGE = '^22.14.0 || >=23.6.0';
const MIN_NAPI = 10;

export interface NodeVersions {
  node: string;
  napi?: string;
}

/** True when this Node (or the one `versions` describes) can run Pincer. */
export function nodeSupported(versions: NodeVersions = process.versions): boolean {
  const [major = 0, minor = 0] = versions.node.split('.').map(Number);
  if (versions.napi !== undefined) return major >= 22 && Number(versions.napi) >= MIN_NAPI;
  return major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= 14);
}

/** A Node found on disk: its path and version. */
export interface NodeAt {
  path: string;
  version: string;
}

/** "Node.js 20.20.2 (/usr/bin/node)". */
export function describeNode(n: NodeAt): string {
  return `Node.js ${n.version.replace(/^v/, '')} (${n.path})`;
}

/** What to do about a too-old Node, when no supported one is at hand. */
export const INSTALL_NODE = `install Node.js ${MIN_NODE} or newer (https://nodejs.org) and run Pincer with it, or use the Pincer app`;

/** The one line a too-old Node gets: which Node it found, which it needs, and what to do. */
export function tooOldMessage(found: NodeAt, what: string, todo = INSTALL_NODE): string {
  return `${what} needs Node.js ${MIN_NODE} or newer; this is ${describeNode(found)}, and no newer one is at hand: ${todo}.`;
}

/** The package root (the folder with package.json) above this file, in `main/core` and `dist/main/core` alike. */
async function packageRoot(): Promise<string | undefined> {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  return undefined;
}

/**
 * The Node a checkout pins through npm's `node` package (`node_modules/node`, what npm scripts
 * and `npx` put on PATH), when it is installed next to this Pincer. The version is the package's
 * own (npm's `node@X` ships Node X). The installed app and the bundle have none: they run on
 * Electron's Node or the client's.
 */
export async function pinnedNode(root?: string): Promise<NodeAt | undefined> {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const dir = root ?? (await packageRoot());
  if (dir === undefined) return undefined;
  const pkgDir = path.join(dir, 'node_modules', 'node');
  const bin = path.join(pkgDir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  try {
    const { version } = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version?: unknown };
    if (typeof version !== 'string' || !fs.statSync(bin).isFile()) return undefined;
    // Its real path, as process.execPath is: one Node has one name wherever it is compared or written.
    return { path: fs.realpathSync(bin), version };
  } catch {
    return undefined;
  }
}

/** This process's Node. */
export function runningNode(): NodeAt {
  return { path: process.execPath, version: process.versions.node };
}

/** A Node that can run Pincer: this process's, else the checkout's pinned one; undefined when neither can. */
export async function supportedNodeAtHand(root?: string): Promise<NodeAt | undefined> {
  if (nodeSupported()) return runningNode();
  const pinned = await pinnedNode(root);
  return pinned && nodeSupported({ node: pinned.version }) ? pinned : undefined;
}
