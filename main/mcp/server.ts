import { McpServer, ProtocolError, ProtocolErrorCode, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import type { Services, ToolContext, ToolGroup } from '../tools/types.js';
import { ToolRegistry, formatZodError } from './registry.js';
import { UserError, errorMessage } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import { preview } from '../core/format.js';
import { logger } from '../core/log.js';
import type { EventBus } from './events.js';
import type { SettingsChange } from '../core/settings/settings.js';
import type { HubEvent } from './events.js';
import { fireText } from '../tools/workflow/scheduler.js';
import { registerResources, registerPrompts, TASKS_URI, PLAN_URI } from './surfaces.js';

const log = logger('mcp');

export const SERVER_INSTRUCTIONS =
  'Pincer gives you local tools: Bash for quick shell commands; BackgroundBash, ReadBgOutput, ListBgTasks and KillBgTask for ' +
  'long-running jobs that survive restarts (prefer ReadBgOutput with wait_ms over polling); TaskManager and PlanMode to keep a ' +
  'checklist and a plan; SetCallback to be reminded later; InvokeSkill for reusable skills; AskUserQuestion to ask the person.';

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
    {
      capabilities: { tools: { listChanged: true }, logging: {}, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true } },
      instructions: SERVER_INSTRUCTIONS,
    },
  );
  const server = mcp.server;
  // Pincer's own id for this session: callbacks and questions are addressed to it, on every transport.
  const session = randomUUID();
  let hasCallbacks = false;
  const subscriptions = new Set<string>();
  registerResources(mcp, services, subscriptions);
  registerPrompts(mcp, services);

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
    const transportSession = ctx.sessionId ?? session;
    const client = server.getClientVersion()?.name;
    opts.events?.publish({ type: 'tool_call_started', id: callId, tool: name, session: transportSession, client, args: summarize(parsed.data), at: started });
    let result: CallToolResult;
    try {
      if (name === 'SetCallback') hasCallbacks = true;
      result = await tool.handler(parsed.data, toolContext(services, ctx, session, client, server));
    } catch (err) {
      if (!(err instanceof UserError)) log.error(`${name} failed`, { err });
      result = failure(err instanceof UserError ? err.message : `${name} failed: ${errorMessage(err)}`);
    }
    opts.events?.publish({
      type: 'tool_call_finished',
      id: callId,
      tool: name,
      session: transportSession,
      client,
      ms: Date.now() - started,
      isError: Boolean(result.isError),
      summary: summarizeResult(result),
      at: Date.now(),
    });
    if (hasCallbacks) result = prependFires(services, session, result);
    const schemas = registry.schemas(tool);
    return server.projectCallToolResult(result, result.isError ? undefined : schemas.output);
  });

  const deliverNotifications = () => {
    if (!hasCallbacks || !mcp.isConnected()) return;
    for (const f of services.callbacks.claimNotifications(session)) {
      void server.sendLoggingMessage({ level: 'info', logger: 'pincer.callback', data: fireText(f) }).catch(() => undefined);
    }
  };
  // Fires claimed by another Pincer process reach this session through the database.
  const poll = setInterval(deliverNotifications, 1000);
  poll.unref();
  const onEvent = (e: HubEvent) => {
    if (!mcp.isConnected()) return;
    if (e.type === 'callback_fired') deliverNotifications();
    else if (e.type === 'tasks_changed' && subscriptions.has(TASKS_URI)) void server.sendResourceUpdated({ uri: TASKS_URI }).catch(() => undefined);
    else if (e.type === 'plan_changed' && subscriptions.has(PLAN_URI)) void server.sendResourceUpdated({ uri: PLAN_URI }).catch(() => undefined);
    else if (e.type === 'skills_changed') {
      mcp.sendToolListChanged();
      mcp.sendPromptListChanged();
    }
  };
  services.events.on('event', onEvent);

  const onSettings = (change: SettingsChange) => {
    if (change.changed.some((k) => k === 'TOOLS' || k.startsWith('TOOL_'))) {
      if (mcp.isConnected()) mcp.sendToolListChanged();
    }
  };
  services.settings.on('change', onSettings);
  const previous = server.onclose;
  server.onclose = () => {
    services.settings.off('change', onSettings);
    services.events.off('event', onEvent);
    clearInterval(poll);
    previous?.();
  };
  return mcp;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function toolContext(services: Services, ctx: ServerContext, session: string, clientName: string | undefined, server: McpServer['server']): ToolContext {
  const token = ctx.mcpReq._meta?.progressToken;
  let step = 0;
  const modern = (server.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28';
  const canElicit = !modern && Boolean(server.getClientCapabilities()?.elicitation);
  return {
    services,
    signal: ctx.mcpReq.signal,
    sessionId: session,
    clientName,
    wantsProgress: token !== undefined,
    async progress(message, progress, total) {
      if (token === undefined) return;
      // Progress must increase with every notification.
      step = Math.max(step + 1, progress ?? 0);
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, ...(total ? { total } : {}), message } });
    },
    // No timeout of our own: the person may take minutes; the client's cancel or ASK_TIMEOUT_S ends it.
    // Sent on this request's own stream (related to the tools/call), which every
    // transport delivers, rather than as an unrelated server request.
    elicit: canElicit ? (params) => ctx.mcpReq.send({ method: 'elicitation/create', params }, { timeout: services.settings.get('ASK_TIMEOUT_S') * 1000 }) : undefined,
  };
}

/** Fired callbacks waiting for this session go in front of the result the model reads next. */
function prependFires(services: Services, session: string, result: CallToolResult): CallToolResult {
  const fires = services.callbacks.claimUndelivered(session);
  if (fires.length === 0) return result;
  return { ...result, content: [{ type: 'text', text: fires.map(fireText).join('\n') }, ...result.content] };
}

function summarize(args: unknown): string {
  return preview(JSON.stringify(args) ?? '');
}

function summarizeResult(result: CallToolResult): string {
  const first = result.content.find((c) => c.type === 'text');
  return preview(first && 'text' in first ? first.text : `${result.content.length} content block(s)`);
}
