import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pincerPaths, ensureHome } from '../core/paths.js';
import { readHubInfo, type HubInfo } from '../http/lock.js';
import { Settings } from '../core/settings/settings.js';

/** The token clients of this data directory use: AUTH_TOKEN from the environment or the settings file. */
export function readToken(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const paths = pincerPaths(home);
  const s = new Settings({ userFile: paths.settingsFile, env });
  return s.get('AUTH_TOKEN');
}

export async function hubHealthy(info: HubInfo, timeoutMs = 2000): Promise<boolean> {
  try {
    const res = await fetch(`${info.url}/api/mcp/health`, { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * The hub of this data directory, started detached when none runs, so that it
 * outlives the client that needed it. Waits until it answers.
 */
export async function ensureHub(home: string, opts: { timeoutMs?: number; cliPath?: string } = {}): Promise<HubInfo> {
  const paths = pincerPaths(home);
  ensureHome(paths);
  const existing = readHubInfo(paths);
  if (existing && (await hubHealthy(existing))) return existing;
  const cli = opts.cliPath ?? process.argv[1]!;
  const out = fs.openSync(path.join(paths.logsDir, 'hub-start.log'), 'a', 0o600);
  const child = spawn(process.execPath, [cli, 'serve', '--quiet', '--if-none'], {
    detached: true,
    // Never the bridge's folder: the hub serves every client and must not run in (or read) one project.
    cwd: paths.home,
    stdio: ['ignore', out, out],
    env: { ...process.env, PINCER_HOME: home },
    windowsHide: true,
  });
  child.unref();
  fs.closeSync(out);
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  while (Date.now() < deadline) {
    const info = readHubInfo(paths);
    // Either ours or one another bridge started at the same moment.
    if (info && (await hubHealthy(info, 1000))) return info;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the Pincer hub did not start within ${Math.round((opts.timeoutMs ?? 20_000) / 1000)} s; see ${path.join(paths.logsDir, 'hub-start.log')} and hub.log`);
}
