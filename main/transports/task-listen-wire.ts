import { isJSONRPCNotification, isJSONRPCRequest, SUBSCRIPTION_ID_META_KEY, type JSONRPCMessage, type MessageExtraInfo, type RequestId, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { RPC, rpcErrorBody } from '../core/wire-errors.js';
import { TaskListens } from './task-listen.js';
import { isModernEnvelope } from '../mcp/protocol-era.js';

/**
 * A line connection (`pincer stdio --standalone`, the bridge's pipe) with task-status listens:
 * the SDK's stdio entry routes `subscriptions/listen` to its own router, which drops
 * `notifications.taskIds`, so a 2026-07-28 listen that names tasks is taken here, before the entry
 * sees it, and served by TaskListens as on HTTP (acknowledgement, then `notifications/tasks` stamped
 * with the subscription id, which on stdio is the listen's request id). The client's
 * `notifications/cancelled` naming the listen ends it; so does the connection ending. Every other
 * message passes through unchanged.
 */
export class TaskListenWire implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** The open task listens on this connection, by the listen's request id. */
  private readonly subs = new Map<RequestId, () => void>();

  constructor(
    private readonly inner: Transport,
    private readonly listens: TaskListens,
    /** The connection's client (Caller.id of its calls): a listen follows only its tasks. */
    private readonly requestor: string,
  ) {
    inner.onmessage = (m, extra) => this.receive(m, extra);
    inner.onerror = (e) => this.onerror?.(e);
    inner.onclose = () => {
      this.stopAll();
      this.onclose?.();
    };
  }

  private receive(m: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isJSONRPCRequest(m) && TaskListens.wants(m) && isModernEnvelope(m.params)) return this.listen(m.id, m);
    if (isJSONRPCNotification(m) && m.method === 'notifications/cancelled') {
      const requestId = m.params?.requestId;
      const stop = (typeof requestId === 'string' || typeof requestId === 'number') && this.subs.get(requestId);
      if (stop) {
        stop();
        this.subs.delete(requestId as RequestId);
        return;
      }
    }
    this.onmessage?.(m, extra);
  }

  private listen(id: RequestId, m: JSONRPCMessage): void {
    const write = (message: Record<string, unknown>) => void this.inner.send(message as JSONRPCMessage).catch((e: unknown) => this.onerror?.(e instanceof Error ? e : new Error(String(e))));
    // The same id twice would leave the first listen unreachable: its cancel would name both.
    if (this.subs.has(id)) return write(rpcErrorBody(RPC.InvalidRequest, `Invalid Request: a subscription with id ${JSON.stringify(id)} is already open on this connection; use a new request id.`, id));
    const served = this.listens.serveLines(m, write, () => {
      // The hub stops: the graceful close a listen gets (its empty result), as the SDK's router sends.
      this.subs.delete(id);
      write({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META_KEY]: id } } });
    }, this.requestor);
    if ('error' in served) return write(served.error);
    this.subs.set(id, served.stop);
  }

  private stopAll(): void {
    for (const stop of this.subs.values()) stop();
    this.subs.clear();
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    this.stopAll();
    return this.inner.close();
  }
}
