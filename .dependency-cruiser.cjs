// The layering of docs/ARCHITECTURE.md ("Layers") as a rule the build checks (`npm run lint:deps`, part of `npm test`).
// Imports point one way: core ← store ← tools ← calls ← mcp ← access ← transports ← http ← hub ← cli/desktop;
// connect sits on core only. Change the document and this list together.
const layers = ['core', 'store', 'tools', 'calls', 'plugins', 'mcp', 'access', 'transports', 'http', 'hub'];
const above = (i) => [...layers.slice(i + 1), 'cli', 'desktop', 'connect'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Import cycles make the layering meaningless and initialisation order fragile.',
      from: {},
      to: { circular: true },
    },
    ...layers.map((layer, i) => ({
      name: `${layer}-imports-downward-only`,
      severity: 'error',
      comment: `main/${layer} may import only the layers below it (${layers.slice(0, i).join(', ') || 'none'}).`,
      from: { path: `^main/${layer}/` },
      to: { path: `^main/(${above(i).join('|')})/` },
    })),
    {
      name: 'connect-on-core-only',
      severity: 'error',
      comment: 'Client config merging is shared by the CLI and the tray; it needs nothing but core.',
      from: { path: '^main/connect/' },
      to: { path: `^main/(${layers.slice(1).join('|')}|cli|desktop)/` },
    },
    {
      name: 'cli-and-desktop-apart',
      severity: 'error',
      comment: 'The CLI and the desktop app are two roots; neither imports the other.',
      from: { path: '^main/(cli|desktop)/' },
      to: { path: '^main/(cli|desktop)/', pathNot: '^main/$1/' },
    },
    {
      name: 'electron-only-in-desktop-and-preload',
      severity: 'error',
      comment: 'Everything but main/desktop and preload runs under plain Node.',
      from: { pathNot: '^(main/desktop|preload)/' },
      to: { path: '^electron$|node_modules/electron/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|release)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.d.ts'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
