import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PINCER_BIN, pincerEnv, waitFor, pidAlive, sleep, stopLeftHubs, WAIT_MS } from './env.js';
import { pincerPaths } from '../../main/core/paths.js';
import { hubLockHeld } from '../../main/hub/lock.js';

export interface HubProcess {
  child: ChildProcess;
  url: string;
  port: number;
  token: string;
  home: string;
  stderr(): string;
  headers(extra?: Record<string, string>): Record<string, string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function readHubJson(home: string): { url: string; port: number; pid: number } | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(home, 'hub.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

export function tokenOf(home: string): string {
  const text = fs.readFileSync(path.join(home, 'pincer-env.txt'), 'utf8');
  return /^AUTH_TOKEN=(.*)$/m.exec(text)![1]!.trim();
}

/**
 * Starts the real `pincer serve` on a free port and waits until it answers its health route
 * (`probe: false`: only until it wrote hub.json, which it does once listening — for a test that
 * must see the hub before any route of its express app was asked for).
 */
export async function startHubProcess(home: string, env: Record<string, string> = {}, opts: { probe?: boolean } = {}): Promise<HubProcess> {
  const child = spawn(process.execPath, [PINCER_BIN, 'serve', '--quiet'], { env: pincerEnv(home, { HTTP_PORT: 'auto', ...env }), cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout!.resume();
  const info = await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`pincer serve exited ${child.exitCode}: ${err}`);
    const j = readHubJson(home);
    return j && j.pid === child.pid ? j : undefined;
  }, 'the hub to write hub.json');
  if (opts.probe !== false) await waitFor(async () => (await fetch(`${info.url}/api/mcp/health`).catch(() => undefined))?.ok, 'the hub to answer');
  const token = tokenOf(home);
  return {
    child,
    url: info.url,
    port: info.port,
    token,
    home,
    stderr: () => err,
    headers: (extra = {}) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...extra }),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || !child.pid) return;
      child.kill(signal);
      await waitFor(() => child.exitCode !== null || !pidAlive(child.pid!), 'the hub to exit');
    },
  };
}

/** VmRSS of a process in bytes (Linux). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)![1]) * 1024;
}

/**
 * Stops whatever hub runs for a data directory (one a bridge started), waiting until it is gone. A hub
 * still starting (it holds the lock, hub.json not written yet) is waited for and stopped too, and so is
 * one that was waiting for the lock and takes it once the first is gone (a second `serve --if-none`):
 * done when no hub.json names a live process and the lock stayed free for half a second (WAIT_MS at most).
 * `once`: a restart test's stop — the running hub only, so that a bridge can start the next one.
 */
export async function stopHubOf(home: string, opts: { once?: boolean } = {}): Promise<void> {
  const paths = pincerPaths(home);
  const until = Date.now() + WAIT_MS;
  let freeSince: number | undefined;
  while (Date.now() < until && fs.existsSync(home)) {
    const info = readHubJson(home);
    // Never this test process: an in-process hub is the test's to close.
    if (info?.pid === process.pid) return;
    if (info && pidAlive(info.pid)) {
      process.kill(info.pid, 'SIGTERM');
      await waitFor(() => !pidAlive(info.pid), 'the hub to stop');
      if (opts.once) return;
      freeSince = undefined;
      continue;
    }
    if (hubLockHeld(paths)) freeSince = undefined;
    else if ((freeSince ??= Date.now()) < Date.now() - 500) break;
    await sleep(100);
  }
  // And one a bridge launched that is still loading (it has not reached the lock yet).
  stopLeftHubs(home, { quiet: true });
}
