import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY, McpServer, MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, createRequestStateCodec, inputRequired, inputResponse, type CallToolResult, type InputRequests, type LoggingLevel, type ServerContext } from '@modelcontextprotocol/server';
import { randomBytes } from 'node:crypto';
import { ASK_IN_CLIENT, NEED_INPUT, MISSING_CAPABILITY, PROTOCOL_FAILURE, type AskInClient, type NeedInput, type RoundTrip, type Rounds, type Services, type ToolGroup, type ClientAsk } from '../tools/types.js';
import type { ToolCalls, CallChannel } from '../calls/calls.js';
import type { Notifier } from '../calls/notifier.js';
import { Caller } from '../calls/caller.js';
import { JSONRPC_ERROR } from '../calls/call-errors.js';
import { fileURLToPath } from 'node:url';
import { SERVER_CAPABILITIES, SERVER_INFO, SERVER_INSTRUCTIONS } from './server-info.js';
import { DisposableStore } from '../core/disposables.js';
import { registerResources, registerPrompts, registerCompletion, rejectCursor } from './surfaces.js';
import type { Contributions } from '../calls/contributions.js';
import type { TaskRunner, TaskOutcome } from '../calls/task-runner.js';
import { createTaskResult, missingTasksCapability, registerTaskMethods, tasksNegotiated } from './tasks.js';
import { statelessIdentity, type ClientHandle } from './client-identity.js';

export { SERVER_INSTRUCTIONS, SERVER_CAPABILITIES } from './server-info.js';

/** MCP's log levels, least severe first (RFC 5424 order). */
const LOG_SEVERITY: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What every MCP server instance is built from: the hub core and the process's services. */
export interface ServerDeps {
  services: Services;
  calls: ToolCalls;
  notifier: Notifier;
  contributions: Contributions;
  mcpTasks: TaskRunner;
}

export interface ServerOptions {
  /** Which transport serves this instance (activity records and the dashboard show it). */
  transport: string;
  /** Serve only one group's tools (the hub's per-group endpoints). */
  group?: ToolGroup;
  /** 'modern': this instance serves one stateless 2026-07-28 HTTP request (not a connection). */
  era?: 'legacy' | 'modern';
  /** X-Pincer-Client / X-Pincer-Cwd of the connection or request, when the client sent them. */
  client?: ClientHandle;
}

/**
 * One MCP server instance per session (or per stateless request), all from
 * this factory: a thin adapter from MCP's tools/list and tools/call to the
 * hub core, which decides visibility on every request.
 */
/**
 * Seals the question id a multi round-trip ask hands the client: the client
 * echoes it back, so it is integrity-protected. Every round of a flow is
 * served by this process (the hub, or one stdio process), so a per-process key
 * does; a hub restart between rounds makes the client's retry fail verification.
 */
const askState = createRequestStateCodec<RoundState>({ key: randomBytes(32), ttlSeconds: 24 * 3600 });

/** What a round trip carries to its retry: the question AskUserQuestion put, or a tool's earlier answers. */
interface RoundState {
  questionId?: number;
  replay?: unknown[];
}

export function createPincerServer(deps: ServerDeps, opts: ServerOptions): McpServer {
  const { services, calls } = deps;
  const mcp = new McpServer(
    SERVER_INFO,
    { capabilities: SERVER_CAPABILITIES, instructions: SERVER_INSTRUCTIONS, requestState: { verify: (state, ctx) => askState.verify(state, ctx) } },
  );
  const server = mcp.server;
  const nameOf = () => server.getClientVersion()?.name;
  // "This client": X-Pincer-Client when sent (the bridge's id, the same for every session it opens),
  // else this session; a stateless request without the header is its client's name and version.
  const named = opts.client?.id ? new Caller(opts.transport, `client:${opts.client.id}`, nameOf) : undefined;
  // An identity outliving this instance may have callbacks set through an earlier one.
  if (named) named.hasCallbacks = true;
  const caller = named ?? new Caller(opts.transport, undefined, nameOf);
  const callerForCall = (): Caller => {
    if (named || opts.era !== 'modern') return caller;
    const c = new Caller(opts.transport, statelessIdentity(server.getClientVersion()), nameOf);
    c.hasCallbacks = true;
    return c;
  };
  const subscriptions = new Set<string>();
  // Log messages (callback fires) go only to a 2025-era client that asked for them with
  // logging/setLevel; a 2026-07-28 client opts in per request, for that request's stream only.
  let logLevel: LoggingLevel | undefined;
  server.setRequestHandler('logging/setLevel', (req) => {
    logLevel = req.params.level;
    return {};
  });
  const wantsFires = (): boolean =>
    mcp.isConnected() && logLevel !== undefined && LOG_SEVERITY.indexOf(logLevel) <= LOG_SEVERITY.indexOf('info') && (server.getNegotiatedProtocolVersion() ?? '') < '2026-07-28';
  registerResources(mcp, services, deps.contributions, subscriptions);
  registerPrompts(mcp, services, deps.contributions, {
    context: (ctx) => ({ services, wantsProgress: false, progress: async () => undefined, ...channelOf(ctx, server, services), workdir, rounds: roundsOf(ctx, server) }),
    inputRequired: async (need) => inputRequired({ inputRequests: need.inputRequests as InputRequests, requestState: await askState.mint({ replay: need.replay }) }),
  });
  registerCompletion(mcp, services, deps.contributions);

  server.setRequestHandler('tools/list', async (req) => {
    rejectCursor('tools/list', req.params);
    return { tools: await calls.listFor(opts.group, workdir) };
  });
  registerTaskMethods(mcp, deps.mcpTasks);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const support = calls.registry.byName.get(request.params.name)?.taskSupport;
    if (support) {
      const canTask = tasksNegotiated(ctx, server);
      if (!canTask && support === 'required') throw missingTasksCapability(request.params.name);
      if (canTask) {
        // The call runs on after this answer: nothing of this request's stream (progress, forms) outlives it.
        const caller = callerForCall();
        const clientCapabilities = capabilitiesOf(ctx, server);
        const row = deps.mcpTasks.start(request.params.name, caller.clientName, async (signal, taskId): Promise<TaskOutcome> => {
          const channel = { workdir, signal, clientCapabilities, taskInput: (requests: Record<string, { method: ClientAsk; params: Record<string, unknown> }>) => deps.mcpTasks.askInput(taskId, requests) };
          const outcome = await calls.call({ name: request.params.name, arguments: request.params.arguments, caller, group: opts.group, channel });
          const protocolCode = outcome.error ? JSONRPC_ERROR[outcome.error.code] : undefined;
          if (protocolCode !== undefined) return { error: { code: protocolCode, message: outcome.error!.message } };
          const failure = outcome.result._meta?.[PROTOCOL_FAILURE];
          if (failure && typeof failure === 'object') return { error: failure as { code: number; message: string } };
          return { result: server.projectCallToolResult(outcome.result, outcome.outputSchema) };
        });
        return createTaskResult(row) as CallToolResult;
      }
    }
    const outcome = await calls.call({ name: request.params.name, arguments: request.params.arguments, caller: callerForCall(), group: opts.group, channel: { ...channelOf(ctx, server, services), workdir, roundTrip: roundTripOf(ctx, server), rounds: roundsOf(ctx, server) } });
    const ask = askInClientOf(outcome.result);
    if (ask) {
      return inputRequired({ inputRequests: { ask: inputRequired.elicit(ask.params) }, requestState: await askState.mint({ questionId: ask.questionId }) });
    }
    const failure = outcome.result._meta?.[PROTOCOL_FAILURE];
    if (failure && typeof failure === 'object' && 'code' in failure && typeof failure.code === 'number') throw new ProtocolError(failure.code, firstTextOf(outcome.result));
    const lacking = outcome.result._meta?.[MISSING_CAPABILITY];
    if (Array.isArray(lacking) && isModern(ctx, server)) {
      throw new MissingRequiredClientCapabilityError({ requiredCapabilities: Object.fromEntries(lacking.map((c) => [String(c), {}])) }, firstTextOf(outcome.result));
    }
    const need = needInputOf(outcome.result);
    if (need) return inputRequired({ inputRequests: need.inputRequests as InputRequests, requestState: await askState.mint({ replay: need.replay }) });
    const protocolCode = outcome.error ? JSONRPC_ERROR[outcome.error.code] : undefined;
    if (protocolCode !== undefined) throw new ProtocolError(protocolCode as ProtocolErrorCode, outcome.error!.message);
    return server.projectCallToolResult(outcome.result, outcome.outputSchema);
  });

  // The client's working folder: its first root when it declares roots (asked once, again after
  // roots/list_changed), else the folder its bridge or this stdio process started in.
  // Once known, the first root is returned synchronously (see CallChannel.workdir).
  let roots: { pending: Promise<string | undefined> } | { known: string | undefined } | undefined;
  server.setNotificationHandler('notifications/roots/list_changed', () => {
    roots = undefined;
  });
  const workdir = (): string | undefined | Promise<string | undefined> => {
    // 2026-07-28 has no server-to-client requests outside multi round-trip results.
    if (!server.getClientCapabilities()?.roots || (server.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28') return opts.client?.cwd;
    if (roots && 'known' in roots) return roots.known ?? opts.client?.cwd;
    if (!roots) {
      const asked: { pending: Promise<string | undefined> } = {
        pending: server
          .listRoots(undefined, { timeout: 5000 })
          .then((r) => firstRootPath(r.roots))
          // A client that does not answer roots/list in time has no roots for us: its working folder comes from the next rule.
          .catch(() => undefined)
          .then((root) => {
            if (roots === asked) roots = { known: root };
            return root;
          }),
      };
      roots = asked;
    }
    return roots.pending.then((root) => root ?? opts.client?.cwd);
  };

  const lifetime = new DisposableStore();
  lifetime.add(
    deps.notifier.register({
      caller,
      toolsChanged: () => mcp.sendToolListChanged(),
      promptsChanged: () => mcp.sendPromptListChanged(),
      resourcesChanged: () => mcp.sendResourceListChanged(),
      resourceUpdated: (uri) => {
        // A notice to a client that left: there is no one to tell.
        if (mcp.isConnected() && subscriptions.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => undefined);
      },
      wantsFires,
      callbackFired: (text) => {
        // A notice to a client that left: the fire stays in the next result (pincer_notices) anyway.
        void server.sendLoggingMessage({ level: 'info', logger: 'pincer.callback', data: text }).catch(() => undefined);
      },
    }),
  );
  server.onclose = () => lifetime.dispose();
  return mcp;
}

/**
 * Multi round-trip asking: a 2026-07-28 client that can show a form gets the
 * question as an input_required result and retries with the answer.
 */
function roundTripOf(ctx: ServerContext, server: McpServer['server']): RoundTrip | undefined {
  // A 2026-07-28 request carries its version and capabilities in its own envelope (stdio included).
  const envelope: Record<string, unknown> = ctx.mcpReq.envelope ?? {};
  const version = envelope[PROTOCOL_VERSION_META_KEY] ?? server.getNegotiatedProtocolVersion();
  const caps = envelope[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities();
  const canElicit = typeof caps === 'object' && caps !== null && 'elicitation' in caps && Boolean(caps.elicitation);
  if (typeof version !== 'string' || version < '2026-07-28' || !canElicit) return undefined;
  const state = ctx.mcpReq.requestState<RoundState>();
  const reply = inputResponse(ctx.mcpReq.inputResponses, 'ask');
  if (!state || typeof state !== 'object' || typeof state.questionId !== 'number' || reply.kind !== 'elicit') return {};
  return { answer: { questionId: state.questionId, result: { action: reply.action, ...(reply.content ? { content: reply.content as Record<string, string> } : {}) } } };
}

/** Whether this request is served on 2026-07-28 (its own envelope says so, stdio included). */
function isModern(ctx: ServerContext, server: McpServer['server']): boolean {
  const envelope: Record<string, unknown> = ctx.mcpReq.envelope ?? {};
  const version = envelope[PROTOCOL_VERSION_META_KEY] ?? server.getNegotiatedProtocolVersion();
  return typeof version === 'string' && version >= '2026-07-28';
}

function firstTextOf(result: CallToolResult): string {
  const t = result.content.find((c) => c.type === 'text');
  return t && 'text' in t ? t.text : 'The client lacks a capability this tool needs.';
}

/** A 2026-07-28 call's round-trip state for tools that ask the client themselves (plugins). */
function roundsOf(ctx: ServerContext, server: McpServer['server']): Rounds | undefined {
  const envelope: Record<string, unknown> = ctx.mcpReq.envelope ?? {};
  const version = envelope[PROTOCOL_VERSION_META_KEY] ?? server.getNegotiatedProtocolVersion();
  if (typeof version !== 'string' || version < '2026-07-28') return undefined;
  const state = ctx.mcpReq.requestState<RoundState>();
  const replay = state && typeof state === 'object' && Array.isArray(state.replay) ? state.replay : [];
  const responses: unknown = ctx.mcpReq.inputResponses;
  return { inputResponses: responses && typeof responses === 'object' ? { ...(responses as Record<string, unknown>) } : {}, replay };
}

function needInputOf(result: CallToolResult): NeedInput | undefined {
  const need = result._meta?.[NEED_INPUT];
  return need && typeof need === 'object' ? (need as NeedInput) : undefined;
}

function askInClientOf(result: CallToolResult): AskInClient | undefined {
  const ask = result._meta?.[ASK_IN_CLIENT];
  return ask && typeof ask === 'object' ? (ask as AskInClient) : undefined;
}

/** The first file:// root as a local path; other URI schemes are not folders Bash can run in. */
function firstRootPath(roots: { uri: string }[]): string | undefined {
  for (const r of roots) {
    if (!r.uri.startsWith('file:')) continue;
    try {
      return fileURLToPath(r.uri);
    } catch {
      // Not a local path (a remote host): try the next root.
    }
  }
  return undefined;
}

/** The per-call channel back to this client: its cancel signal, progress and (2025-era) elicitation. */
function channelOf(ctx: ServerContext, server: McpServer['server'], services: Services): CallChannel {
  const token = ctx.mcpReq._meta?.progressToken;
  let step = 0;
  const modern = (server.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28';
  const canElicit = !modern && Boolean(server.getClientCapabilities()?.elicitation);
  return {
    signal: ctx.mcpReq.signal,
    progress:
      token === undefined
        ? undefined
        : async (message, progress, total) => {
            // Progress must increase with every notification.
            step = Math.max(step + 1, progress ?? 0);
            await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, ...(total ? { total } : {}), message } });
          },
    // No timeout of our own: the person may take minutes; the client's cancel or ASK_TIMEOUT_S ends it.
    // Sent on this request's own stream (related to the tools/call), which every transport delivers.
    elicit: canElicit ? (params, signal) => ctx.mcpReq.send({ method: 'elicitation/create', params }, { timeout: services.settings.get('ASK_TIMEOUT_S') * 1000, signal }) : undefined,
    log: (level, data) => ctx.mcpReq.log(level, data),
    request: modern ? undefined : (method: ClientAsk, params, signal) => sendToClient(ctx, method, params, services.settings.get('ASK_TIMEOUT_S') * 1000, signal),
    clientCapabilities: capabilitiesOf(ctx, server),
  };
}


/** A 2025-era request to the client on this call's stream, typed by its method. */
async function sendToClient(ctx: ServerContext, method: ClientAsk, params: Record<string, unknown>, timeout: number, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const options = { timeout, ...(signal ? { signal } : {}) };
  // The SDK types each method's params; a plugin's come as plain JSON, checked by the client's answer.
  const result: unknown = await ctx.mcpReq.send({ method, params } as { method: ClientAsk; params: Record<string, unknown> }, options);
  return result && typeof result === 'object' ? (result as Record<string, unknown>) : {};
}

/** The capabilities the client declared: a 2026-07-28 request's own envelope, else the session's. */
function capabilitiesOf(ctx: ServerContext, server: McpServer['server']): Record<string, unknown> {
  const envelope: Record<string, unknown> = ctx.mcpReq.envelope ?? {};
  const caps: unknown = envelope[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities();
  return caps && typeof caps === 'object' ? { ...(caps as Record<string, unknown>) } : {};
}
