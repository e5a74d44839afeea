import { McpServer, inputRequired, type InputRequests, type LoggingLevel } from '@modelcontextprotocol/server';
import type { Services, ToolGroup } from '../tools/types.js';
import { callContext, type ToolCalls } from '../calls/calls.js';
import type { Notifier } from '../calls/notifier.js';
import { Caller } from '../calls/caller.js';
import { SERVER_CAPABILITIES, SERVER_INFO, SERVER_INSTRUCTIONS } from './server-info.js';
import { DisposableStore } from '../core/disposables.js';
import { registerResources, registerPrompts, registerCompletion, rejectCursor } from './resource-handlers.js';
import type { Contributions } from '../calls/contributions.js';
import type { TaskRunner } from '../calls/task-runner.js';
import { registerTaskMethods } from './task-methods.js';
import { statelessIdentity, type ClientHandle } from './client-identity.js';
import { askState, channelOf, connectionEra } from './request-context.js';
import { registerToolCall } from './tool-call.js';
import { appsOf } from './view-resources.js';
import { firstRootPath, type RootMemory } from './client-roots.js';
import { ignoreFailure, logger } from '../core/log.js';

const log = logger('mcp');

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
  /** This connection's identity when the transport knows it (`pincer stdio --standalone`: the process), else each instance is its own. */
  callerId?: string;
}

/**
 * One MCP server instance per session (or per stateless request), all from
 * this factory: a thin adapter from MCP's tools/list and tools/call to the
 * hub core, which decides visibility on every request.
 */
export function createPincerServer(deps: ServerDeps, opts: ServerOptions): McpServer {
  const { services, calls } = deps;
  const mcp = new McpServer(
    SERVER_INFO,
    { capabilities: SERVER_CAPABILITIES, instructions: SERVER_INSTRUCTIONS, requestState: { verify: (state, ctx) => askState.verify(state, ctx) } },
  );
  const server = mcp.server;
  const { caller, callerForCall } = callersOf(server, opts);
  const subscriptions = new Set<string>();
  const wantsFires = logLevelHandler(mcp);
  // A connection (the bridge's pipe, stdio standalone) remembers a 2026-07-28 client's roots between
  // calls; a stateless HTTP request is one call, and asks again (client-roots.ts).
  const rootMemory: RootMemory | undefined = opts.era === 'modern' ? undefined : { root: undefined };
  const workdir = clientWorkdir(server, opts, rootMemory);
  registerResources(mcp, services, deps.contributions, subscriptions);
  registerPrompts(mcp, services, deps.contributions, {
    context: (ctx, prompt) => {
      const asking = callerForCall();
      return callContext(services, asking, { ...channelOf(ctx, server, services, asking.id), workdir }, prompt);
    },
    inputRequired: async (need) => inputRequired({ inputRequests: need.inputRequests as InputRequests, requestState: await askState.mint({ replay: need.replay, client: callerForCall().id }) }),
  });
  registerCompletion(mcp, services, deps.contributions);

  server.setRequestHandler('tools/list', async (req, ctx) => {
    rejectCursor('tools/list', req.params);
    return { tools: await calls.listFor(opts.group, workdir, appsOf(ctx, server)) };
  });
  registerTaskMethods(mcp, deps.mcpTasks, () => callerForCall().id);
  registerToolCall(mcp, { services, calls, mcpTasks: deps.mcpTasks, group: opts.group, callerForCall, workdir: () => workdir(), rootMemory });

  const lifetime = new DisposableStore('an MCP server', log);
  lifetime.add(deps.notifier.register(notificationPeer(mcp, caller, subscriptions, wantsFires)));
  server.onclose = () => lifetime.dispose();
  return mcp;
}

type Server = McpServer['server'];

/**
 * "This client": X-Pincer-Client when sent (the bridge's id, the same for every session it opens),
 * else this session; a stateless request without the header is its client's name and version.
 */
function callersOf(server: Server, opts: ServerOptions): { caller: Caller; callerForCall: () => Caller } {
  const nameOf = () => server.getClientVersion()?.name;
  const named = opts.client?.id ? new Caller(opts.transport, `client:${opts.client.id}`, nameOf) : undefined;
  // An identity outliving this instance may have callbacks set through an earlier one.
  if (named) named.hasCallbacks = true;
  const caller = named ?? new Caller(opts.transport, opts.callerId, nameOf);
  const callerForCall = (): Caller => {
    if (named || opts.era !== 'modern') return caller;
    const c = new Caller(opts.transport, statelessIdentity(server.getClientVersion()), nameOf);
    c.hasCallbacks = true;
    return c;
  };
  return { caller, callerForCall };
}

/**
 * Log messages (callback fires) go only to a 2025-era client that asked for them with
 * logging/setLevel; a 2026-07-28 client opts in per request, for that request's stream only.
 * Returns whether this client wants fires now.
 */
function logLevelHandler(mcp: McpServer): () => boolean {
  const server = mcp.server;
  let logLevel: LoggingLevel | undefined;
  server.setRequestHandler('logging/setLevel', (req) => {
    logLevel = req.params.level;
    return {};
  });
  return () => mcp.isConnected() && logLevel !== undefined && LOG_SEVERITY.indexOf(logLevel) <= LOG_SEVERITY.indexOf('info') && connectionEra(server) !== 'modern';
}

/**
 * The client's working folder: its first root when it declares roots (asked once, again after
 * roots/list_changed; on 2026-07-28 in the call's own round trips), else the folder its bridge or
 * this stdio process started in. Once known, the first root is returned synchronously (see CallChannel.workdir).
 */
function clientWorkdir(server: Server, opts: ServerOptions, rootMemory: RootMemory | undefined): () => string | undefined | Promise<string | undefined> {
  let roots: { pending: Promise<string | undefined> } | { known: string | undefined } | undefined;
  server.setNotificationHandler('notifications/roots/list_changed', () => {
    roots = undefined;
    if (rootMemory) rootMemory.root = undefined;
  });
  return () => {
    // 2026-07-28 has no server-to-client requests: tools/call asks in its own round trips (tool-call.ts).
    if (!server.getClientCapabilities()?.roots || connectionEra(server) === 'modern') return opts.client?.cwd;
    if (roots && 'known' in roots) return roots.known ?? opts.client?.cwd;
    if (!roots) {
      const asked: { pending: Promise<string | undefined> } = {
        pending: server
          .listRoots(undefined, { timeout: 5000 })
          .then((r) => firstRootPath(r.roots))
          .catch((err: unknown) => {
            // A client that does not answer roots/list in time has no roots for us: its working folder comes from the next rule.
            log.debug('asking a client for its roots failed', { err });
            return undefined;
          })
          .then((root) => {
            if (roots === asked) roots = { known: root };
            return root;
          }),
      };
      roots = asked;
    }
    return roots.pending.then((root) => root ?? opts.client?.cwd);
  };
}

/** What the notifier tells this client: list changes, updates of resources it subscribed to, callback fires. */
function notificationPeer(mcp: McpServer, caller: Caller, subscriptions: Set<string>, wantsFires: () => boolean): Parameters<Notifier['register']>[0] {
  const server = mcp.server;
  return {
    caller,
    toolsChanged: () => mcp.sendToolListChanged(),
    promptsChanged: () => mcp.sendPromptListChanged(),
    resourcesChanged: () => mcp.sendResourceListChanged(),
    resourceUpdated: (uri) => {
      // A notice to a client that left: there is no one to tell.
      if (mcp.isConnected() && subscriptions.has(uri)) void server.sendResourceUpdated({ uri }).catch(ignoreFailure(log, `telling a client that ${uri} changed`));
    },
    wantsFires,
    callbackFired: (text) => {
      // A notice to a client that left: the fire stays in the next result (pincer_notices) anyway.
      void server.sendLoggingMessage({ level: 'info', logger: 'pincer.callback', data: text }).catch(ignoreFailure(log, 'telling a client that a callback fired'));
    },
  };
}
