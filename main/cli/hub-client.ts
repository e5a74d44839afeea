import type http from 'node:http';
import path from 'node:path';
import { pincerPaths, ensureHome } from '../core/paths.js';
import { EnvDocument } from '../core/settings/envfile.js';
import { readLiveHubFile, type HubInfo } from '../core/hub-file.js';
import { HUB_NODE_FLAGS, hubLaunchEnv } from '../core/node-flags.js';
import { describeExit, hubNode, HubStartError, startFailure } from './hub-start.js';
import { logger } from '../core/log.js';

const log = logger('bridge');

// Builtins through getBuiltinModule: an ESM `import http from 'node:http'` reads
// every export of the builtin, and its lazy WebSocket getters load undici (~15 MB
// of RSS); node:fs likewise loads fs/promises. child_process loads only when a hub
// must be started.
const { get } = process.getBuiltinModule('node:http');
const fs = process.getBuiltinModule('node:fs');

// This module is on the bridge's path (`pincer stdio`), which must stay a light
// relay: it reads hub.json with the one zod-free reader (core/hub-file.ts) and the
// token without the zod schemas of core/settings,
// and talks HTTP with node:http rather than fetch, whose first use loads undici.

/** The token clients of this data directory use: AUTH_TOKEN from the environment, else from the settings file. */
export function readToken(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.AUTH_TOKEN;
  if (fromEnv !== undefined) return fromEnv.trim();
  try {
    return new EnvDocument(fs.readFileSync(pincerPaths(home).settingsFile, 'utf8')).get('AUTH_TOKEN') ?? '';
  } catch {
    // No settings file yet: no token (callers say how to get one).
    return '';
  }
}

/** GET /api/mcp/health answered 2xx within the time limit. */
export function hubHealthy(info: Pick<HubInfo, 'url'>, timeoutMs = 2000, headers: http.OutgoingHttpHeaders = {}): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(new URL('/api/mcp/health', info.url), { headers, timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 500) < 300);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
  });
}

export interface EnsureHubOptions {
  timeoutMs?: number;
  cliPath?: string;
  /** Headers for the health checks (the bridge sends its identity on every request). */
  headers?: http.OutgoingHttpHeaders;
}

/**
 * The hub of this data directory, started detached when none runs, so that it
 * outlives the client that needed it. Waits until it answers. When the hub we
 * started exits with an error (the port is taken, a bad setting), throws at once
 * with the reason it gave instead of waiting out the deadline; when it exits
 * because another hub holds the lock, waits for that one.
 */
export async function ensureHub(home: string, opts: EnsureHubOptions = {}): Promise<HubInfo> {
  const paths = pincerPaths(home);
  ensureHome(paths);
  const existing = readLiveHubFile(paths);
  if (existing && (await hubHealthy(existing, 2000, opts.headers))) return existing;
  const cli = opts.cliPath ?? process.argv[1]!;
  const logFile = path.join(paths.logsDir, 'hub-start.log');
  const { node, note } = await hubNode(logFile);
  if (note) log.warn(note);
  // The hub's early words (before its own log is open) go here; a log folder that cannot be written costs them, not the start.
  const out = openStartLog(logFile);
  const logStart = out === 'ignore' ? 0 : fs.fstatSync(out).size;
  const { spawn } = process.getBuiltinModule('node:child_process');
  const child = spawn(node.path, [...HUB_NODE_FLAGS, cli, 'serve', '--quiet', '--if-none'], {
    detached: true,
    // Never the bridge's folder: the hub serves every client and must not run in (or read) one project.
    cwd: paths.home,
    stdio: ['ignore', out, out],
    env: hubLaunchEnv({ ...process.env, PINCER_HOME: home }),
    windowsHide: true,
  });
  child.unref();
  if (out !== 'ignore') fs.closeSync(out);
  let failedAt: number | undefined;
  let ended = '';
  child.once('exit', (code, signal) => {
    ended = describeExit(code, signal);
    // 3: another hub holds the lock (it is starting or handing over); wait for it.
    if (code !== 0 && code !== 3) failedAt = Date.now();
  });
  child.once('error', (err) => {
    ended = `could not be started with ${node.path} (${err.message})`;
    failedAt = Date.now();
  });
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const info = readLiveHubFile(paths);
    // Either ours or one another bridge started at the same moment.
    if (info && (await hubHealthy(info, 1000, opts.headers))) return info;
    // A short grace after our hub failed, in case another one is coming up.
    if (failedAt !== undefined && Date.now() - failedAt > 500) {
      throw new HubStartError(`the Pincer hub could not start: ${startFailure(logFile, logStart, ended)}`, logFile);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new HubStartError(`the Pincer hub did not start within ${Math.round(timeoutMs / 1000)} s; see ${logFile} and ${path.join(paths.logsDir, 'hub.log')}`, logFile);
}

function openStartLog(file: string): number | 'ignore' {
  try {
    return fs.openSync(file, 'a', 0o600);
  } catch {
    return 'ignore'; // a read-only or full log folder: the hub starts without its start log (startFailure then says less)
  }
}
