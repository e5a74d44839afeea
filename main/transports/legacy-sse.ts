import { randomUUID } from 'node:crypto';
import { RPC } from '../core/wire-errors.js';
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { classifyValue, rpcError } from './stdio-transport.js';

/**
 * The 2024-11-05 HTTP+SSE transport, which SDK v2 no longer ships: the client
 * holds `GET /sse` open, learns from the first `endpoint` event where to POST,
 * and every response arrives as a `message` event on the stream.
 */
export class LegacySseTransport implements Transport {
  readonly sessionId = randomUUID();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  private heartbeat?: NodeJS.Timeout;

  constructor(private res: ServerResponse, private postPath: string) {}

  async start(): Promise<void> {
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    this.res.write(`event: endpoint\ndata: ${this.postPath}?sessionId=${this.sessionId}\n\n`);
    this.heartbeat = setInterval(() => this.res.write(': keep-alive\n\n'), 15_000);
    this.heartbeat.unref();
    this.res.on('close', () => void this.close());
  }

  /** A POSTed body, already read as JSON once; malformed input is answered on the stream. */
  receive(body: { ok: true; value: unknown } | { ok: false; error: string }): void {
    if (!body.ok) {
      void this.send(rpcError(null, RPC.ParseError, `Parse error: ${body.error}`));
      return;
    }
    const r = classifyValue(body.value);
    if ('message' in r) this.onmessage?.(r.message);
    else if ('reply' in r) void this.send(r.reply);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    if (!this.res.writableEnded) this.res.end();
    this.onclose?.();
  }
}
