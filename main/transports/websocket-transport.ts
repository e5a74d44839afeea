import type { WebSocket } from 'ws';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/server';
import { classifyLine, classifyValue } from './stdio-transport.js';

const AUTO_INIT_ID = '__pincer_auto_init';

/**
 * JSON-RPC over a WebSocket, one message per frame. Scripts often skip the
 * initialize handshake and send `tools/list` straight away; for them the
 * transport performs the handshake itself and hides it.
 */
export class WebSocketServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private initialized = false;
  private closed = false;
  private queued: JSONRPCMessage[] = [];
  private autoInitializing = false;

  constructor(private ws: WebSocket) {}

  async start(): Promise<void> {
    this.ws.on('close', () => void this.close());
    this.ws.on('error', (err) => this.onerror?.(err));
  }

  /** A JSON-RPC frame from the socket, as text or already parsed (simple `{type}` messages are handled by the caller). */
  receive(frame: string | { parsed: unknown }): void {
    const r = typeof frame === 'string' ? classifyLine(frame) : classifyValue(frame.parsed);
    if ('reply' in r) {
      void this.send(r.reply);
      return;
    }
    if (!('message' in r)) return;
    const msg = r.message as { method?: string };
    if (msg.method === 'initialize') this.initialized = true;
    if (!this.initialized && !this.autoInitializing && msg.method !== undefined && msg.method !== 'initialize') {
      this.autoInitializing = true;
      this.queued.push(r.message);
      this.onmessage?.({
        jsonrpc: '2.0',
        id: AUTO_INIT_ID,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'websocket', version: '1' } },
      } as JSONRPCMessage);
      return;
    }
    if (this.autoInitializing && !this.initialized) {
      this.queued.push(r.message);
      return;
    }
    this.onmessage?.(r.message);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as { id?: unknown };
    if (m.id === AUTO_INIT_ID) {
      this.initialized = true;
      this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
      for (const q of this.queued.splice(0)) this.onmessage?.(q);
      return;
    }
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(1000);
    this.onclose?.();
  }
}
