import { VERSION } from '../core/version.js';
import { MODERN_VERSIONS } from './protocol-era.js';

/**
 * Who the server is and what it offers, without the MCP SDK: `pincer stdio
 * --standalone` answers a 2026-07-28 `server/discover` from these before it
 * has loaded the SDK, the database and the tools (the AI SDK waits 1 s for
 * that answer). server.ts builds every instance from the same values, and a
 * test compares the early answer with the SDK's.
 */
export const SERVER_INFO = { name: 'pincer', title: 'Pincer', version: VERSION };

export const SERVER_INSTRUCTIONS =
  'Pincer gives you local tools: Bash for quick shell commands; BackgroundBash, ReadBgOutput, ListBgTasks and KillBgTask for ' +
  'long-running jobs that survive restarts (prefer ReadBgOutput with wait_ms over polling); TaskManager and PlanMode to keep a ' +
  'checklist and a plan; SetCallback to be reminded later; InvokeSkill for reusable skills; AskUserQuestion to ask the person.';

export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  logging: {},
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  /**
   * The tasks extension (SEP-2663): a long call may be answered with a task, for clients that declare it too.
   * MCP Apps (SEP-1865): for a client that declares it, tools link to the chat views (mcp/view-resources.ts).
   */
  extensions: { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};


/** The `server/discover` result, as the SDK encodes it on 2026-07-28. */
export function discoverResult(): Record<string, unknown> {
  return {
    supportedVersions: [...MODERN_VERSIONS],
    capabilities: SERVER_CAPABILITIES,
    instructions: SERVER_INSTRUCTIONS,
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
  };
}
