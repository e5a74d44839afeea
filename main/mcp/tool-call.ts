import { MissingRequiredClientCapabilityError, ProtocolError, inputRequired, type CallToolResult, type InputRequests, type McpServer } from '@modelcontextprotocol/server';
import { PROTOCOL_FAILURE, type Services, type ToolGroup } from '../tools/types.js';
import { MISSING_CAPABILITY, needInputOf } from '../tools/client-asks.js';
import type { TaskReach } from '../calls/asking.js';
import type { ToolCalls, CallChannel, CallOutcome } from '../calls/calls.js';
import type { Caller } from '../calls/caller.js';
import { CALL_RPC_ERROR } from '../core/wire-errors.js';
import type { TaskRunner, TaskOutcome, Requestor } from '../calls/task-runner.js';
import type { McpTaskRow } from '../store/mcp-tasks.js';
import { createTaskResult, missingTasksCapability, tasksNegotiated } from './task-methods.js';
import { askState, capabilitiesOf, channelOf, requestEra } from './request-context.js';
import { appsOf } from './view-resources.js';
import { modernRoot, ROOTS_KEY, type RootMemory } from './client-roots.js';

/** What the tools/call handler of one server instance works with. */
export interface ToolCallScope {
  services: Services;
  calls: ToolCalls;
  mcpTasks: TaskRunner;
  /** Serve only one group's tools (the hub's per-group endpoints). */
  group: ToolGroup | undefined;
  /** Who is calling: the instance's caller, or a stateless request's own. */
  callerForCall(): Caller;
  /** The client's working folder (see CallChannel.workdir). */
  workdir: NonNullable<CallChannel['workdir']>;
  /** A connection's memory of a 2026-07-28 client's first root (none for a stateless request). */
  rootMemory?: RootMemory;
}

/**
 * tools/call: a task-supporting tool called by a client that negotiated the tasks extension
 * answers with a task; every other call runs to its result, which may instead be a multi
 * round-trip question (input_required) or a protocol error the tool asked for.
 */
export function registerToolCall(mcp: McpServer, scope: ToolCallScope): void {
  const server = mcp.server;
  const { services, calls, group } = scope;
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const tool = calls.registry.byName.get(request.params.name);
    const apps = appsOf(ctx, server);
    const support = tool?.taskSupport;
    const canTask = support !== undefined && tasksNegotiated(ctx, server);
    if (support === 'required' && !canTask) throw missingTasksCapability(request.params.name);
    // A client at its limit of running tasks is told so instead of getting one more (it may cancel some).
    const refused = canTask ? scope.mcpTasks.refusal(scope.callerForCall().id) : undefined;
    if (refused) return { content: [{ type: 'text', text: `${request.params.name}: ${refused}` }], isError: true };
    const roots = modernRoot(ctx, server, scope.callerForCall().id, scope.rootMemory);
    // Asked only by a tool that runs in the folder; a call that becomes a task at once answers with the task.
    if (roots === 'ask' && tool?.usesFolder && !(canTask && !tool.deferTask)) {
      return inputRequired({ inputRequests: { [ROOTS_KEY]: inputRequired.listRoots() }, requestState: await askState.mint({ client: scope.callerForCall().id }) });
    }
    const known = roots === 'ask' ? undefined : roots;
    const root = known?.root;
    const workdir: NonNullable<CallChannel['workdir']> = root ? () => root : scope.workdir;
    // Later rounds of this call (a question, a plugin's asks) keep the root the client gave.
    const carry = known ? { root: known.root } : {};
    if (canTask && !tool?.deferTask) {
      // The call runs on after this answer: nothing of this request's stream (progress, forms) outlives it.
      const caller = scope.callerForCall();
      const clientCapabilities = capabilitiesOf(ctx, server);
      const row = scope.mcpTasks.start(request.params.name, requestorOf(caller), async (signal, taskId): Promise<TaskOutcome> => {
        const channel: CallChannel = { workdir, signal, clientCapabilities, reach: { task: scope.mcpTasks.reach(taskId) } };
        return taskOutcomeOf(server, await calls.call({ name: request.params.name, arguments: request.params.arguments, caller, group, channel, apps }));
      });
      return createTaskResult(row) as CallToolResult;
    }
    const caller = scope.callerForCall();
    const { settle, ...onRequest } = channelOf(ctx, server, services, caller.id);
    // Progress for this call goes out before its answer, never after it.
    try {
      const channel: CallChannel = { ...onRequest, workdir };
      // A tool that gathers input first (deferTask) runs on this request until its handler starts the task.
      const deferred = canTask ? deferral(scope, server, request.params.name, caller, channel) : undefined;
      const running = calls.call({ name: request.params.name, arguments: request.params.arguments, caller, group, channel: deferred?.channel ?? channel, apps });
      deferred?.running(running);
      const first = deferred ? await Promise.race([running.then((done) => ({ done })), deferred.started.then((task) => ({ task }))]) : { done: await running };
      if ('task' in first) return createTaskResult(first.task) as CallToolResult;
      const outcome = first.done;
      const failure = outcome.result._meta?.[PROTOCOL_FAILURE];
      if (failure && typeof failure === 'object' && 'code' in failure && typeof failure.code === 'number') throw new ProtocolError(failure.code, firstTextOf(outcome.result));
      const lacking = outcome.result._meta?.[MISSING_CAPABILITY];
      if (Array.isArray(lacking) && requestEra(ctx, server) === 'modern') {
        throw new MissingRequiredClientCapabilityError({ requiredCapabilities: Object.fromEntries(lacking.map((c) => [String(c), {}])) }, firstTextOf(outcome.result));
      }
      const need = needInputOf(outcome.result);
      if (need) {
        const sealed = { replay: need.replay, ...(need.questionId !== undefined ? { questionId: need.questionId } : {}), client: caller.id, ...carry };
        return inputRequired({ inputRequests: need.inputRequests as InputRequests, requestState: await askState.mint(sealed) });
      }
      const protocolCode = outcome.error ? CALL_RPC_ERROR[outcome.error.code] : undefined;
      if (protocolCode !== undefined) throw new ProtocolError(protocolCode, outcome.error!.message);
      return server.projectCallToolResult(outcome.result, outcome.outputSchema);
    } finally {
      await settle();
    }
  });
}

/** What a tool call's outcome makes of its task: its result (a tool error included), or the protocol error. */
function taskOutcomeOf(server: McpServer['server'], outcome: CallOutcome): TaskOutcome {
  const protocolCode = outcome.error ? CALL_RPC_ERROR[outcome.error.code] : undefined;
  if (protocolCode !== undefined) return { error: { code: protocolCode, message: outcome.error!.message } };
  const failure = outcome.result._meta?.[PROTOCOL_FAILURE];
  if (failure && typeof failure === 'object') return { error: failure as { code: number; message: string } };
  return { result: server.projectCallToolResult(outcome.result, outcome.outputSchema) };
}

/**
 * The MRTR → task composition (SEP-2663: a tool resolves its multi round-trip questions on the request,
 * then answers with a task): the call runs on the request with `startTask` in its channel; when the
 * handler calls it, the task is created (the request answers with it) and the rest of the call is the
 * task's work — its cancel is the task's, its questions park the task, and it no longer writes to the
 * request's stream, which has ended.
 */
function deferral(scope: ToolCallScope, server: McpServer['server'], name: string, caller: Caller, channel: CallChannel) {
  const abort = new AbortController();
  let escalated = false;
  const followRequest = () => {
    if (!escalated) abort.abort();
  };
  channel.signal.addEventListener('abort', followRequest, { once: true });
  let callOutcome!: (p: Promise<CallOutcome>) => void;
  const outcome = new Promise<CallOutcome>((resolve) => (callOutcome = resolve));
  let taskStarted!: (row: McpTaskRow) => void;
  const started = new Promise<McpTaskRow>((resolve) => (taskStarted = resolve));
  let task: TaskReach | undefined;
  const whileOnRequest = <A extends unknown[]>(f: ((...a: A) => Promise<void>) | undefined) => (f ? (...a: A) => (escalated ? Promise.resolve() : f(...a)) : undefined);
  const deferredChannel: CallChannel = {
    ...channel,
    signal: abort.signal,
    progress: whileOnRequest(channel.progress),
    log: whileOnRequest(channel.log),
    reach: {
      ...channel.reach,
      startTask: (work) => {
        if (!task) {
          escalated = true;
          channel.signal.removeEventListener('abort', followRequest);
          // Work that outlives the hub (Bash's job) finishes the task through its keeper; else the call's outcome does.
          const row = work
            ? scope.mcpTasks.begin(name, requestorOf(caller), work)
            : scope.mcpTasks.start(name, requestorOf(caller), async (signal) => {
                // tasks/cancel (or the hub stopping) reaches the call through the signal it already holds.
                signal.addEventListener('abort', () => abort.abort(), { once: true });
                return taskOutcomeOf(server, await outcome);
              });
          // Only AskUserQuestion makes its question a task's work, and it is a task from the start.
          task = { input: scope.mcpTasks.reach(row.id).input };
          taskStarted(row);
        }
        return Promise.resolve(task);
      },
    },
  };
  return { channel: deferredChannel, started, running: (p: Promise<CallOutcome>) => callOutcome(p) };
}

/** The client a task belongs to: its identity on every transport (ARCHITECTURE §1), and the name it gave. */
export function requestorOf(caller: Caller): Requestor {
  return { id: caller.id, ...(caller.clientName ? { name: caller.clientName } : {}) };
}

function firstTextOf(result: CallToolResult): string {
  const t = result.content.find((c) => c.type === 'text');
  return t && 'text' in t ? t.text : 'The client lacks a capability this tool needs.';
}
