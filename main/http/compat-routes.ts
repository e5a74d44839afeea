import express, { type Request, type Response } from 'express';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { TOOL_GROUPS, type ToolGroup } from '../tools/types.js';
import type { Dispatcher } from './dispatch.js';
import { PAUSED_MESSAGE } from './dispatch.js';
import type { ToolRegistry } from '../mcp/registry.js';
import { jsonRpcErrorBody } from './security.js';

export interface CompatDeps {
  dispatcher: Dispatcher;
  registry: ToolRegistry;
  parseBody: (req: Request) => { ok: true; value: unknown } | { ok: false };
}

function groupParam(req: Request, res: Response): ToolGroup | undefined | false {
  const g = (req.params.group ?? req.query.group ?? req.query.stream) as string | undefined;
  if (g === undefined || g === '') return undefined;
  if ((TOOL_GROUPS as readonly string[]).includes(g)) return g as ToolGroup;
  res.status(404).json({ success: false, error: { code: 'GROUP_NOT_FOUND', message: `No tool group "${g}". Groups: ${TOOL_GROUPS.join(', ')}.` } });
  return false;
}

/** Aborts the in-flight call when the HTTP client goes away. */
function abortOnClose(res: Response): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  return ac.signal;
}

function resultOf(msg: JSONRPCMessage | undefined): { result?: Record<string, unknown>; error?: { code: number; message: string } } {
  return (msg ?? {}) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** The plain JSON-RPC endpoint and the REST routes scripts and older platforms use (seed 002). */
export function compatRouter(deps: CompatDeps): express.Router {
  const r = express.Router();
  const { dispatcher, registry } = deps;

  const jsonrpc = async (req: Request, res: Response) => {
    const group = groupParam(req, res);
    if (group === false) return;
    const parsed = deps.parseBody(req);
    if (!parsed.ok) {
      res.status(200).json(jsonRpcErrorBody(-32700, 'Parse error: the request body is not valid JSON'));
      return;
    }
    const signal = abortOnClose(res);
    if (Array.isArray(parsed.value)) {
      const answers = await dispatcher.handleBatch(parsed.value, group, signal);
      if (answers.length === 0) res.status(202).end();
      else res.json(answers);
      return;
    }
    const answer = await dispatcher.handle(parsed.value, group, signal);
    if (answer === undefined) res.status(202).end();
    else res.json(answer);
  };
  r.post('/api/mcp/jsonrpc', jsonrpc);
  r.post('/api/mcp/jsonrpc/:group', jsonrpc);

  r.get('/api/mcp/tools', async (req, res) => {
    const group = groupParam(req, res);
    if (group === false) return;
    const { result } = resultOf(await dispatcher.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, group));
    const tools = (result?.tools as unknown[]) ?? [];
    res.json({ success: true, tools, count: tools.length, ...(registry.servingPaused() ? { paused: true, message: PAUSED_MESSAGE } : {}) });
  });

  r.get('/api/mcp/tools/groups', (_req, res) => {
    const groups: Record<string, unknown[]> = {};
    for (const g of TOOL_GROUPS) groups[g] = registry.visible(g).map((t) => registry.describe(t));
    res.json({ success: true, groups, streams: [...TOOL_GROUPS], count: TOOL_GROUPS.length });
  });

  r.get('/api/mcp/tools/:name', (req, res) => {
    const tool = registry.byName.get(String(req.params.name));
    if (!tool || !registry.visible().includes(tool)) {
      res.status(404).json({ success: false, error: { code: 'TOOL_NOT_FOUND', message: `No tool "${req.params.name}" is being served. GET /api/mcp/tools lists them.` } });
      return;
    }
    res.json({ success: true, tool: { ...registry.describe(tool), group: tool.group } });
  });

  r.post('/api/mcp/tools/call', async (req, res) => {
    const parsed = deps.parseBody(req);
    const body = parsed.ok ? (parsed.value as { name?: unknown; arguments?: unknown } | undefined) : undefined;
    if (!body || typeof body !== 'object' || typeof body.name !== 'string') {
      res.status(400).json({ success: false, error: { code: 'INVALID_REQUEST', message: 'Send a JSON body {"name": "<tool>", "arguments": {...}}.' }, isError: true });
      return;
    }
    if (registry.servingPaused()) {
      res.status(503).json({ success: false, error: { code: 'SERVING_PAUSED', message: PAUSED_MESSAGE }, isError: true });
      return;
    }
    const started = Date.now();
    const { result, error } = resultOf(
      await dispatcher.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: body.name, arguments: body.arguments ?? {} } }, undefined, abortOnClose(res)),
    );
    const metadata = { tool: body.name, duration: `${Date.now() - started}ms`, timestamp: Date.now() };
    if (error) {
      const notFound = /Unknown tool/.test(error.message);
      res.status(notFound ? 404 : 400).json({ success: false, error: { code: notFound ? 'TOOL_NOT_FOUND' : 'CALL_FAILED', message: error.message }, isError: true, metadata });
      return;
    }
    res.json({ success: !result?.isError, content: result?.content ?? [], ...(result?.structuredContent ? { structuredContent: result.structuredContent } : {}), isError: Boolean(result?.isError), metadata });
  });

  r.get('/api/mcp/resources', async (_req, res) => {
    const { result } = resultOf(await dispatcher.handle({ jsonrpc: '2.0', id: 1, method: 'resources/list' }));
    const resources = (result?.resources as unknown[]) ?? [];
    res.json({ success: true, resources, count: resources.length });
  });

  r.get('/api/mcp/resources/:uri', async (req, res) => {
    const { result, error } = resultOf(await dispatcher.handle({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: String(req.params.uri) } }));
    if (error) res.status(404).json({ success: false, error: { code: 'RESOURCE_NOT_FOUND', message: error.message } });
    else res.json({ success: true, resource: result });
  });

  r.get('/api/mcp/prompts', async (_req, res) => {
    const { result } = resultOf(await dispatcher.handle({ jsonrpc: '2.0', id: 1, method: 'prompts/list' }));
    const prompts = (result?.prompts as unknown[]) ?? [];
    res.json({ success: true, prompts, count: prompts.length });
  });

  r.post('/api/mcp/prompts/:name', async (req, res) => {
    const parsed = deps.parseBody(req);
    const args = parsed.ok ? ((parsed.value as { arguments?: unknown } | undefined)?.arguments ?? {}) : {};
    const { result, error } = resultOf(await dispatcher.handle({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: String(req.params.name), arguments: args } }));
    if (error) res.status(404).json({ success: false, error: { code: 'PROMPT_NOT_FOUND', message: error.message } });
    else res.json({ success: true, prompt: result });
  });

  return r;
}
