import type { ServerResponse } from 'node:http';
import { RPC } from '../core/wire-errors.js';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import { sendJson } from '../access/respond.js';
import type { Peer } from '../calls/notifier.js';
import { statelessIdentity, type ClientHandle } from '../mcp/client-identity.js';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const KEEPALIVE_MS = 15_000;
/** Open listen streams served here at once; more are refused (the SDK's router has the same kind of cap). */
const MAX_LISTENS = 256;

/** What a task-status listen needs from the hub: tasks as tasks/get shows them, and word of their changes. */
export interface TaskListenSource {
  /** The task as a `notifications/tasks` carries it (a DetailedTask) when it is `requestor`'s; undefined for an unknown id or another client's task. */
  task(id: string, requestor: string): Record<string, unknown> | undefined;
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
  /** Each open listen's stop, with how its transport ends it when the hub stops. */
  private open = new Map<() => void, () => void>();

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

  /**
   * Serves the listen over HTTP: an SSE stream, or a JSON-RPC error as the whole answer. The stream
   * ends when `closed` aborts or the response closes.
   */
  serve(res: ServerResponse, body: unknown, closed: AbortSignal, requestor: string): void {
    const opened = this.check(body, requestor);
    if ('error' in opened) {
      sendJson(res, 200, opened.error);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    const stop = this.subscribe(
      opened.id,
      opened.filter,
      requestor,
      (message) => {
        if (!res.destroyed) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
      },
      () => teardown(),
    );
    const keepalive = setInterval(() => {
      if (!res.destroyed) res.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
    keepalive.unref();
    const teardown = () => {
      stop();
      clearInterval(keepalive);
      if (!res.writableEnded) res.end();
    };
    res.once('close', teardown);
    if (closed.aborted) teardown();
    else closed.addEventListener('abort', teardown, { once: true });
  }

  /**
   * Serves the listen on a line connection (stdio, the bridge's pipe): `write` sends one message,
   * the acknowledgement first. Returns the error answer to send instead, or how to stop the
   * subscription (the client's notifications/cancelled naming the listen, or the connection ending).
   */
  serveLines(body: unknown, write: (message: Record<string, unknown>) => void, end: () => void, requestor: string): { error: Record<string, unknown> } | { stop: () => void } {
    const opened = this.check(body, requestor);
    if ('error' in opened) return opened;
    return { stop: this.subscribe(opened.id, opened.filter, requestor, write, end) };
  }

  /**
   * The listen's id and the filter it gets, or the JSON-RPC error that answers it. Only the listening
   * client's own tasks are honoured: another client's id is left out of the acknowledgement as an
   * unknown one is.
   */
  private check(body: unknown, requestor: string): { id: string | number | null; filter: Filter } | { error: Record<string, unknown> } {
    const id = isRecord(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
    const params = paramsOf(body);
    const fail = (error: Record<string, unknown>) => ({ error: { jsonrpc: '2.0', id, error } });
    if (!tasksDeclared(params)) {
      return fail({ code: RPC.MissingRequiredClientCapability, message: `Missing required client capability: task notifications need the ${TASKS_EXTENSION} extension in this request's clientCapabilities.`, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } });
    }
    const filter = honored(params?.notifications, (t) => this.source.task(t, requestor) !== undefined);
    if (!filter) return fail({ code: RPC.InvalidParams, message: 'Invalid params: notifications.taskIds must be a list of task ids (strings), beside the usual subscription filter fields.' });
    if (this.open.size >= MAX_LISTENS) return fail({ code: RPC.InternalError, message: `Subscription limit reached (${MAX_LISTENS} task listens are open); close one and listen again.` });
    return { id, filter };
  }

  /** Acknowledges, sends each task as it is now, then follows the filter until the returned stop. */
  private subscribe(id: string | number | null, filter: Filter, requestor: string, write: (message: Record<string, unknown>) => void, end: () => void): () => void {
    const send = (method: string, p: Record<string, unknown> = {}) => {
      const meta = isRecord(p._meta) ? p._meta : {};
      write({ jsonrpc: '2.0', method, params: { ...p, _meta: { ...meta, [SUBSCRIPTION_ID_META_KEY]: id } } });
    };
    send('notifications/subscriptions/acknowledged', { notifications: filter });
    const tasks = new Set(filter.taskIds);
    const sendTask = (taskId: string) => {
      const task = this.source.task(taskId, requestor);
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
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      offTasks();
      this.changes.delete(onChange);
      this.open.delete(stop);
    };
    this.open.set(stop, end);
    return stop;
  }

  /** Ends every listen (the hub stops). */
  closeAll(): void {
    for (const [stop, end] of [...this.open]) {
      stop();
      end();
    }
  }

  private publish(c: Change): void {
    for (const listener of this.changes) listener(c);
  }
}

/**
 * Which client sends this 2026-07-28 request, as its calls are told apart (Caller.id, ARCHITECTURE §1):
 * X-Pincer-Client when sent, else the name and version in its envelope.
 */
export function requestIdentity(handle: ClientHandle, body: unknown): string {
  if (handle.id) return `client:${handle.id}`;
  const meta = paramsOf(body)?._meta;
  const info = isRecord(meta) ? meta[CLIENT_INFO_META_KEY] : undefined;
  return statelessIdentity(isRecord(info) && typeof info.name === 'string' ? { name: info.name, ...(typeof info.version === 'string' ? { version: info.version } : {}) } : undefined);
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
