import { fileURLToPath } from 'node:url';
import { inputResponse, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { capabilitiesOf, ownState, requestEra, ROOTS_KEY } from './request-context.js';

export { ROOTS_KEY };

/*
 * The client's roots on 2026-07-28, where a server sends no requests of its own: a tools/call of a
 * client that declares `roots` is first answered `input_required` with a `roots/list` input request
 * under ROOTS_KEY; the retry carries the roots, and the first file root is sealed into the request
 * state so that later rounds of the same call (a question, a plugin's own asks) keep it.
 */

/** One connection's last answer (the bridge's pipe, stdio standalone), until roots/list_changed. */
export interface RootMemory {
  root: string | null | undefined;
}

/**
 * What this call knows of the client's first root: `undefined` when it does not apply (a 2025-era
 * request, whose roots the session asks for; a client without roots), 'ask' when the client must be
 * asked first, else the root (null: the client has no file root).
 */
export function modernRoot(ctx: ServerContext, server: McpServer['server'], client: string, memory?: RootMemory): { root: string | null } | 'ask' | undefined {
  if (requestEra(ctx, server) !== 'modern' || !capabilitiesOf(ctx, server).roots) return undefined;
  const answer = inputResponse(ctx.mcpReq.inputResponses, ROOTS_KEY);
  if (answer.kind === 'roots') {
    const root = firstRootPath(answer.roots) ?? null;
    if (memory) memory.root = root;
    return { root };
  }
  // Only a state minted for this client counts (request-context.ts ownState).
  const state = ownState(ctx, client);
  if (state && (typeof state.root === 'string' || state.root === null)) return { root: state.root };
  if (memory && memory.root !== undefined) return { root: memory.root };
  return 'ask';
}

/** The first file:// root as a local path; other URI schemes are not folders Bash can run in. */
export function firstRootPath(roots: readonly { uri: string }[]): string | undefined {
  for (const r of roots) {
    if (!r.uri.startsWith('file:')) continue;
    try {
      return fileURLToPath(r.uri);
    } catch {
      // Not a local path (a remote host): try the next root.
    }
  }
  return undefined;
}
