// Bundles the dashboard (Preact, uPlot, markdown-it) and the window's preload with esbuild.
// tsc type-checks both beforehand (npm run build); esbuild only strips types and bundles.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await Promise.all([
  build({
    entryPoints: { app: path.join(root, 'renderer/src/main.tsx') },
    outdir: path.join(root, 'dist/renderer'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: true,
    legalComments: 'linked',
    logLevel: 'warning',
  }),
  build({
    entryPoints: [path.join(root, 'preload/index.ts')],
    outfile: path.join(root, 'dist/preload/index.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['electron'],
    logLevel: 'warning',
  }),
]);
