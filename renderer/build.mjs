// Bundles the dashboard (Preact, uPlot, markdown-it), the chat views and the window's preload with esbuild.
// tsc type-checks both beforehand (npm run build); esbuild only strips types and bundles.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The chat views (MCP Apps): one self-contained page — script and styles inline, nothing fetched — that
 * the hub serves as its `ui://` resources (main/mcp/view-resources.ts).
 */
/**
 * zod (which the MCP SDK and ext-apps bring into the page) exports every locale of its messages as one
 * namespace, so a bundler keeps all of them; the views use none but English, the one zod configures itself
 * with. Its locale index is replaced by English alone: a third of the page.
 */
const englishZod = {
  name: 'english-zod',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[\\/]zod[\\/]/.test(args.importer) ? { path: path.join(path.dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'english-zod' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'english-zod' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};`, resolveDir: path.dirname(args.path) }));
  },
};

async function buildViews() {
  const out = await build({
    plugins: [englishZod],
    entryPoints: { view: path.join(root, 'renderer/src/apps/main.tsx') },
    outdir: path.join(root, 'dist/renderer/apps'),
    write: false,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const js = out.outputFiles.find((f) => f.path.endsWith('.js')).text;
  const css = out.outputFiles.find((f) => f.path.endsWith('.css')).text;
  // Inline, a "</" in the script or styles would end its element early.
  if (/<\/(script|style)/i.test(js + css)) throw new Error('renderer/build.mjs: the view bundle contains a closing script or style tag; it cannot be inlined.');
  const template = fs.readFileSync(path.join(root, 'renderer/src/apps/view.html'), 'utf8');
  const page = template.replace('/*__PINCER_CSS__*/', () => css).replace('/*__PINCER_JS__*/', () => js);
  fs.mkdirSync(path.join(root, 'dist/renderer/apps'), { recursive: true });
  fs.writeFileSync(path.join(root, 'dist/renderer/apps/view.html'), page);
}

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
  buildViews(),
]);
