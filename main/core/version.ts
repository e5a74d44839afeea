import path from 'node:path';
import { fileURLToPath } from 'node:url';

// fs through getBuiltinModule: an ESM import of node:fs reads all its exports, loading fs/promises and streams (~3 MB of RSS in `pincer stdio`).
const fs = process.getBuiltinModule('node:fs');

/** The package root: two levels above this file in both `main/core` (source) and `dist/main/core` (built). */
function findRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  return process.cwd();
}

export const PACKAGE_ROOT = findRoot();

export const VERSION: string = (() => {
  try {
    return (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    // Run from a layout without package.json (a bundle): the version is unknown, nothing depends on it.
    return '0.0.0';
  }
})();
