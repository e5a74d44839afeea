import { CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError, ProtocolError, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { POLL_INTERVAL_MS, type TaskRunner } from '../calls/task-runner.js';
import type { McpTaskRow } from '../store/mcp-tasks.js';
import type { EventBus } from '../calls/event-bus.js';
import { UserError } from '../core/errors.js';
import { RPC } from '../core/wire-errors.js';

/** The tasks extension (SEP-2663) as 2026-07-28 names it. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether this request's client negotiated the tasks extension: in the 2026-07-28 request's own envelope (never a 2025-era session's capabilities). */
export function tasksNegotiated(ctx: ServerContext, _server: McpServer['server']): boolean {
  // Only a 2026-07-28 request's own capabilities count: the extension is defined for that revision's
  // per-request capabilities. A 2025-era session that lists it in initialize gets no task — clients
  // such as the MCP Inspector advertise it on every connection and expect an older server to ignore it.
  const envelope: Record<string, unknown> = ctx.mcpReq.envelope ?? {};
  const caps: unknown = envelope[CLIENT_CAPABILITIES_META_KEY];
  if (!caps || typeof caps !== 'object' || !('extensions' in caps)) return false;
  const ext: unknown = caps.extensions;
  return Boolean(ext && typeof ext === 'object' && TASKS_EXTENSION in ext);
}

export function missingTasksCapability(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }, `${what} needs the ${TASKS_EXTENSION} extension, which this client did not declare.`);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The Task fields every task answer carries. */
function taskFields(row: McpTaskRow) {
  return {
    taskId: row.id,
    status: row.status,
    ...(row.status_message ? { statusMessage: row.status_message } : {}),
    createdAt: iso(row.created_at),
    lastUpdatedAt: iso(row.updated_at),
    ttlMs: row.ttl_ms,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

/** A tools/call answered with a task (CreateTaskResult: the task's fields at the top level). */
export function createTaskResult(row: McpTaskRow): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(row) };
}

/** tasks/get: the task, with its result (completed) or error (failed) inlined. */
function detailedTask(row: McpTaskRow): Record<string, unknown> {
  return {
    resultType: 'complete',
    ...taskFields(row),
    // The request's own result as 2026-07-28 shapes it (a CallToolResult carries resultType "complete"; the extension's client checks it).
    ...(row.status === 'completed' && row.result ? { result: { resultType: 'complete', ...(JSON.parse(row.result) as Record<string, unknown>) } } : {}),
    ...(row.status === 'failed' && row.error ? { error: JSON.parse(row.error) as unknown } : {}),
    ...(row.status === 'input_required' && row.input_requests ? { inputRequests: JSON.parse(row.input_requests) as unknown } : {}),
  };
}

/** A `notifications/tasks` notification's params: the task as tasks/get shows it (a DetailedTask). */
export function taskNotification(row: McpTaskRow): Record<string, unknown> {
  const { resultType: _, ...task } = detailedTask(row);
  return task;
}

/**
 * What a task-status listen (transports/task-listen.ts) reads: each task as `notifications/tasks`
 * carries it — only the listening client's own — and word of its changes. One shape for the hub and
 * `pincer stdio --standalone`.
 */
export function taskListenSource(rt: { mcpTasks: TaskRunner; events: EventBus }) {
  return {
    task: (id: string, requestor: string) => {
      const row = rt.mcpTasks.repo.get(id);
      return row && row.requestor === requestor ? taskNotification(row) : undefined;
    },
    onTaskChanged: (listener: (id: string) => void) => rt.events.on('mcp_task_changed', (e) => listener(e.id)),
  };
}

const TaskParams = z.looseObject({ taskId: z.string() });

/**
 * tasks/get, tasks/update and tasks/cancel, each only for a client that negotiated the extension and
 * only for its own tasks: another client's task is "unknown" exactly as a task that never existed
 * (the extension's -32602; a denial that differs would confirm the id). `requestor` is the asking
 * client's identity (Caller.id).
 */
export function registerTaskMethods(mcp: McpServer, runner: TaskRunner, requestor: () => string): void {
  const server = mcp.server;
  const known = (id: string): McpTaskRow => {
    const row = runner.forRequestor(id, requestor());
    if (!row) throw new ProtocolError(RPC.InvalidParams, `Unknown task: ${id}. Task ids come from a tools/call this client made, answered with resultType "task"; a finished task is kept for its ttlMs.`);
    return row;
  };
  const schemas = { params: TaskParams, result: z.looseObject({}) };
  server.setRequestHandler('tasks/get', schemas, (params, ctx) => {
    if (!tasksNegotiated(ctx, server)) throw missingTasksCapability('tasks/get');
    // Brought up to date first when its work outlives the hub (a job).
    return detailedTask(known(params.taskId));
  });
  server.setRequestHandler('tasks/cancel', schemas, (params, ctx) => {
    if (!tasksNegotiated(ctx, server)) throw missingTasksCapability('tasks/cancel');
    known(params.taskId);
    runner.cancel(params.taskId);
    return { resultType: 'complete' };
  });
  server.setRequestHandler('tasks/update', schemas, (params, ctx) => {
    if (!tasksNegotiated(ctx, server)) throw missingTasksCapability('tasks/update');
    const row = known(params.taskId);
    // The SDK lifts inputResponses off the params into the request context (as for any retried request).
    const responses: unknown = params.inputResponses ?? ctx.mcpReq.inputResponses;
    if (!responses || typeof responses !== 'object' || Array.isArray(responses)) throw new ProtocolError(RPC.InvalidParams, 'tasks/update needs inputResponses: the answers by the keys tasks/get showed in inputRequests.');
    try {
      // Answers to nothing outstanding (the task ended, the dashboard answered first, an unknown key) are
      // ignored with the usual ack, as the extension says; tasks/get shows where the task is.
      runner.update(row.id, responses as Record<string, unknown>);
    } catch (err) {
      if (err instanceof UserError) throw new ProtocolError(RPC.InvalidParams, err.message);
      throw err;
    }
    return { resultType: 'complete' };
  });
}
