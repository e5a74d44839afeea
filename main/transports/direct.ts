import type { JSONRPCMessage, Transport, McpServer } from '@modelcontextprotocol/server';
import { RPC } from '../core/wire-errors.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/server';
import { rpcError } from './stdio-transport.js';

type Id = string | number;
type Pending = { resolve: (m: JSONRPCMessage) => void; originalId: Id | null };

/**
 * An in-process transport for session-less JSON-RPC (the hub's POST
 * /api/mcp/jsonrpc, the REST routes and the WebSocket's simple messages).
 * Callers' ids are swapped for private ones so that many HTTP clients can
 * share one server instance without their ids colliding.
 */
export class DirectTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private pending = new Map<Id, Pending>();
  private seq = 0;
  /** Notifications the server sends (logs, list changes), for whoever listens. */
  onNotification?: (message: JSONRPCMessage) => void;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as { id?: Id; method?: string; result?: unknown; error?: unknown };
    if (m.id !== undefined && m.method === undefined) {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      p.resolve({ ...(message as object), id: p.originalId } as JSONRPCMessage);
    } else if (m.id !== undefined && m.method !== undefined) {
      // A server-to-client request (ping, elicitation): no client is there to answer.
      queueMicrotask(() => this.onmessage?.(rpcError(m.id!, RPC.MethodNotFound, `this session-less endpoint cannot answer ${m.method}`)));
    } else {
      this.onNotification?.(message);
    }
  }

  async close(): Promise<void> {
    for (const [id, p] of this.pending) p.resolve(rpcError(p.originalId, RPC.InternalError, `the server closed before answering request ${String(id)}`));
    this.pending.clear();
    this.onclose?.();
  }

  /** Sends one request and resolves with its response (under the caller's own id). */
  request(message: { id: Id | null; method: string; params?: unknown }, signal?: AbortSignal): Promise<JSONRPCMessage> {
    const id = `d${++this.seq}`;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, originalId: message.id });
      signal?.addEventListener(
        'abort',
        () => {
          if (!this.pending.has(id)) return;
          this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the HTTP client went away' } } as JSONRPCMessage);
        },
        { once: true },
      );
      this.onmessage?.({ jsonrpc: '2.0', id, method: message.method, ...(message.params !== undefined ? { params: message.params } : {}) } as JSONRPCMessage);
    });
  }

  notify(message: { method: string; params?: unknown }): void {
    this.onmessage?.({ jsonrpc: '2.0', method: message.method, ...(message.params !== undefined ? { params: message.params } : {}) } as JSONRPCMessage);
  }
}

/** A server instance behind a DirectTransport, already through the initialize handshake. */
export async function directSession(server: McpServer, clientName = 'pincer-http'): Promise<DirectTransport> {
  const transport = new DirectTransport();
  await server.connect(transport);
  const init = await transport.request({
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: clientName, version: '1' } },
  });
  if ('error' in init) throw new Error(`could not initialize the direct session: ${JSON.stringify(init)}`);
  transport.notify({ method: 'notifications/initialized' });
  return transport;
}
