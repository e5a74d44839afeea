import { spawn, type ChildProcess } from 'node:child_process';
import { table, type Row } from './lib.js';
import { stdioSubjects, type StdioSubject } from './peers.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
/** Busy processes beside the subjects for the loaded run (the machine has 2 cores). */
const LOAD = Number(process.env.BENCH_LOAD ?? 6);

/**
 * What a client such as Codex waits for before its first turn has the server's tools: spawn →
 * initialize → notifications/initialized → the tools/list answer, over stdio. Once on an idle
 * machine, once with LOAD busy processes competing for the cores.
 */
function firstTools(s: StdioSubject): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, s.args, { env: s.env, stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
        if (m.id === 1) child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
        if (m.id === 2 && m.result?.tools) {
          const ms = performance.now() - t0;
          clearTimeout(timer);
          child.stdin.end();
          child.kill('SIGTERM');
          child.once('exit', () => resolve(ms));
        }
      }
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${s.name}: no tools/list answer in 60 s`));
    }, 60_000);
    child.on('error', reject);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) + '\n');
  });
}

/** LOAD processes spinning for at most `ms` (bounded: they end by themselves). */
function busy(ms: number): ChildProcess[] {
  return Array.from({ length: LOAD }, () => spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end) {}`], { stdio: 'ignore' }));
}

export async function benchFirstTools(): Promise<string> {
  const { subjects, close } = await stdioSubjects();
  const pick = subjects.filter((s) => s.name.includes('pincer') || s.name === 'minimal SDK v2 server');
  const out: string[] = [];
  try {
    for (const loaded of [false, true]) {
      const rows: Row[] = pick.map((s) => ({ name: s.name, samples: [] }));
      const load = loaded ? busy(10 * 60_000) : [];
      try {
        for (let i = 0; i < RUNS; i++) for (let s = 0; s < pick.length; s++) rows[s]!.samples.push(await firstTools(pick[s]!));
      } finally {
        for (const p of load) p.kill('SIGKILL');
      }
      out.push(table(`First tools: spawn → initialize → tools/list answer (stdio)${loaded ? `, ${LOAD} busy processes on 2 cores` : ', idle'}`, rows, 'pincer stdio (bridge, hub running)'));
    }
  } finally {
    await close();
  }
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) await benchFirstTools();
