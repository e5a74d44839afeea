import { spawn } from 'node:child_process';
import os from 'node:os';

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export interface Row {
  name: string;
  samples: number[];
  unit?: string;
}

/** Prints name, median, p99 and the ratio of each median to the peer's (the last row unless named). */
export function table(title: string, rows: Row[], peer = rows[rows.length - 1]!.name): string {
  const base = percentile(rows.find((r) => r.name === peer)!.samples, 50);
  const lines = [
    `\n### ${title}\n`,
    `| subject | runs | median | p99 | ratio to ${peer} |`,
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => {
      const med = percentile(r.samples, 50);
      const u = r.unit ?? 'ms';
      return `| ${r.name} | ${r.samples.length} | ${med.toFixed(2)} ${u} | ${percentile(r.samples, 99).toFixed(2)} ${u} | ${(med / base).toFixed(2)}× |`;
    }),
  ];
  const text = lines.join('\n');
  process.stdout.write(text + '\n');
  return text;
}

export function machine(): string {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
}

/** The opening request of each generation: 2025's `initialize`, 2026-07-28's `server/discover` (what the AI SDK probes with). */
const OPENINGS = {
  initialize: { message: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }, answered: 'protocolVersion' },
  discover: {
    message: { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } },
    answered: 'supportedVersions',
  },
} as const;

/** Spawns a stdio MCP server and measures spawn → the answer to its opening request (initialize by default), in ms. */
export function coldStart(command: string, args: string[], env: NodeJS.ProcessEnv, opening: keyof typeof OPENINGS = 'initialize'): Promise<number> {
  const { message, answered } = OPENINGS[opening];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: no ${opening} answer in 30 s`));
    }, 30_000);
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('"id":1') && buf.includes(answered)) {
        const ms = performance.now() - t0;
        clearTimeout(timer);
        child.stdin.end();
        child.kill('SIGTERM');
        child.once('exit', () => resolve(ms));
      }
    });
    child.on('error', reject);
    child.stdin.write(JSON.stringify(message) + '\n');
  });
}
