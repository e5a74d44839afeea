import type http from 'node:http';
import type { Socket } from 'node:net';
import { MAX_MESSAGE_HEADER, PIPE_PATH, PIPE_PROTOCOL } from '../../core/pipe-protocol.js';
import type { ProvenHub } from '../hub-client.js';

// `import http from 'node:http'` in an ES module reads every export of the
// builtin, and its lazy WebSocket getters load undici: ~15 MB of RSS the bridge
// never uses. getBuiltinModule hands over the module without touching them.
const { request } = process.getBuiltinModule('node:http');

export type PipeOpening =
  | { kind: 'open'; socket: Socket; head: Buffer; maxMessageBytes?: number }
  /** The hub answered with an HTTP error instead of switching protocols; `body` says why in its words. */
  | { kind: 'refused'; status: number; body: string }
  | { kind: 'unreachable'; reason: string };

/**
 * Opens the bridge's one connection to the hub: `GET /mcp/pipe` with
 * `Upgrade: pincer-jsonrpc`, the token and the client's identity. After `101`
 * the socket carries newline-delimited JSON-RPC both ways. Only to a hub that
 * proved itself, over the very connection the proof came on (hub-client.ts):
 * if that connection is gone, the token is not sent anywhere else.
 */
export function openPipe(hub: ProvenHub, headers: http.OutgoingHttpHeaders, timeoutMs = 10_000): Promise<PipeOpening> {
  return new Promise((resolve) => {
    const req = request(new URL(PIPE_PATH, hub.url), {
      method: 'GET',
      agent: hub.agent,
      timeout: timeoutMs,
      headers: { ...headers, connection: 'Upgrade', upgrade: PIPE_PROTOCOL },
    });
    req.on('upgrade', (res, socket, head) => {
      socket.setTimeout(0);
      socket.setNoDelay(true);
      const max = Number(res.headers[MAX_MESSAGE_HEADER.toLowerCase()]);
      resolve({ kind: 'open', socket, head, maxMessageBytes: Number.isSafeInteger(max) && max > 0 ? max : undefined });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        // An error body is a sentence; more than this is not worth holding.
        if ((size += c.length) <= 64 * 1024) chunks.push(c);
      });
      res.on('end', () => resolve({ kind: 'refused', status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ kind: 'refused', status: res.statusCode ?? 0, body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error(`the hub did not answer within ${Math.round(timeoutMs / 1000)} s`)));
    req.on('error', (err) => resolve({ kind: 'unreachable', reason: err.message }));
    req.end();
  });
}

export interface HubPipeEvents {
  /** Sees each complete line before it is written out; false drops it. */
  line(line: Buffer): boolean;
  closed(why: string): void;
}

/**
 * The open pipe: client lines go in as written; the hub's bytes go to `out`
 * in whole lines (so the bridge's own lines never land inside one), as the
 * chunks they arrived in unless a line is dropped.
 */
export class HubPipe {
  private carry: Buffer[] = [];
  private ended = false;

  constructor(
    readonly socket: Socket,
    head: Buffer,
    private readonly out: NodeJS.WritableStream,
    private readonly on: HubPipeEvents,
    /** The largest line the hub accepts, when it said. */
    readonly maxMessageBytes?: number,
  ) {
    socket.on('data', (chunk: Buffer) => this.fromHub(chunk));
    socket.on('error', (err) => this.end(err.message));
    socket.on('end', () => this.end('the hub closed the connection'));
    socket.on('close', () => this.end('the connection closed'));
    if (head.length > 0) this.fromHub(head);
  }

  get open(): boolean {
    return !this.ended;
  }

  /** The hub said goodbye (PIPE_GOODBYE): nothing more is written; what the hub still answers is read to its end. */
  leaving = false;

  leave(): void {
    this.leaving = true;
    this.socket.end();
  }

  write(line: string): boolean {
    return this.socket.write(line + '\n');
  }

  close(): void {
    this.ended = true;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  private fromHub(chunk: Buffer): void {
    const parts: Buffer[] = [];
    let from = 0;
    let runFrom = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl < 0) break;
      let line = chunk.subarray(from, nl);
      if (this.carry.length > 0) {
        // A line that started in an earlier chunk: the only case that copies.
        line = Buffer.concat([...this.carry, line]);
        this.carry = [];
        if (this.on.line(line)) parts.push(line, NEWLINE);
        runFrom = nl + 1;
      } else if (!this.on.line(line)) {
        if (from > runFrom) parts.push(chunk.subarray(runFrom, from));
        runFrom = nl + 1;
      }
      from = nl + 1;
    }
    if (from > runFrom) parts.push(chunk.subarray(runFrom, from));
    if (from < chunk.length) this.carry.push(chunk.subarray(from));
    if (parts.length === 0) return;
    const ok = this.out.write(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    // A client that does not read its stdout slows the hub's writes down instead of filling this process.
    if (!ok && !this.socket.isPaused()) {
      this.socket.pause();
      this.out.once('drain', () => this.socket.resume());
    }
  }

  private end(why: string): void {
    const wasOpen = !this.ended;
    this.ended = true;
    this.socket.destroy();
    if (wasOpen) this.on.closed(why);
  }
}

const NEWLINE = Buffer.from('\n');
