import fs from 'node:fs';
import type { ToolContext } from '../types.js';
import { resolveCwd } from './process.js';

/**
 * Where a client's commands run, like a terminal tab: the folder its last
 * `cd` left it in; before that its own working folder (first MCP root, else
 * the folder `pincer stdio` started in); else BASH_CWD; else home. Kept per
 * client identity, in memory: a restart of Pincer starts again from the
 * client's folder.
 */
const MAX_CLIENTS = 1000;
const current = new Map<string, string>();

function isDir(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    // Missing or unreadable: not a folder to run in.
    return false;
  }
}

/** Where a command runs, and why there: the client's last cd, its own folder, BASH_CWD or home. */
export interface StartingPlace {
  dir: string;
  from: 'cd' | 'client' | 'BASH_CWD' | 'home';
}

export async function startingPlace(ctx: ToolContext): Promise<StartingPlace> {
  const remembered = ctx.callerId ? current.get(ctx.callerId) : undefined;
  if (remembered && isDir(remembered)) return { dir: remembered, from: 'cd' };
  // The client's roots could not be asked (it left, or has none): the next rule below decides the folder.
  const own = await Promise.resolve(ctx.workdir?.()).catch(() => /* roots unknown: the next rule decides */ undefined);
  if (own && isDir(own)) return { dir: own, from: 'client' };
  return { dir: resolveCwd(ctx.services.settings), from: ctx.services.settings.get('BASH_CWD').trim() === '' ? 'home' : 'BASH_CWD' };
}

export async function startingFolder(ctx: ToolContext): Promise<string> {
  return (await startingPlace(ctx)).dir;
}

/** Said beside a command's output when it ran in home because the client gave no folder of its own. */
export function fallbackNote(place: StartingPlace): string | undefined {
  return place.from === 'home' ? `[Ran in ${place.dir}, your home folder: the client gave no root or folder of its own, and BASH_CWD is not set]` : undefined;
}

/** Remembers where a client's command ended, for its next one. */
export function rememberFolder(ctx: ToolContext, dir: string): void {
  if (!ctx.callerId || !isDir(dir)) return;
  current.delete(ctx.callerId);
  current.set(ctx.callerId, dir);
  // Oldest first out: a long-running hub serves many short-lived clients.
  while (current.size > MAX_CLIENTS) current.delete(current.keys().next().value!);
}
