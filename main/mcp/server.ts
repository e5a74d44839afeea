import { McpServer, ProtocolError, ProtocolErrorCode, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import type { Services, ToolContext, ToolGroup } from '../tools/types.js';
import { ToolRegistry, formatZodError } from './registry.js';
import { UserError, errorMessage } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import { logger } from '../core/log.js';
import type { EventBus } from './events.js';
import type { SettingsChange } from '../core/settings/settings.js';

const log = logger('mcp');

export const SERVER_INSTRUCTIONS =
  'Pincer gives you local tools: Bash for quick shell commands; BackgroundBash, ReadBgOutput, ListBgTasks and KillBgTask for ' +
  'long-running jobs that survive restarts. Prefer ReadBgOutput with wait_ms over polling.';

export interface ServerOptions {
  services: Services;
  registry: ToolRegistry;
  events?: EventBus;
  /** Which transport serves this instance, for activity records. */
  transport: string;
  /** Serve only one group's tools (the hub's per-group endpoints). */
  group?: ToolGroup;
}

/**
 * One MCP server instance per session, all from this factory. Tools are
 * served by Pincer's own tools/list and tools/call handlers so that the
 * settings decide visibility on every request and every failure is a
 * result the model can act on.
 */
export function createPincerServer(opts: ServerOptions): McpServer {
  const { services, registry } = opts;
  const mcp = new McpServer(
    { name: 'pincer', title: 'Pincer', version: VERSION },
    { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: SERVER_INSTRUCTIONS },
  );
  const server = mcp.server;

  server.setRequestHandler('tools/list', () => ({ tools: registry.visible(opts.group).map((t) => registry.describe(t)) }));

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    const tool = registry.byName.get(name);
    if (!tool || (opts.group && tool.group !== opts.group)) {
      const where = opts.group ? ` in the ${opts.group} group` : '';
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}${where}. tools/list shows the available tools.`);
    }
    if (registry.servingPaused()) {
      return failure(`Pincer: serving is paused (TOOLS=false). Ask the user to resume serving from the Pincer tray menu or dashboard.`);
    }
    if (!registry.isEnabled(name)) {
      return failure(`${name} is turned off in Pincer (TOOL_${name.toUpperCase()}=false). Ask the user to enable it in the dashboard or pincer-env.txt.`);
    }
    const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      return failure(`${name}: invalid arguments: ${formatZodError(parsed.error)}. The input schema in tools/list shows what ${name} takes.`);
    }
    const callId = randomUUID();
    const started = Date.now();
    const session = ctx.sessionId;
    const client = server.getClientVersion()?.name;
    opts.events?.publish({ type: 'tool_call_started', id: callId, tool: name, session, client, args: summarize(parsed.data), at: started });
    let result: CallToolResult;
    try {
      result = await tool.handler(parsed.data, toolContext(services, ctx));
    } catch (err) {
      if (!(err instanceof UserError)) log.error(`${name} failed`, { err });
      result = failure(err instanceof UserError ? err.message : `${name} failed: ${errorMessage(err)}`);
    }
    opts.events?.publish({
      type: 'tool_call_finished',
      id: callId,
      tool: name,
      session,
      client,
      ms: Date.now() - started,
      isError: Boolean(result.isError),
      summary: summarizeResult(result),
      at: Date.now(),
    });
    const schemas = registry.schemas(tool);
    return server.projectCallToolResult(result, result.isError ? undefined : schemas.output);
  });

  const onSettings = (change: SettingsChange) => {
    if (change.changed.some((k) => k === 'TOOLS' || k.startsWith('TOOL_'))) {
      if (mcp.isConnected()) mcp.sendToolListChanged();
    }
  };
  services.settings.on('change', onSettings);
  const previous = server.onclose;
  server.onclose = () => {
    services.settings.off('change', onSettings);
    previous?.();
  };
  return mcp;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function toolContext(services: Services, ctx: ServerContext): ToolContext {
  const token = ctx.mcpReq._meta?.progressToken;
  let step = 0;
  return {
    services,
    signal: ctx.mcpReq.signal,
    sessionId: ctx.sessionId,
    wantsProgress: token !== undefined,
    async progress(message, progress, total) {
      if (token === undefined) return;
      // Progress must increase with every notification.
      step = Math.max(step + 1, progress ?? 0);
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, ...(total ? { total } : {}), message } });
    },
  };
}

function summarize(args: unknown): string {
  const text = JSON.stringify(args) ?? '';
  return text.length > 200 ? text.slice(0, 197) + '...' : text;
}

function summarizeResult(result: CallToolResult): string {
  const first = result.content.find((c) => c.type === 'text');
  const text = first && 'text' in first ? first.text : `${result.content.length} content block(s)`;
  return text.length > 200 ? text.slice(0, 197) + '...' : text;
}
