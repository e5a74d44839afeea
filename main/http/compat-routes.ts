import express, { type Request, type Response } from 'express';
import { TOOL_GROUPS, type ToolGroup } from '../tools/types.js';
import type { Dispatcher } from '../transports/dispatch.js';
import type { Runtime } from '../calls/runtime.js';
import { Caller } from '../calls/caller.js';
import type { ToolCalls } from '../calls/calls.js';
import { clientHandleFrom } from '../mcp/client-identity.js';
import { PAUSED_MESSAGE } from '../calls/call-errors.js';
import { HTTP_STATUS, RPC, RPC_REFUSALS, rpcErrorBody } from '../core/wire-errors.js';
import { RESOURCES, readResource, listPrompts, getPrompt, RESOURCE_NOT_FOUND, PROMPT_NOT_FOUND } from '../calls/served-resources.js';
import { sendError, sendRpcError } from '../access/respond.js';
import { bodyOf, objectBody } from './express-body.js';

export interface CompatDeps {
  dispatcher: Dispatcher;
  runtime: Runtime;
}

/** The identity a client that sent X-Pincer-Client has on every surface (the same id the MCP server factory uses). */
function namedCaller(transport: string, id: string): Caller {
  const c = new Caller(transport, `client:${id}`);
  // Callbacks may have been set under this identity through another surface.
  c.hasCallbacks = true;
  return c;
}

function groupParam(req: Request, res: Response, answer: (message: string) => void = (message) => sendError(res, 'NOT_FOUND', message)): ToolGroup | undefined | false {
  const g = (req.params.group ?? req.query.group ?? req.query.stream) as string | undefined;
  if (g === undefined || g === '') return undefined;
  if ((TOOL_GROUPS as readonly string[]).includes(g)) return g as ToolGroup;
  answer(`No tool group "${g}". Groups: ${TOOL_GROUPS.join(', ')}.`);
  return false;
}

/**
 * A JSON-RPC route's answer for an unknown group: still JSON-RPC (a script reads `error.code`), one
 * error per request of a batch with each request's id, with the 404 that says the route is not there.
 */
function groupNotFound(req: Request, res: Response, message: string): void {
  const parsed = bodyOf(req);
  const idOf = (m: unknown): string | number | null => {
    const id = m && typeof m === 'object' && 'id' in m ? m.id : null;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  };
  const error = (id: string | number | null) => rpcErrorBody(RPC_REFUSALS.METHOD_NOT_FOUND.code, `Method not found: ${message} POST to /api/mcp/jsonrpc, or /api/mcp/jsonrpc/<group> with one of those.`, id, { groups: [...TOOL_GROUPS] });
  const body = parsed.ok && Array.isArray(parsed.value) && parsed.value.length > 0 ? parsed.value.map((m) => error(idOf(m))) : error(parsed.ok ? idOf(parsed.value) : null);
  res.status(RPC_REFUSALS.METHOD_NOT_FOUND.status).json(body);
}

/** Aborts the in-flight call when the HTTP client goes away. */
function abortOnClose(res: Response): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  return ac.signal;
}

/** The plain JSON-RPC endpoint and the REST routes scripts and older platforms use (seed 002). */
export function compatRouter(deps: CompatDeps): express.Router {
  const r = express.Router();
  jsonRpcRoutes(r, deps.dispatcher);
  toolListRoutes(r, deps.runtime.calls);
  toolCallRoute(r, deps.runtime.calls);
  resourceAndPromptRoutes(r, deps.runtime.services);
  return r;
}

/** POST /api/mcp/jsonrpc[/:group]: one JSON-RPC request or a batch, without a session. */
function jsonRpcRoutes(r: express.Router, dispatcher: Dispatcher): void {
  const jsonrpc = async (req: Request, res: Response) => {
    const group = groupParam(req, res, (message) => groupNotFound(req, res, message));
    if (group === false) return;
    const parsed = bodyOf(req);
    if (!parsed.ok) {
      // In-band, as every answer of this endpoint: HTTP says the route took the request.
      res.status(200).json(rpcErrorBody(RPC.ParseError, `Parse error: the request body is not valid JSON (${parsed.error})`));
      return;
    }
    const signal = abortOnClose(res);
    // X-Pincer-Client / X-Pincer-Cwd: the caller's folder and its project's settings, as on /mcp.
    const client = clientHandleFrom(req.headers);
    if (Array.isArray(parsed.value)) {
      const answers = await dispatcher.handleBatch(parsed.value, group, signal, client);
      if (answers.length === 0) res.status(202).end();
      else res.json(answers);
      return;
    }
    const answer = await dispatcher.handle(parsed.value, group, signal, client);
    if (answer === undefined) res.status(202).end();
    else res.json(answer);
  };
  r.post('/api/mcp/jsonrpc', jsonrpc);
  r.post('/api/mcp/jsonrpc/:group', jsonrpc);
  // Only POST carries JSON-RPC here; other methods are told so (405), not "no route" (404).
  r.all(['/api/mcp/jsonrpc', '/api/mcp/jsonrpc/:group'], (req, res) => {
    sendRpcError(res, 'METHOD_NOT_ALLOWED', `Method Not Allowed: ${req.method} ${req.path}. POST a JSON-RPC 2.0 request (or batch) here.`, { headers: { Allow: 'POST' } });
  });
}

/** The tools being served: all, by group, one by name. */
function toolListRoutes(r: express.Router, calls: ToolCalls): void {
  r.get('/api/mcp/tools', async (req, res) => {
    const group = groupParam(req, res);
    if (group === false) return;
    const handle = clientHandleFrom(req.headers);
    const tools = await calls.listFor(group, handle.cwd ? () => handle.cwd : undefined);
    res.json({ success: true, tools, count: tools.length, ...(calls.paused ? { paused: true, message: PAUSED_MESSAGE } : {}) });
  });

  // Seed 002 calls the groups "streams": /tools/streams is the same answer as /tools/groups.
  const groupsView = (_req: Request, res: Response) => {
    const groups: Record<string, unknown[]> = {};
    for (const g of TOOL_GROUPS) groups[g] = calls.list(g);
    res.json({ success: true, groups, streams: [...TOOL_GROUPS], count: TOOL_GROUPS.length });
  };
  r.get('/api/mcp/tools/groups', groupsView);
  r.get('/api/mcp/tools/streams', groupsView);

  r.get('/api/mcp/tools/stream/:group', (req, res) => {
    const group = groupParam(req, res);
    if (group === false || group === undefined) return;
    const tools = calls.list(group);
    res.json({ success: true, stream: group, tools, count: tools.length });
  });

  r.get('/api/mcp/tools/:name', (req, res) => {
    const tool = calls.describe(String(req.params.name));
    if (!tool) {
      sendError(res, 'TOOL_NOT_FOUND', `No tool "${req.params.name}" is being served. GET /api/mcp/tools lists them.`);
      return;
    }
    res.json({ success: true, tool });
  });
}

/** POST /api/mcp/tools/call: a tool's result as JSON, its error mapped to an HTTP status. */
function toolCallRoute(r: express.Router, calls: ToolCalls): void {
  // REST callers have no session: they share one identity, as the JSON-RPC endpoint does.
  const restCaller = new Caller('rest');
  r.post('/api/mcp/tools/call', async (req, res) => {
    const body = objectBody(req, res);
    if (!body) return;
    if (typeof body.name !== 'string') {
      sendError(res, 'INVALID_INPUT', 'Send a JSON body {"name": "<tool>", "arguments": {...}}.', { isError: true });
      return;
    }
    const started = Date.now();
    // A script that names itself (X-Pincer-Client) gets its own callbacks and folder; others share one identity.
    const handle = clientHandleFrom(req.headers);
    const caller = handle.id ? namedCaller('rest', handle.id) : restCaller;
    const workdir = handle.cwd ? () => handle.cwd : undefined;
    const { result, error } = await calls.call({ name: body.name, arguments: body.arguments ?? {}, caller, channel: { signal: abortOnClose(res), workdir } });
    const metadata = { tool: body.name, duration: `${Date.now() - started}ms`, timestamp: Date.now() };
    if (error && HTTP_STATUS[error.code] !== HTTP_STATUS.TOOL_FAILED) {
      sendError(res, error.code, error.message, { isError: true, metadata });
      return;
    }
    // A tool's own failure is a 200 result the model reads; `error` names its code (and the UserError's reason) for scripts.
    const failed = error ? { error: { code: error.code, ...(error.reason ? { reason: error.reason } : {}), message: error.message } } : {};
    // _meta too: a result without structured content (ReadBgOutput) says its status there.
    res.json({ success: !result.isError, content: result.content, ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}), ...(result._meta ? { _meta: result._meta } : {}), isError: Boolean(result.isError), ...failed, metadata });
  });
}

/** The resources and prompts, read as JSON. */
function resourceAndPromptRoutes(r: express.Router, services: Runtime['services']): void {
  r.get('/api/mcp/resources', (_req, res) => {
    res.json({ success: true, resources: RESOURCES, count: RESOURCES.length });
  });

  r.get('/api/mcp/resources/:uri', (req, res) => {
    const uri = String(req.params.uri);
    const resource = readResource(services, uri);
    if (!resource) sendError(res, 'NOT_FOUND', RESOURCE_NOT_FOUND(uri));
    else res.json({ success: true, resource });
  });

  r.get('/api/mcp/prompts', (_req, res) => {
    const prompts = listPrompts(services);
    res.json({ success: true, prompts, count: prompts.length });
  });

  r.post('/api/mcp/prompts/:name', (req, res) => {
    const body = objectBody(req, res);
    if (!body) return;
    const name = String(req.params.name);
    const args = body.arguments;
    const prompt = getPrompt(services, name, typeof args === 'object' && args !== null ? stringArg(args) : typeof args === 'string' ? args : undefined);
    if (!prompt) sendError(res, 'NOT_FOUND', PROMPT_NOT_FOUND(name));
    else res.json({ success: true, prompt });
  });
}

/** Prompts take one optional `arguments` string; REST callers may send it as `{arguments: {arguments: "…"}}`. */
function stringArg(args: object): string | undefined {
  const v = (args as { arguments?: unknown }).arguments;
  return typeof v === 'string' ? v : undefined;
}
