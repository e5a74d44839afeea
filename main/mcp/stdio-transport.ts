import type { Readable, Writable } from 'node:stream';
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';

export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** A JSON-RPC error for a message that could not be handled at all. */
export function rpcError(id: string | number | null, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage;
}

/** The id of a message that failed validation, when it has a usable one. */
export function salvageId(value: unknown): string | number | null {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const id = (value as { id?: unknown }).id;
    if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  }
  return null;
}

/**
 * Classifies one parsed value: a valid message, or the JSON-RPC error to
 * answer with (-32600 for a bad shape), or nothing for an invalid
 * notification/response that deserves no reply.
 */
export function classifyValue(value: unknown): { message: JSONRPCMessage } | { reply: JSONRPCMessage } | { ignore: string } {
  try {
    return { message: parseJSONRPCMessage(value) };
  } catch {
    const id = salvageId(value);
    const hasMethod = value && typeof value === 'object' && 'method' in value;
    if (id === null && hasMethod) return { ignore: 'invalid notification' };
    if (value && typeof value === 'object' && !hasMethod && ('result' in value || 'error' in value)) return { ignore: 'invalid response' };
    return { reply: rpcError(id, -32600, 'Invalid Request: not a JSON-RPC 2.0 request (needs "jsonrpc": "2.0", a string "method" and a string or number "id")') };
  }
}

/** Classifies one line of input: bad JSON is answered with -32700, the rest as classifyValue says. */
export function classifyLine(line: string): { message: JSONRPCMessage } | { reply: JSONRPCMessage } | { ignore: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { reply: rpcError(null, -32700, `Parse error: ${(err as Error).message}`) };
  }
  return classifyValue(value);
}

/**
 * Newline-delimited JSON-RPC over a pair of streams that answers malformed
 * input with the standard errors instead of dropping it, and discards lines
 * past MAX_MESSAGE_BYTES without ever holding them in memory.
 */
export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  private discarding = false;
  private closed = false;

  constructor(private input: Readable = process.stdin, private output: Writable = process.stdout, private maxBytes = MAX_MESSAGE_BYTES) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
  }

  private onInputError = (err: Error) => this.onerror?.(err);

  private onEnd = () => {
    void this.close();
  };

  private onData = (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
      if (!this.discarding) {
        if (this.size + piece.length > this.maxBytes) {
          this.discarding = true;
          this.chunks = [];
          this.size = 0;
        } else {
          this.chunks.push(piece);
          this.size += piece.length;
        }
      }
      if (nl < 0) return;
      start = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        this.reply(rpcError(null, -32600, `Invalid Request: message larger than ${this.maxBytes} bytes was discarded`));
      } else {
        const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
        this.chunks = [];
        this.size = 0;
        if (line.trim() !== '') this.handleLine(line);
      }
    }
  };

  private handleLine(line: string): void {
    const r = classifyLine(line);
    if ('message' in r) this.onmessage?.(r.message);
    else if ('reply' in r) this.reply(r.reply);
    else this.onerror?.(new Error(`ignored ${r.ignore}`));
  }

  private reply(message: JSONRPCMessage): void {
    void this.send(message).catch(() => undefined);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const ok = this.output.write(JSON.stringify(message) + '\n');
      if (ok) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.onclose?.();
  }
}
