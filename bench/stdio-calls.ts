import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { percentile, table, type Row } from './lib.js';
import { rss, time } from './harness.js';
import { stdioSubjects, type StdioSubject } from './peers.js';

const N = Number(process.env.BENCH_CALLS ?? 200);
/** DesktopCommander takes ~200 ms a call: fewer of its calls keep the run short. */
const SLOW_N = Math.min(N, Number(process.env.BENCH_SLOW_CALLS ?? 30));

/** The official SDK client of either generation: the bridge targets were set measuring with v1, Pincer's own tests use both. */
type Generation = 'v1' | 'v2';

interface Connected {
  subject: StdioSubject;
  client: { callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>; close(): Promise<void> };
  pid: number;
}

async function connect(subject: StdioSubject, generation: Generation): Promise<Connected> {
  const params = { command: process.execPath, args: subject.args, env: subject.env as Record<string, string>, stderr: 'ignore' as const };
  if (generation === 'v1') {
    const transport = new V1StdioClientTransport(params);
    const client = new V1Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    return { subject, client, pid: transport.pid! };
  }
  const transport = new StdioClientTransport(params);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return { subject, client, pid: transport.pid! };
}

/** 0 … n−1 starting at `round` mod n, so that over the rounds every subject is first as often as every other. */
function rotation(n: number, round: number): number[] {
  return Array.from({ length: n }, (_, j) => (round + j) % n);
}

/** An idle Node process: what any Node-based server costs before it does anything. */
function idleNodeRss(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawnSync(process.execPath, ['-e', `setTimeout(() => { process.stdout.write(require('fs').readFileSync('/proc/self/status', 'utf8')); }, 500)`], { encoding: 'utf8' });
    resolve(Number(/VmRSS:\s+(\d+)/.exec(child.stdout)![1]) * 1024);
  });
}

/** Which SDK clients drive the stdio calls: BENCH_STDIO_CLIENTS=v1,v2 (both, v1 first: the one the bridge targets were set with). */
const GENERATIONS = (process.env.BENCH_STDIO_CLIENTS ?? 'v1,v2').split(',').filter((g): g is Generation => g === 'v1' || g === 'v2');

/** The stdio calls once per client generation, each with fresh server processes. */
export async function benchStdioCalls(): Promise<string> {
  const out: string[] = [];
  for (const generation of GENERATIONS) out.push(await benchStdioCallsWith(generation));
  return out.join('\n');
}

/**
 * One client per subject over stdio, calls interleaved subject by subject: the
 * cheap call, `true` in each server's shell tool, then every server's RSS after
 * that use. The bridge's targets (RSS after use, cold start, cheap-call and Bash overhead) are checked against peers of the same run.
 */
async function benchStdioCallsWith(generation: Generation): Promise<string> {
  const { subjects, close } = await stdioSubjects();
  const connected: Connected[] = [];
  const by = ` (official SDK ${generation} client)`;
  try {
    for (const s of subjects) connected.push(await connect(s, generation));
    const cheap = connected.filter((c) => c.subject.cheap);
    const shell = connected.filter((c) => c.subject.shellTrue);
    const cheapRows: Row[] = cheap.map((c) => ({ name: `${c.subject.name}: ${c.subject.cheap!.name}`, samples: [] }));
    const shellRows: Row[] = [...shell.map((c) => ({ name: `${c.subject.name}: ${c.subject.shellTrue!.name} true`, samples: [] as number[] })), { name: 'bare `bash -c true` spawn', samples: [] }];
    for (let i = 0; i < N; i++) {
      const skip = (c: Connected) => i >= SLOW_N && c.subject.name === 'DesktopCommander';
      // Each round starts with the next subject: the first call after the spawn below runs on cold
      // caches in the client and the server, and a fixed order would hand that cost to one subject.
      for (const k of rotation(cheap.length, i)) if (!skip(cheap[k]!)) cheapRows[k]!.samples.push(await time(() => cheap[k]!.client.callTool(cheap[k]!.subject.cheap!)));
      for (const k of rotation(shell.length, i)) if (!skip(shell[k]!)) shellRows[k]!.samples.push(await time(() => shell[k]!.client.callTool(shell[k]!.subject.shellTrue!)));
      shellRows[shell.length]!.samples.push(await time(async () => spawnSync('bash', ['-c', 'true'])));
    }
    const mb = (n: number) => n / 1048576;
    const idle = await idleNodeRss();
    const rssRows: Row[] = [...connected.map((c) => ({ name: `${c.subject.name}, RSS after use`, samples: [mb(rss(c.pid))], unit: 'MB' })), { name: 'idle Node process', samples: [mb(idle)], unit: 'MB' }];
    const floorName = 'minimal SDK v2 server';
    const out = [
      table(`Cheap call over stdio${by}`, cheapRows, `${floorName}: echo`),
      table(`\`true\` through each server’s shell tool (stdio)${by}`, shellRows, `${floorName}: shell true`),
      table(`RSS after the calls above${by}`, rssRows, `${floorName}, RSS after use`),
    ];
    const med = (rows: Row[], prefix: string) => percentile(rows.find((r) => r.name.startsWith(prefix))!.samples, 50);
    const bridgeName = 'pincer stdio (bridge, hub running)';
    const bridgeRss = med(rssRows, bridgeName);
    const cheapGap = med(cheapRows, bridgeName) - med(cheapRows, 'pincer stdio --standalone');
    const shellRatio = med(shellRows, bridgeName) / med(shellRows, `${floorName}: shell`);
    const standaloneRatio = med(cheapRows, 'pincer stdio --standalone') / med(cheapRows, `${floorName}: echo`);
    const targets = [
      `\nBridge targets, this run${by}:`,
      `- bridge RSS after use ${bridgeRss.toFixed(1)} MB (target ≤ 55 MB; idle Node ${mb(idle).toFixed(1)} MB): ${bridgeRss <= 55 ? 'met' : 'NOT met'}`,
      `- cheap call through the bridge − standalone = ${cheapGap.toFixed(2)} ms (target ≤ 0.5 ms): ${cheapGap <= 0.5 ? 'met' : 'NOT met'}`,
      `- Bash true through the bridge ${shellRatio.toFixed(2)}× the minimal server's shell tool (target ≤ 1.3×): ${shellRatio <= 1.3 ? 'met' : 'NOT met'}`,
      `- cheap call standalone ${standaloneRatio.toFixed(2)}× the floor (target ≤ 1.3×): ${standaloneRatio <= 1.3 ? 'met' : 'NOT met'}`,
      '',
    ].join('\n');
    process.stdout.write(targets);
    return out.join('\n') + targets;
  } finally {
    await Promise.all(connected.map((c) => c.client.close().catch(() => undefined)));
    await close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStdioCalls();
