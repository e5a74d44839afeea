import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { table, type Row } from './lib.js';
import { PINCER, ROOT } from './harness.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
/** npx is slow enough that fewer runs say as much. */
const NPX_RUNS = Math.max(3, Math.round(RUNS / 3));

/** The machine's own `node`: the first on PATH outside this checkout (npm run puts node_modules/.bin first). */
function machineNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir) || dir.startsWith(ROOT)) continue;
    const candidate = path.join(dir, 'node');
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Wall time of one run of a command until it exits, in ms; fails loudly if it does not exit 0. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): number {
  const t0 = performance.now();
  const r = spawnSync(command, args, { env, cwd, encoding: 'utf8', timeout: 60_000 });
  const ms = performance.now() - t0;
  if (r.status !== 0 && !(args.includes('status') && r.status === 1)) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/**
 * `pincer --version` as a script calls it, against Node's own start (`node -e 0`) on the same Node, in
 * one interleaved run: the checkout linked onto the PATH with `npm link` (here into a temporary
 * prefix, so nothing global changes), started by the machine's `node` through its shebang; the pinned
 * Node calling the file; and `npx pincer` in the checkout. `pincer status` (no hub) shows what a
 * command that needs the rest of Pincer costs, re-run on the pinned Node when the machine's is older.
 */
export async function benchCliStart(): Promise<string> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-bench-link-'));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-bench-home-'));
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const link = spawnSync(npm, ['link', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: ROOT, env: { ...process.env, npm_config_prefix: prefix }, encoding: 'utf8', shell: process.platform === 'win32' });
    if (link.status !== 0) throw new Error(`npm link into ${prefix} failed: ${link.stderr}`);
    const linked = path.join(prefix, 'bin', 'pincer');
    const machine = machineNode();
    // The linked pincer's shebang finds `node` on PATH: the machine's, as in a terminal.
    const terminal = { ...process.env, PATH: [path.join(prefix, 'bin'), ...(process.env.PATH ?? '').split(path.delimiter).filter((d) => !d.startsWith(ROOT))].join(path.delimiter), PINCER_HOME: home, HTTP_PORT: 'auto' };
    const machineVersion = machine ? spawnSync(machine, ['--version'], { encoding: 'utf8' }).stdout.trim() : 'none';
    const subjects: { name: string; cmd: string; args: string[]; runs: number }[] = [
      ...(machine
        ? [
            { name: `node -e 0 (machine's node ${machineVersion})`, cmd: machine, args: ['-e', '0'], runs: RUNS },
            { name: `pincer --version (npm link, machine's node)`, cmd: linked, args: ['--version'], runs: RUNS },
            { name: `pincer status, no hub (npm link, machine's node)`, cmd: linked, args: ['status'], runs: RUNS },
          ]
        : []),
      { name: `node -e 0 (pinned node ${process.version})`, cmd: process.execPath, args: ['-e', '0'], runs: RUNS },
      { name: 'node …/pincer.js --version (pinned node)', cmd: process.execPath, args: [PINCER, '--version'], runs: RUNS },
      { name: 'npx pincer --version (in the checkout)', cmd: npm === 'npm' ? 'npx' : 'npx.cmd', args: ['--no-install', 'pincer', '--version'], runs: NPX_RUNS },
    ];
    const rows: Row[] = subjects.map((s) => ({ name: s.name, samples: [] }));
    // One warm-up each (disk cache), then interleaved so that the machine's drift hits all alike.
    for (const s of subjects) run(s.cmd, s.args, terminal);
    for (let i = 0; i < RUNS; i++) {
      subjects.forEach((s, k) => {
        if (i < s.runs) rows[k]!.samples.push(run(s.cmd, s.args, terminal));
      });
    }
    return table('CLI start: a command to its exit, against Node’s own start', rows, machine ? rows[0]!.name : `node -e 0 (pinned node ${process.version})`);
  } finally {
    fs.rmSync(prefix, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCliStart();
