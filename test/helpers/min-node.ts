import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from './env.js';
import { MIN_NODE } from '../../main/core/node-version.js';

/**
 * Installs an npm package into `<dir>` once (`npm install --prefix`), for programs the suite runs but
 * that must not be dependencies, and returns the path of `file` inside the installed package (its real
 * path: what a process started with it shows as its command), or why it could not.
 *
 * Two test files may ask at once: each installs into a folder of its own and renames it into place;
 * the loser of the rename uses the winner's.
 */
export function cachedPackage(spec: string, dir: string, file: string, npmArgs: string[] = []): { bin: string } | { problem: string } {
  const name = spec.slice(0, spec.lastIndexOf('@'));
  const target = path.join(dir, 'node_modules', name, file);
  if (fs.existsSync(target)) return { bin: fs.realpathSync(target) };
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(dir), 'installing-'));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--prefix', staging, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', ...npmArgs, spec], { encoding: 'utf8', timeout: 300_000, shell: process.platform === 'win32' });
  if (r.status === 0 && fs.existsSync(path.join(staging, 'node_modules', name, file))) {
    try {
      fs.renameSync(staging, dir);
    } catch {
      // Another test file put its copy in place first: use that one, drop ours.
      fs.rmSync(staging, { recursive: true, force: true });
    }
  } else {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  if (fs.existsSync(target)) return { bin: fs.realpathSync(target) };
  return { problem: `npm could not install ${spec} into ${dir}: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}` };
}

/**
 * npm's `node` package at the lowest supported version, installed on first use into
 * node_modules/.cache (or PINCER_MIN_NODE_CACHE). Not a dev dependency: its `node` bin would
 * compete with the pinned Node 24's for node_modules/.bin/node, and an `npm install` after a pull
 * links the later one, so every npm script would quietly run on the minimum instead.
 */
export function minimumNode(): { bin: string } | { problem: string } {
  const cache = process.env.PINCER_MIN_NODE_CACHE ?? path.join(ROOT, 'node_modules', '.cache', 'pincer-node');
  return cachedPackage(`node@${MIN_NODE}.0`, path.join(cache, `node-${MIN_NODE}.0`), path.join('bin', process.platform === 'win32' ? 'node.exe' : 'node'));
}
