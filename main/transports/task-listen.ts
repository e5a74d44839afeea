import type { ServerResponse } from 'node:http';
import { CLIENT_CAPABILITIES_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import { sendJson } from '../access/respond.js';
import type { Peer } from '../calls/notifier.js';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const KEEPALIVE_MS = 15_000;
/** Open listen streams served here at once; more are refused (the SDK's router has the same kind of cap). */
const MAX_LISTENS = 256;

/** What a task-status listen needs from the hub: tasks as tasks/get shows them, and word of their changes. */
export interface TaskListenSource {
  /** The task as a `notifications/tasks` carries it (a DetailedTask), or undefined for an unknown id. */
  task(id: string): Record<string, unknown> | undefined;
  /** Calls `listener` with a task's id whenever it changes; returns the unsubscribe. */
  onTaskChanged(listener: (id: string) => void): () => void;
}

type Filter = { toolsListChanged?: true; promptsListChanged?: true; resourcesListChanged?: true; resourceSubscriptions?: string[]; taskIds?: string[] };
type Change = { method: string; params?: Record<string, unknown>; uri?: string };

/**
 * `subscriptions/listen` with `notifications.taskIds` (the tasks extension, SEP-2663): the SDK's listen
 * router knows only the four list/resource change kinds and drops the field, so Pincer serves such a
 * listen itself — the same SSE stream (acknowledged first, then the notifications, each stamped with
 * the subscription id), carrying `notifications/tasks` with the full task (what tasks/get shows) when a
 * subscribed task changes, besides the change kinds the filter asks for. A client that did not declare
 * the extension on the request gets -32021, as the extension says. The listen without taskIds stays the
 * SDK's.
 */
export class TaskListens {
  private changes = new Set<(c: Change) => void>();
  private open = new Set<() => void>();

  constructor(private source: TaskListenSource) {}

  /** The Notifier's peer: list and resource changes for the streams served here. */
  readonly peer: Peer = {
    toolsChanged: () => this.publish({ method: 'notifications/tools/list_changed' }),
    promptsChanged: () => this.publish({ method: 'notifications/prompts/list_changed' }),
    resourcesChanged: () => this.publish({ method: 'notifications/resources/list_changed' }),
    resourceUpdated: (uri) => this.publish({ method: 'notifications/resources/updated', params: { uri }, uri }),
  };

  /** Whether this request body is a subscriptions/listen asking for task notifications. */
  static wants(body: unknown): boolean {
    const params = paramsOf(body);
    return isRecord(body) && body.method === 'subscriptions/listen' && isRecord(params?.notifications) && 'taskIds' in params.notifications;
  }

  serve(res: ServerResponse, body: unknown, closed: AbortSignal): void {
    const id = isRecord(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
    const params = paramsOf(body);
    const requested = params?.notifications;
    if (!tasksDeclared(params)) {
      sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32021, message: `Missing required client capability: task notifications need the ${TASKS_EXTENSION} extension in this request's clientCapabilities.`, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } } });
      return;
    }
    const filter = honored(requested, (t) => this.source.task(t) !== undefined);
    if (!filter) {
      sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params: notifications.taskIds must be a list of task ids (strings), beside the usual subscription filter fields.' } });
      return;
    }
    if (this.open.size >= MAX_LISTENS) {
      sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32603, message: `Subscription limit reached (${MAX_LISTENS} task listens are open); close one and listen again.` } });
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    const send = (method: string, p: Record<string, unknown> = {}) => {
      if (res.destroyed) return;
      const meta = isRecord(p._meta) ? p._meta : {};
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method, params: { ...p, _meta: { ...meta, [SUBSCRIPTION_ID_META_KEY]: id } } })}\n\n`);
    };
    send('notifications/subscriptions/acknowledged', { notifications: filter });
    const tasks = new Set(filter.taskIds);
    const sendTask = (taskId: string) => {
      const task = this.source.task(taskId);
      if (task) send('notifications/tasks', task);
    };
    // Where each task is now: one that changed before the listen opened is not missed.
    for (const t of tasks) sendTask(t);
    const offTasks = this.source.onTaskChanged((taskId) => {
      if (tasks.has(taskId)) sendTask(taskId);
    });
    const onChange = (c: Change) => {
      const wanted =
        (c.method === 'notifications/tools/list_changed' && filter.toolsListChanged) ||
        (c.method === 'notifications/prompts/list_changed' && filter.promptsListChanged) ||
        (c.method === 'notifications/resources/list_changed' && filter.resourcesListChanged) ||
        (c.uri !== undefined && filter.resourceSubscriptions?.includes(c.uri));
      if (wanted) send(c.method, c.params);
    };
    this.changes.add(onChange);
    const keepalive = setInterval(() => {
      if (!res.destroyed) res.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
    keepalive.unref();
    const teardown = () => {
      offTasks();
      this.changes.delete(onChange);
      clearInterval(keepalive);
      this.open.delete(teardown);
      if (!res.writableEnded) res.end();
    };
    this.open.add(teardown);
    res.once('close', teardown);
    if (closed.aborted) teardown();
    else closed.addEventListener('abort', teardown, { once: true });
  }

  /** Ends every stream (the hub stops). */
  closeAll(): void {
    for (const teardown of [...this.open]) teardown();
  }

  private publish(c: Change): void {
    for (const listener of this.changes) listener(c);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function paramsOf(body: unknown): Record<string, unknown> | undefined {
  return isRecord(body) && isRecord(body.params) ? body.params : undefined;
}

function tasksDeclared(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  const caps = isRecord(meta) ? meta[CLIENT_CAPABILITIES_META_KEY] : undefined;
  return isRecord(caps) && isRecord(caps.extensions) && TASKS_EXTENSION in caps.extensions;
}

/**
 * What the server agrees to send: the requested change kinds (Pincer advertises all four) and the
 * requested tasks it knows (the acknowledgement lists them). Undefined when the filter is malformed.
 */
function honored(requested: unknown, known: (taskId: string) => boolean): Filter | undefined {
  if (!isRecord(requested)) return undefined;
  const ids = requested.taskIds;
  if (!Array.isArray(ids) || !ids.every((t) => typeof t === 'string')) return undefined;
  const f: Filter = { taskIds: [...new Set(ids as string[])].filter(known) };
  if (requested.toolsListChanged === true) f.toolsListChanged = true;
  if (requested.promptsListChanged === true) f.promptsListChanged = true;
  if (requested.resourcesListChanged === true) f.resourcesListChanged = true;
  const uris = requested.resourceSubscriptions;
  if (Array.isArray(uris) && uris.length > 0 && uris.every((u) => typeof u === 'string')) f.resourceSubscriptions = uris as string[];
  return f;
}
