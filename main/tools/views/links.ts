import { getUiCapability, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { readLiveHubFile } from '../../core/hub-file.js';
import type { PincerPaths } from '../../core/paths.js';
import type { ToolDefinition, ViewUri } from '../types.js';

/** The chat views (MCP Apps, ARCHITECTURE §1 "Views in the chat"), one `ui://` resource each. */
export const VIEWS = {
  job: 'ui://pincer/job.html',
  question: 'ui://pincer/question.html',
  task: 'ui://pincer/task.html',
} as const satisfies Record<string, ViewUri>;
export type ViewName = keyof typeof VIEWS;

/**
 * Whether the client declared MCP Apps for this call: `extensions["io.modelcontextprotocol/ui"]` listing
 * the HTML profile, in its initialize capabilities (2025-11-25) or the request's own (2026-07-28).
 */
export function appsNegotiated(capabilities: Record<string, unknown> | undefined): boolean {
  if (!capabilities) return false;
  // The capabilities arrive as the JSON the client sent; getUiCapability reads only `extensions`.
  const ui = getUiCapability(capabilities as ClientCapabilities);
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(RESOURCE_MIME_TYPE);
}

/**
 * A page of the dashboard of the hub running for this data folder (a standalone process shares its
 * database, so its jobs are that hub's too), or undefined when none runs. The view opens it through the
 * host (`ui/open-link`): it never talks to the hub itself.
 */
export function dashboardLink(paths: PincerPaths, page: 'jobs' | 'todos' | 'questions', query?: Record<string, string>): string | undefined {
  const hub = readLiveHubFile(paths);
  if (!hub) return undefined;
  const search = query ? `?${new URLSearchParams(query).toString()}` : '';
  return `${hub.url.replace(/\/+$/, '')}/${search}#${page}`;
}

/**
 * A tool's `_meta` for a client of MCP Apps: its view, and who may call it. The flat `ui/resourceUri` too,
 * as ext-apps' registerAppTool writes it for hosts older than `_meta.ui` (the registry publishes Pincer's
 * tools itself, through the call core, so it applies the helper's rule rather than the helper).
 */
export function viewMeta(view: NonNullable<ToolDefinition['view']>): Record<string, unknown> {
  return { ui: { resourceUri: view.uri, ...(view.appOnly ? { visibility: ['app'] } : {}) }, [RESOURCE_URI_META_KEY]: view.uri };
}
