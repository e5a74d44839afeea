import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, inputRequired, type CallToolResult, type InputRequests, type McpServer } from '@modelcontextprotocol/server';
import { ASK_IN_CLIENT, NEED_INPUT, MISSING_CAPABILITY, PROTOCOL_FAILURE, type AskInClient, type NeedInput, type Services, type ToolGroup, type ClientAsk } from '../tools/types.js';
import type { ToolCalls, CallChannel } from '../calls/calls.js';
import type { Caller } from '../calls/caller.js';
import { JSONRPC_ERROR } from '../calls/call-errors.js';
import type { TaskRunner, TaskOutcome } from '../calls/task-runner.js';
import { createTaskResult, missingTasksCapability, tasksNegotiated } from './tasks.js';
import { askState, capabilitiesOf, channelOf, isModern, roundTripOf, roundsOf } from './request-context.js';

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
}

/**
 * tools/call: a task-supporting tool called by a client that negotiated the tasks extension
 * answers with a task; every other call runs to its result, which may instead be a multi
 * round-trip question (input_required) or a protocol error the tool asked for.
 */
export function registerToolCall(mcp: McpServer, scope: ToolCallScope): void {
  const server = mcp.server;
  const { services, calls, group, workdir } = scope;
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const support = calls.registry.byName.get(request.params.name)?.taskSupport;
    if (support) {
      const canTask = tasksNegotiated(ctx, server);
      if (!canTask && support === 'required') throw missingTasksCapability(request.params.name);
      if (canTask) {
        // The call runs on after this answer: nothing of this request's stream (progress, forms) outlives it.
        const caller = scope.callerForCall();
        const clientCapabilities = capabilitiesOf(ctx, server);
        const row = scope.mcpTasks.start(request.params.name, caller.clientName, async (signal, taskId): Promise<TaskOutcome> => {
          const channel = { workdir, signal, clientCapabilities, taskInput: (requests: Record<string, { method: ClientAsk; params: Record<string, unknown> }>) => scope.mcpTasks.askInput(taskId, requests), task: scope.mcpTasks.handle(taskId) };
          const outcome = await calls.call({ name: request.params.name, arguments: request.params.arguments, caller, group, channel });
          const protocolCode = outcome.error ? JSONRPC_ERROR[outcome.error.code] : undefined;
          if (protocolCode !== undefined) return { error: { code: protocolCode, message: outcome.error!.message } };
          const failure = outcome.result._meta?.[PROTOCOL_FAILURE];
          if (failure && typeof failure === 'object') return { error: failure as { code: number; message: string } };
          return { result: server.projectCallToolResult(outcome.result, outcome.outputSchema) };
        });
        return createTaskResult(row) as CallToolResult;
      }
    }
    const outcome = await calls.call({ name: request.params.name, arguments: request.params.arguments, caller: scope.callerForCall(), group, channel: { ...channelOf(ctx, server, services), workdir, roundTrip: roundTripOf(ctx, server), rounds: roundsOf(ctx, server) } });
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
}

function firstTextOf(result: CallToolResult): string {
  const t = result.content.find((c) => c.type === 'text');
  return t && 'text' in t ? t.text : 'The client lacks a capability this tool needs.';
}

function needInputOf(result: CallToolResult): NeedInput | undefined {
  const need = result._meta?.[NEED_INPUT];
  return need && typeof need === 'object' ? (need as NeedInput) : undefined;
}

function askInClientOf(result: CallToolResult): AskInClient | undefined {
  const ask = result._meta?.[ASK_IN_CLIENT];
  return ask && typeof ask === 'object' ? (ask as AskInClient) : undefined;
}
