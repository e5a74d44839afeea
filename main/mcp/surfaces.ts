import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import type { Services } from '../tools/types.js';
import { RESOURCES, isResource, readResource, listPrompts, getPrompt, RESOURCE_NOT_FOUND, PROMPT_NOT_FOUND } from '../hub/surfaces.js';

/** MCP's resource-not-found code (not in the SDK's enum). */
const RESOURCE_NOT_FOUND_CODE = -32002;

/** Tasks and the current plan as MCP resources (markdown), with subscriptions. */
export function registerResources(mcp: McpServer, services: Services, subscriptions: Set<string>): void {
  const server = mcp.server;
  server.setRequestHandler('resources/list', () => ({ resources: RESOURCES }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
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
  server.setRequestHandler('prompts/list', () => ({ prompts: listPrompts(services) }));
  server.setRequestHandler('prompts/get', (req) => {
    const p = getPrompt(services, req.params.name, req.params.arguments?.arguments);
    if (!p) throw new ProtocolError(ProtocolErrorCode.InvalidParams, PROMPT_NOT_FOUND(req.params.name));
    return p;
  });
}
