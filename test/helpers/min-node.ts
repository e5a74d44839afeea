import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from './env.js';
import { MIN_NODE } from '../../main/core/node-version.js';

/**
 * npm's `node` package at the lowest supported version, installed on first use into
 * node_modules/.cache (or PINCER_MIN_NODE_CACHE). Not a dev dependency: its `node` bin would
 * compete with the pinned Node 24's for node_modules/.bin/node, and an `npm install` after a pull
 * links the later one, so every npm script would quietly run on the minimum instead.
 *
 * Two test files may ask at once: each installs into a folder of its own and renames it into place;
 * the loser of the rename uses the winner's.
 */
export function minimumNode(): { bin: string } | { problem: string } {
  const cache = process.env.PINCER_MIN_NODE_CACHE ?? path.join(ROOT, 'node_modules', '.cache', 'pincer-node');
  const dir = path.join(cache, `node-${MIN_NODE}.0`);
  const bin = path.join(dir, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  // By its real path: that is what a process started with it shows as its command.
  if (fs.existsSync(bin)) return { bin: fs.realpathSync(bin) };
  fs.mkdirSync(cache, { recursive: true });
  const staging = fs.mkdtempSync(path.join(cache, 'installing-'));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--prefix', staging, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node@${MIN_NODE}.0`], { encoding: 'utf8', timeout: 300_000, shell: process.platform === 'win32' });
  const staged = path.join(staging, 'node_modules', 'node', 'bin', path.basename(bin));
  if (r.status === 0 && fs.existsSync(staged)) {
    try {
      fs.renameSync(staging, dir);
    } catch {
      // Another test file put its copy in place first: use that one, drop ours.
      fs.rmSync(staging, { recursive: true, force: true });
    }
  } else {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  if (fs.existsSync(bin)) return { bin: fs.realpathSync(bin) };
  return { problem: `npm could not install node@${MIN_NODE}.0 (the lowest supported Node) into ${cache}: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}` };
}
