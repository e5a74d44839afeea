// Transpiles what the fast tests run (main/, scripts/, test/fast/, test/helpers/) into dist/, file by file, for
// `npm run test:fast`. esbuild only strips types (the sources keep verbatimModuleSyntax, so each file
// transpiles alone): on a loaded 2-core machine it takes a second where tsc took half a minute. The
// type check is `npm run build`'s (and `npm test`'s).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entryPoints = fs.globSync(['main/**/*.ts', 'scripts/**/*.ts', 'test/fast/**/*.ts', 'test/helpers/**/*.ts'], { cwd: root }).filter((f) => !f.endsWith('.d.ts'));

await build({
  absWorkingDir: root,
  entryPoints,
  outdir: 'dist',
  outbase: '.',
  bundle: false,
  platform: 'node',
  format: 'esm',
  target: 'es2023',
  sourcemap: 'linked',
  tsconfig: 'tsconfig.json',
  logLevel: 'warning',
});
