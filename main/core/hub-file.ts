import { pidAlive } from './pid.js';
import { writeFileAtomic, type PincerPaths } from './paths.js';

// fs through getBuiltinModule: an ESM import of node:fs reads all its exports (the bridge reads hub.json).
const fs = process.getBuiltinModule('node:fs');

/**
 * `hub.json`: where the running hub of a data directory listens (ARCHITECTURE §1). One reader with
 * one set of rules for the hub, the CLI and the bridge alike — without zod, since the bridge
 * reads it on every start and must stay light.
 */

/** Who runs the hub: the tray app (`desktop`) has the better claim than `pincer serve` or a bridge's hub (`headless`). */
export const HUB_ROLES = ['desktop', 'headless'] as const;
export type HubRole = (typeof HUB_ROLES)[number];

export interface HubInfo {
  url: string;
  port: number;
  pid: number;
  started: string;
  version: string;
  role: HubRole;
}

const isPort = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) < 65536;
const isPid = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;

/** A hub.json's content when it is one (every field, `role` included), else undefined. */
export function parseHubInfo(v: unknown): HubInfo | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.url !== 'string' || !/^https?:\/\//.test(o.url) || !isPort(o.port) || !isPid(o.pid) || typeof o.started !== 'string' || typeof o.version !== 'string') return undefined;
  if (!(HUB_ROLES as readonly unknown[]).includes(o.role)) return undefined;
  return { url: o.url, port: o.port, pid: o.pid, started: o.started, version: o.version, role: o.role as HubRole };
}

/** `hub.json` as written, whether or not its process still runs (callers verify it). */
export function readHubFile(paths: PincerPaths): HubInfo | undefined {
  let text: string;
  try {
    text = fs.readFileSync(paths.hubFile, 'utf8');
  } catch {
    // No hub.json: no hub is recorded.
    return undefined;
  }
  try {
    return parseHubInfo(JSON.parse(text));
  } catch {
    // Half-written (a hub writing it this moment writes atomically, so: damaged): no hub is recorded.
    return undefined;
  }
}

/** The hub recorded in `hub.json` if its process is alive (a cheap check; hub/identity.ts makes a real one). */
export function readLiveHubFile(paths: PincerPaths): HubInfo | undefined {
  const info = readHubFile(paths);
  return info && pidAlive(info.pid) ? info : undefined;
}

export function writeHubInfo(paths: PincerPaths, info: HubInfo): void {
  writeFileAtomic(paths.hubFile, JSON.stringify(info, null, 2) + '\n', 0o600, false);
}
