import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { coldStart, table, type Row } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PINCER = path.resolve(here, '..', 'main', 'cli', 'pincer.js');
const MINIMAL = path.join(here, 'peers', 'minimal-server.js');
const EVERYTHING = path.resolve(here, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

/** Cold start: spawn → first initialize answer over stdio. */
export async function benchColdStart(): Promise<string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-bench-'));
  const env = { ...process.env, PINCER_HOME: home, HTTP_PORT: 'auto', PINCER_LOG_LEVEL: 'error' };
  const hub = spawn(process.execPath, [PINCER, 'serve', '--quiet'], { env, stdio: 'ignore' });
  try {
    for (let i = 0; i < 100 && !fs.existsSync(path.join(home, 'hub.json')); i++) await new Promise((r) => setTimeout(r, 100));
    const subjects: [string, string[]][] = [
      ['pincer stdio (hub running)', [PINCER, 'stdio']],
      ['pincer stdio --standalone', [PINCER, 'stdio', '--standalone']],
      ['@modelcontextprotocol/server-everything', [EVERYTHING, 'stdio']],
      ['minimal SDK v2 server', [MINIMAL]],
    ];
    const rows: Row[] = subjects.map(([name]) => ({ name, samples: [] }));
    // Interleave the subjects so that drift on the machine hits all of them alike.
    for (let i = 0; i < RUNS; i++) {
      for (let s = 0; s < subjects.length; s++) rows[s]!.samples.push(await coldStart(process.execPath, subjects[s]![1], env));
    }
    return table('Cold start: spawn → first initialize answer (stdio)', rows);
  } finally {
    hub.kill('SIGTERM');
    await new Promise((r) => hub.once('exit', r));
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchColdStart();
