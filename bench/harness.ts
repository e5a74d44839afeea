import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { HUB_NODE_FLAGS } from '../main/core/node-flags.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const PINCER = path.resolve(here, '..', 'main', 'cli', 'pincer.js');
export const MINIMAL = path.join(here, 'peers', 'minimal-server.js');
/** The package root (this file runs from dist/bench). */
export const ROOT = path.resolve(here, '..', '..');

export interface Hub {
  url: string;
  token: string;
  pid: number;
  home: string;
  stop(): Promise<void>;
}

/**
 * The V8/Node flags a build's launchers start its hub with (its `main/core/node-flags.js`; none for a
 * build from before that module), so that a before/after pair measures what each build's users get.
 */
export async function hubNodeFlags(pincer = PINCER): Promise<readonly string[]> {
  if (pincer === PINCER) return HUB_NODE_FLAGS;
  const file = path.resolve(path.dirname(pincer), '..', 'core', 'node-flags.js');
  if (!fs.existsSync(file)) return [];
  return ((await import(pathToFileURL(file).href)) as { HUB_NODE_FLAGS: readonly string[] }).HUB_NODE_FLAGS;
}

/**
 * A real `pincer serve` in a fresh data directory (or `home`, prepared beforehand), of this build or of `pincer` (another build's
 * `dist/main/cli/pincer.js`) for before/after figures, started the way that build's launchers start it.
 */
export async function startHub(extraEnv: Record<string, string> = {}, pincer = PINCER, home = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-bench-'))): Promise<Hub> {
  // BENCH_HUB_NODE_FLAGS="--max-semi-space-size=1 …": more V8/Node flags for the hub, to measure one before adopting it;
  // BENCH_HUB_NODE_FLAGS="none [flags]": without the build's own flags (only those given).
  const extra = (process.env.BENCH_HUB_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const flags = extra[0] === 'none' ? extra.slice(1) : [...(await hubNodeFlags(pincer)), ...extra];
  // BENCH_HUB_LOG=<file>: the hub's stdout and stderr (e.g. with --trace-gc) go there.
  const logFile = process.env.BENCH_HUB_LOG;
  const log = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  const child = spawn(process.execPath, [...flags, pincer, 'serve', '--quiet'], { env: { ...process.env, PINCER_HOME: home, HOME: home, HTTP_PORT: 'auto', PINCER_LOG_LEVEL: 'error', BASH_CWD: home, ...(extra[0] === 'none' ? { PINCER_HUB_NODE_FLAGS: '0' } : {}), ...extraEnv }, stdio: ['ignore', log, log] });
  if (typeof log === 'number') fs.closeSync(log);
  let info: { url: string; pid: number } | undefined;
  for (let i = 0; i < 200 && !info; i++) {
    await new Promise((r) => setTimeout(r, 50));
    try {
      info = JSON.parse(fs.readFileSync(path.join(home, 'hub.json'), 'utf8'));
    } catch {
      info = undefined;
    }
  }
  if (!info) throw new Error('the hub did not start');
  const token = /^AUTH_TOKEN=(.*)$/m.exec(fs.readFileSync(path.join(home, 'pincer-env.txt'), 'utf8'))![1]!;
  return { url: info.url, token, pid: child.pid!, home, stop: () => stopChild(child, home) };
}

/** The minimal SDK server over Streamable HTTP: the peer for HTTP numbers. */
export async function startMinimalHttp(): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [MINIMAL, 'http', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess, home?: string): Promise<void> {
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  if (home) fs.rmSync(home, { recursive: true, force: true });
}

export async function httpClient(url: string, token?: string): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: 'bench', version: '1' });
  const t = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} } });
  await client.connect(t);
  return {
    client,
    close: async () => {
      await t.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

export async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** CPU time (user + system) a process has used, in ms. */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}
