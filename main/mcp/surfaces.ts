import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import type { Services } from '../tools/types.js';
import { RESOURCES, isResource, readResource, listPrompts, getPrompt, RESOURCE_NOT_FOUND, PROMPT_NOT_FOUND } from '../calls/surfaces.js';

/** MCP's resource-not-found code (not in the SDK's enum). */
const RESOURCE_NOT_FOUND_CODE = -32002;

/**
 * Pincer answers every list on one page and never hands out a cursor, so any
 * cursor a client sends is one it did not get from here: -32602, as the
 * pagination spec asks for an invalid cursor.
 */
export function rejectCursor(method: string, params: { cursor?: string } | undefined): void {
  if (params?.cursor === undefined) return;
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor for ${method}: Pincer returns the whole list on one page and gave out no cursor. Call ${method} without a cursor.`);
}

/** Tasks and the current plan as MCP resources (markdown), with subscriptions. */
export function registerResources(mcp: McpServer, services: Services, subscriptions: Set<string>): void {
  const server = mcp.server;
  server.setRequestHandler('resources/list', (req) => {
    rejectCursor('resources/list', req.params);
    return { resources: RESOURCES };
  });
  server.setRequestHandler('resources/templates/list', (req) => {
    rejectCursor('resources/templates/list', req.params);
    return { resourceTemplates: [] };
  });
  server.setRequestHandler('resources/read', (req) => {
    const r = readResource(services, req.params.uri);
    if (!r) throw new ProtocolError(RESOURCE_NOT_FOUND_CODE, RESOURCE_NOT_FOUND(req.params.uri));
    return r;
  });
  server.setRequestHandler('resources/subscribe', (req) => {
    if (!isResource(req.params.uri)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot subscribe to ${req.params.uri}: unknown resource.`);
    subscriptions.add(req.params.uri);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (req) => {
    subscriptions.delete(req.params.uri);
    return {};
  });
}

/** Every enabled skill is also a prompt, taking one optional `arguments` argument. */
export function registerPrompts(mcp: McpServer, services: Services): void {
  const server = mcp.server;
  server.setRequestHandler('prompts/list', (req) => {
    rejectCursor('prompts/list', req.params);
    return { prompts: listPrompts(services) };
  });
  server.setRequestHandler('prompts/get', (req) => {
    const p = getPrompt(services, req.params.name, req.params.arguments?.arguments);
    if (!p) throw new ProtocolError(ProtocolErrorCode.InvalidParams, PROMPT_NOT_FOUND(req.params.name));
    return p;
  });
}
