// `npm run bundle`: MCP Bundles (.mcpb) for Claude Desktop, one per platform whose
// native modules are installed here (better-sqlite3 ships prebuilds for every
// platform; sharp's come per platform from npm's optional dependencies, so a
// platform is bundled only where `npm ci` installed them — the installers
// workflow runs this on each OS). Each bundle is checked with `mcpb validate`.
//
//   node build/bundle.mjs [--platform linux-x64] [--out release/bundles]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];
const MCPB = path.join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');

/** The tool families a person can switch off in Claude Desktop's settings form; tools named as `TOOL_<NAME>` keys. */
const FAMILIES = {
  shell_tools: { title: 'Shell tools', tools: ['Bash', 'BackgroundBash', 'ReadBgOutput', 'KillBgTask', 'ListBgTasks'], what: 'run commands and background jobs' },
  web_tools: { title: 'Web tools', tools: ['ReadDocs', 'WebSearch'], what: 'read web pages and search the web' },
  media_tools: { title: 'Image tool', tools: ['ReadImage'], what: 'show images to Claude' },
  workflow_tools: { title: 'Workflow tools', tools: ['TaskManager', 'PlanMode', 'SetCallback', 'InvokeSkill', 'AskUserQuestion'], what: 'tasks, plans, callbacks, skills and questions' },
};

/** Native packages that belong to one platform; everything else is platform-neutral. */
function nativeFor(pkg) {
  const m = /^@img\/sharp-(?:libvips-)?([a-z0-9]+-[a-z0-9]+)$/.exec(pkg);
  return m ? m[1] : undefined;
}

function sharpPresent(platform) {
  return fs.existsSync(path.join(ROOT, 'node_modules', '@img', `sharp-${platform}`));
}

/** Production packages, by folder relative to the root (npm's own resolution, nothing guessed). */
function productionPackages() {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, shell: process.platform === 'win32' });
  const dirs = out
    .split(/\r?\n/)
    .filter(Boolean)
    .map((p) => path.relative(ROOT, p))
    .filter((p) => p.startsWith('node_modules'))
    .sort();
  // A package inside one already listed comes along with it.
  return dirs.filter((d, i) => !dirs.slice(0, i).some((parent) => d.startsWith(parent + path.sep)));
}

const SKIP = /(\.md|\.markdown|\.map|\.d\.ts|\.d\.mts|\.d\.cts|\.tsbuildinfo)$/i;

function copyTree(from, to, keep = () => true) {
  const st = fs.statSync(from);
  if (st.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const name of fs.readdirSync(from)) {
      const f = path.join(from, name);
      if (!keep(f)) continue;
      copyTree(f, path.join(to, name), keep);
    }
  } else if (!SKIP.test(from) || /LICENSE/i.test(from)) {
    fs.copyFileSync(from, to);
    fs.chmodSync(to, st.mode & 0o777);
  }
}

async function manifest(version) {
  const { allTools } = await import(pathToFileURL(path.join(ROOT, 'dist', 'main', 'tools', 'catalogue.js')).href);
  const { SETTINGS } = await import(pathToFileURL(path.join(ROOT, 'dist', 'main', 'core', 'settings', 'schema.js')).href);
  // The Node Pincer needs (better-sqlite3's Node-API 10): Claude Desktop checks it before it runs the bundle.
  const { NODE_RANGE } = await import(pathToFileURL(path.join(ROOT, 'dist', 'main', 'core', 'node-version.js')).href);
  // The chat views' own tools are not the model's (MCP Apps, visibility ["app"]): not declared, but on and off with their family.
  const tools = allTools()
    .filter((t) => !t.view?.appOnly)
    .map((t) => ({ name: t.name, description: String(typeof t.description === 'function' ? t.title : t.description ?? '').split(/(?<=\.)\s/)[0] }));
  const viewTools = allTools().filter((t) => t.view?.appOnly);
  const env = {
    PINCER_HOME: '${user_config.data_folder}',
    BASH_CWD: '${user_config.working_folder}',
    SEARCH_ENGINES: '${user_config.search_engines}',
  };
  const user_config = {
    working_folder: { type: 'directory', title: 'Default working folder', description: 'Where Bash and background jobs run unless a call names another folder.', default: '${HOME}', required: true },
  };
  for (const [key, family] of Object.entries(FAMILIES)) {
    user_config[key] = { type: 'boolean', title: family.title, description: `Let Claude ${family.what} (${family.tools.join(', ')}).`, default: true };
    for (const t of family.tools) env[`TOOL_${t.toUpperCase()}`] = `\${user_config.${key}}`;
  }
  for (const t of viewTools) env[`TOOL_${t.name.toUpperCase()}`] = `\${user_config.${t.group === 'shell' ? 'shell_tools' : 'workflow_tools'}}`;
  user_config.search_engines = { type: 'string', title: 'Search engines', description: 'Engines WebSearch asks, comma-separated, in order.', default: SETTINGS.SEARCH_ENGINES.default };
  user_config.data_folder = { type: 'directory', title: 'Pincer data folder', description: 'Where Pincer keeps its settings, database and job output; shared with the Pincer tray app and other clients.', default: '${HOME}/.pincer', required: true };
  const covered = new Set(Object.values(FAMILIES).flatMap((f) => f.tools));
  const missing = tools.filter((t) => !covered.has(t.name)).map((t) => t.name);
  if (missing.length) throw new Error(`bundle: tools without a family in the settings form: ${missing.join(', ')}`);
  return {
    manifest_version: '0.3',
    name: 'pincer',
    display_name: 'Pincer',
    version,
    description: 'Local tools for Claude: shell and background jobs, web search and pages, images, tasks, plans, callbacks and questions.',
    long_description:
      'Pincer serves its tools from one hub per user, shared with the Pincer tray app, its dashboard and your other MCP clients: jobs, tasks and questions live in one place. Claude Desktop starts `pincer stdio`, which starts the hub when none runs.',
    author: { name: 'Pincer developers' },
    icon: 'icon.png',
    server: {
      type: 'node',
      entry_point: 'server/dist/main/cli/pincer.js',
      mcp_config: { command: 'node', args: ['${__dirname}/server/dist/main/cli/pincer.js', 'stdio'], env },
    },
    tools,
    keywords: ['shell', 'jobs', 'search', 'tasks', 'local'],
    license: 'MIT',
    compatibility: { platforms: [], runtimes: { node: NODE_RANGE } },
    user_config,
  };
}

function mcpb(args) {
  return execFileSync(process.execPath, [MCPB, ...args], { cwd: ROOT, encoding: 'utf8' });
}

async function bundle(platform, outDir, version, packages) {
  const [os] = platform.split('-');
  const stage = path.join(outDir, `pincer-${platform}`);
  fs.rmSync(stage, { recursive: true, force: true });
  const server = path.join(stage, 'server');
  fs.mkdirSync(server, { recursive: true });
  copyTree(path.join(ROOT, 'dist', 'main'), path.join(server, 'dist', 'main'), (f) => !f.includes(`${path.sep}desktop`));
  copyTree(path.join(ROOT, 'dist', 'renderer'), path.join(server, 'dist', 'renderer'));
  copyTree(path.join(ROOT, 'renderer'), path.join(server, 'renderer'), (f) => !/(\.ts|tsconfig\.json)$/.test(f) && !f.endsWith(`${path.sep}src`));
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  fs.writeFileSync(path.join(server, 'package.json'), JSON.stringify({ name: pkg.name, version: pkg.version, type: pkg.type, license: pkg.license, bin: pkg.bin, dependencies: pkg.dependencies }, null, 2) + '\n');
  for (const dir of packages) {
    const name = dir.split(path.sep).slice(1).join('/');
    const native = nativeFor(name);
    if (native && native !== platform) continue;
    copyTree(path.join(ROOT, dir), path.join(server, dir), (f) => {
      if (name !== 'better-sqlite3') return true;
      // Only this platform's prebuilt binary; no C sources.
      const rel = path.relative(path.join(ROOT, dir), f);
      if (rel === 'deps' || rel === 'src' || rel === 'binding.gyp') return false;
      if (rel.startsWith(`prebuilds${path.sep}`)) return rel === path.join('prebuilds', `${platform}.node`);
      return true;
    });
  }
  fs.copyFileSync(path.join(ROOT, 'build', 'icon.png'), path.join(stage, 'icon.png'));
  const m = await manifest(version);
  m.compatibility.platforms = [os];
  fs.writeFileSync(path.join(stage, 'manifest.json'), JSON.stringify(m, null, 2) + '\n');
  mcpb(['validate', path.join(stage, 'manifest.json')]);
  const file = path.join(outDir, `pincer-${version}-${platform}.mcpb`);
  fs.rmSync(file, { force: true });
  mcpb(['pack', stage, file]);
  fs.rmSync(stage, { recursive: true, force: true });
  return file;
}

async function main() {
  const { values } = parseArgs({ options: { platform: { type: 'string', multiple: true }, out: { type: 'string', default: path.join(ROOT, 'release', 'bundles') } } });
  if (!fs.existsSync(path.join(ROOT, 'dist', 'main', 'cli', 'pincer.js'))) throw new Error('bundle: dist/ is missing; run "npm run build" first (npm run bundle does).');
  const wanted = values.platform ?? PLATFORMS.filter(sharpPresent);
  for (const p of wanted) {
    if (!PLATFORMS.includes(p)) throw new Error(`bundle: unknown platform "${p}"; one of ${PLATFORMS.join(', ')}.`);
    if (!sharpPresent(p)) throw new Error(`bundle: sharp's native module for ${p} (@img/sharp-${p}) is not installed here; build that bundle on ${p} (the installers workflow does).`);
    if (!fs.existsSync(path.join(ROOT, 'node_modules', 'better-sqlite3', 'prebuilds', `${p}.node`))) throw new Error(`bundle: better-sqlite3 has no prebuilt binary for ${p}.`);
  }
  if (wanted.length === 0) throw new Error('bundle: no platform has its native modules installed here; run "npm ci" first.');
  const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  const packages = productionPackages();
  fs.mkdirSync(values.out, { recursive: true });
  for (const p of wanted) {
    const file = await bundle(p, path.resolve(values.out), version, packages);
    process.stdout.write(`${path.relative(process.cwd(), file)} (${(fs.statSync(file).size / 1024 / 1024).toFixed(1)} MB, mcpb validate: ok)\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
