import fs from 'node:fs';
import path from 'node:path';
import { McpServer, ProtocolError, isInputRequiredResult, type ReadResourceResult, type RegisteredResource, type Resource, type ServerContext } from '@modelcontextprotocol/server';
import { registerAppResource, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { McpUiResourceMeta } from '@modelcontextprotocol/ext-apps';
import { PACKAGE_ROOT } from '../core/version.js';
import { appsNegotiated, VIEWS, type ViewName } from '../tools/views/links.js';
import { capabilitiesOf } from './request-context.js';
import { SERVER_INFO } from './server-info.js';
import { RPC } from '../core/wire-errors.js';

/**
 * The chat views (MCP Apps, ARCHITECTURE §1 "Views in the chat") as `ui://` resources, for a client that
 * declared the extension: one self-contained HTML page (renderer/src/apps, bundled by the dashboard's
 * build) shown as the job, question or task view. Nothing outside the page is loaded, so the declared CSP
 * allows no origin at all.
 */

/** The built page; `__PINCER_VIEW__` in it names the view it shows. */
const PAGE = path.join(PACKAGE_ROOT, 'dist', 'renderer', 'apps', 'view.html');
const VIEW_MARK = '__PINCER_VIEW__';

const UI_META: McpUiResourceMeta = {
  // No origin for anything: the page carries its script and styles, and talks only to the host.
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

const DESCRIPTIONS: Record<ViewName, { title: string; description: string }> = {
  job: { title: 'Pincer job', description: 'A command running as a Pincer job: status, run time, exit code, its output as it grows, and a Kill button.' },
  question: { title: 'Pincer question', description: 'The questions AskUserQuestion puts, as a form in the chat; the answer reaches the waiting call.' },
  task: { title: 'Pincer tasks', description: 'The task with its steps and progress, and the current plan; steps can be marked done.' },
};

let page: string | undefined;

/** The built page, read once per process (it changes only with a new build of Pincer). */
function pageText(): string {
  if (page === undefined) {
    try {
      page = fs.readFileSync(PAGE, 'utf8');
    } catch (err) {
      throw new ProtocolError(RPC.InternalError, `Pincer's chat views are not built (${PAGE}: ${(err as Error).message}). Run "npm run build" in the Pincer checkout.`);
    }
  }
  return page;
}

/**
 * The views registered with ext-apps' server helper on a catalogue server of their own: Pincer's
 * resources/list and resources/read (mcp/resource-handlers.ts) answer for every surface and era, and serve these
 * registrations to a client of MCP Apps alone.
 */
function registerViews(): Map<string, RegisteredResource> {
  const catalogue = new McpServer(SERVER_INFO, { capabilities: {} });
  const views = new Map<string, RegisteredResource>();
  for (const [name, uri] of Object.entries(VIEWS) as [ViewName, string][]) {
    const { title, description } = DESCRIPTIONS[name];
    const registered = registerAppResource(catalogue, `pincer-${name}-view`, uri, { title, description, _meta: { ui: UI_META } }, () => ({
      contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: pageText().replace(VIEW_MARK, name), _meta: { ui: UI_META } }],
    }));
    views.set(uri, registered);
  }
  return views;
}

let registered: Map<string, RegisteredResource> | undefined;
const views = (): Map<string, RegisteredResource> => (registered ??= registerViews());

/** Whether this request's client declared MCP Apps (its initialize capabilities, or a 2026-07-28 request's own). */
export function appsOf(ctx: ServerContext, server: McpServer['server']): boolean {
  return appsNegotiated(capabilitiesOf(ctx, server));
}

/** The views as resources/list lists them. */
export function viewResources(): Resource[] {
  return [...views()].map(([uri, r]) => ({ uri, name: r.name, ...r.metadata }));
}

/** A view's page, or undefined when `uri` names none. */
export async function readView(uri: string, ctx: ServerContext): Promise<ReadResourceResult | undefined> {
  const view = views().get(uri);
  if (!view) return undefined;
  const result = await view.readCallback(new URL(uri), ctx);
  if (isInputRequiredResult(result)) throw new ProtocolError(RPC.InternalError, `Reading ${uri} asked for input; a view's page never does.`);
  return result;
}
