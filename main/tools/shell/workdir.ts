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

export async function startingFolder(ctx: ToolContext): Promise<string> {
  const remembered = ctx.sessionId ? current.get(ctx.sessionId) : undefined;
  if (remembered && isDir(remembered)) return remembered;
  // The client's roots could not be asked (it left, or has none): the next rule below decides the folder.
  const own = await Promise.resolve(ctx.workdir?.()).catch(() => undefined);
  if (own && isDir(own)) return own;
  return resolveCwd(ctx.services.settings);
}

/** Remembers where a client's command ended, for its next one. */
export function rememberFolder(ctx: ToolContext, dir: string): void {
  if (!ctx.sessionId || !isDir(dir)) return;
  current.delete(ctx.sessionId);
  current.set(ctx.sessionId, dir);
  // Oldest first out: a long-running hub serves many short-lived clients.
  while (current.size > MAX_CLIENTS) current.delete(current.keys().next().value!);
}
