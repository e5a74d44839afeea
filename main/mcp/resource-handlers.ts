import { ProtocolError, type InputRequiredResult, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { Services, ToolContext } from '../tools/types.js';
import { needInputOf, type NeedInput } from '../tools/client-asks.js';
import { RESOURCES, isResource, readResource, listPrompts, getPrompt, RESOURCE_NOT_FOUND, PROMPT_NOT_FOUND } from '../calls/served-resources.js';
import type { Contributions } from '../calls/contributions.js';
import { complete, completeParams } from '../calls/completion.js';
import { z } from 'zod';
import { errorMessage } from '../core/errors.js';
import { appsOf, readView, viewResources } from './view-resources.js';
import { RPC } from '../core/wire-errors.js';


/**
 * Pincer answers every list on one page and never hands out a cursor, so any
 * cursor a client sends is one it did not get from here: -32602, as the
 * pagination spec asks for an invalid cursor.
 */
export function rejectCursor(method: string, params: { cursor?: string } | undefined): void {
  if (params?.cursor === undefined) return;
  throw new ProtocolError(RPC.InvalidParams, `Invalid cursor for ${method}: Pincer returns the whole list on one page and gave out no cursor. Call ${method} without a cursor.`);
}

/** A plugin's handler failed: the client gets an internal error naming it; the hub and the other plugins go on. */
async function pluginAnswer<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    throw new ProtocolError(RPC.InternalError, `${what} failed in its plugin: ${errorMessage(err)}`);
  }
}

/** Tasks and the current plan as MCP resources (markdown), with subscriptions; then the plugins' resources and templates. */
export function registerResources(mcp: McpServer, services: Services, contributions: Contributions, subscriptions: Set<string>): void {
  const server = mcp.server;
  server.setRequestHandler('resources/list', (req, ctx) => {
    rejectCursor('resources/list', req.params);
    // The chat views exist for a client of MCP Apps alone (mcp/view-resources.ts).
    return { resources: [...RESOURCES, ...contributions.resources().map((r) => r.resource), ...(appsOf(ctx, server) ? viewResources() : [])] };
  });
  server.setRequestHandler('resources/templates/list', (req) => {
    rejectCursor('resources/templates/list', req.params);
    return { resourceTemplates: contributions.templates().map((t) => t.template) };
  });
  server.setRequestHandler('resources/read', async (req, ctx: ServerContext) => {
    const uri = req.params.uri;
    const r = readResource(services, uri);
    if (r) return r;
    const view = appsOf(ctx, server) ? await readView(uri, ctx) : undefined;
    if (view) return view;
    const plugin = contributions.resource(uri);
    if (plugin) return pluginAnswer(`Reading ${uri}`, () => plugin.read(uri, ctx.mcpReq.signal));
    const templated = contributions.templateFor(uri);
    if (templated) return pluginAnswer(`Reading ${uri}`, () => templated.template.read(uri, templated.variables, ctx.mcpReq.signal));
    throw new ProtocolError(RPC.ResourceNotFound, RESOURCE_NOT_FOUND(uri), { uri });
  });
  server.setRequestHandler('resources/subscribe', (req) => {
    if (!isResource(req.params.uri) && !contributions.resource(req.params.uri)) throw new ProtocolError(RPC.InvalidParams, `Cannot subscribe to ${req.params.uri}: unknown resource.`);
    subscriptions.add(req.params.uri);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (req) => {
    subscriptions.delete(req.params.uri);
    return {};
  });
}

/** Every enabled skill is also a prompt, taking one optional `arguments` argument; then the plugins' prompts. */
export function registerPrompts(mcp: McpServer, services: Services, contributions: Contributions, call: PromptCallHooks): void {
  const server = mcp.server;
  server.setRequestHandler('prompts/list', (req) => {
    rejectCursor('prompts/list', req.params);
    const skills = listPrompts(services);
    const taken = new Set(skills.map((p) => p.name));
    return { prompts: [...skills, ...contributions.prompts().filter((p) => !taken.has(p.prompt.name)).map((p) => p.prompt)] };
  });
  server.setRequestHandler('prompts/get', async (req, ctx: ServerContext) => {
    const p = getPrompt(services, req.params.name, req.params.arguments?.arguments);
    if (p) return p;
    const plugin = contributions.prompt(req.params.name);
    if (!plugin) throw new ProtocolError(RPC.InvalidParams, PROMPT_NOT_FOUND(req.params.name));
    const args = req.params.arguments ?? {};
    const missing = (plugin.prompt.arguments ?? []).filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
    if (missing.length) throw new ProtocolError(RPC.InvalidParams, `Prompt ${req.params.name} needs the argument(s) ${missing.join(', ')}.`);
    const result = await pluginAnswer(`Prompt ${req.params.name}`, () => plugin.get(args, call.context(ctx, req.params.name)));
    const need = needInputOf(result);
    return need ? call.inputRequired(need) : result;
  });
}

/** How a plugin's prompt gets a tool's context and asks the client (server.ts owns both). */
export interface PromptCallHooks {
  context(ctx: ServerContext, prompt: string): ToolContext;
  /** prompts/get may answer input_required on 2026-07-28 (SEP-2322), as tools/call does. */
  inputRequired(need: NeedInput): Promise<InputRequiredResult>;
}

/**
 * `completion/complete` for skills' arguments and the plugins' prompts and resource templates. Its
 * params are checked here (calls/completion.ts): an unknown ref type or a missing field is one
 * sentence with -32602, not the SDK's internal error with a validator dump.
 */
export function registerCompletion(mcp: McpServer, services: Services, contributions: Contributions): void {
  mcp.server.setRequestHandler('completion/complete', { params: z.looseObject({}), result: z.looseObject({}) }, async (raw) => {
    const checked = completeParams(raw);
    if ('invalid' in checked) throw new ProtocolError(RPC.InvalidParams, checked.invalid);
    const outcome = await complete(services, contributions, checked.params);
    if ('unknown' in outcome) throw new ProtocolError(RPC.InvalidParams, outcome.unknown);
    return { completion: outcome.completion };
  });
}
