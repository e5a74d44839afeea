import type { Duplex } from 'node:stream';
import { RPC, rpcErrorBody } from '../core/wire-errors.js';
import { isJSONRPCRequest, type JSONRPCMessage, type McpServer, type Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { GuardedStdioTransport } from './stdio-transport.js';
import { TaskListenWire } from './task-listen-wire.js';
import type { TaskListens } from './task-listen.js';
import { PIPE_GOODBYE } from '../core/pipe-protocol.js';
import { ignoreFailure, logger } from '../core/log.js';

/**
 * `error.data` of the answer a hub that is handing over gives a request it
 * did not act on: the bridge holds such a request and sends it to the next
 * hub instead of passing the error on (the contract of `/mcp/pipe`).
 */
const RETRY_ELSEWHERE = { pincerRetry: true } as const;
/** How long a closing hub waits for a bridge to end its side after the goodbye. */
const GOODBYE_WAIT_MS = 2000;
const log = logger('pipe');

export interface PipeConnectionOptions {
  /** The upgraded socket: newline-delimited JSON-RPC both ways, exactly what `pincer stdio --standalone` speaks. */
  socket: Duplex;
  /** One MCP server instance for the connection (plus a discarded one for a 2026-07-28 `server/discover` probe). */
  factory: (era: 'legacy' | 'modern') => McpServer;
  /** The per-message size limit (the hub's MAX_BODY_BYTES); longer lines are answered -32600 and discarded unread. */
  maxMessageBytes: number;
  /** While this returns a message, new requests are answered with it (and RETRY_ELSEWHERE) instead of being served. */
  refusal: () => string | undefined;
  /** Serves `subscriptions/listen` with taskIds, which the SDK's entry would drop (task-listen-wire.ts). */
  taskListens: TaskListens;
  /** The bridge's client (Caller.id of the connection's calls): its listens follow only its tasks. */
  requestor: string;
  /** The bridge understands PIPE_GOODBYE (its upgrade sent GOODBYE_HEADER). */
  goodbye?: boolean;
  onerror?: (err: Error) => void;
}

export interface PipeConnection {
  /** Ends the connection: the server instance closes and the socket is ended. */
  close(): Promise<void>;
  /** Settles when the connection has ended, from either side. */
  readonly closed: Promise<void>;
}

/**
 * The hub's end of a bridge's pipe: the SDK's own stdio entry (`serveStdio`,
 * both protocol generations, one pinned instance per connection) over the
 * socket, through the same guarded line transport standalone stdio uses. The
 * only thing added is the handover gate: while the hub hands over, requests
 * are refused with a marker so the bridge re-sends them to the next hub,
 * while notifications and the client's answers (e.g. to a question still
 * open) reach the calls that are finishing here.
 */
export function servePipe(opts: PipeConnectionOptions): PipeConnection {
  const { socket } = opts;
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  const wire = new GuardedStdioTransport(socket, socket, opts.maxMessageBytes);
  const gated = new GatedTransport(wire, opts.refusal);
  // A socket error (the bridge went away mid-write) ends this connection, never the hub.
  socket.on('error', (err) => opts.onerror?.(err));
  // The socket is gone; closing the server over it can only find it closed.
  socket.once('close', () => void handle.close().catch(ignoreFailure(log, 'closing the server of a pipe connection')));
  gated.onEnded = () => {
    socket.end();
    // A peer that never reads must not keep the socket (and its buffers) forever.
    setTimeout(() => socket.destroy(), 5000).unref();
    ended();
  };
  const handle = serveStdio((ctx) => opts.factory(ctx.era), { transport: new TaskListenWire(gated, opts.taskListens, opts.requestor), onerror: opts.onerror });
  const bridgeEnded = new Promise<void>((resolve) => {
    socket.once('end', () => resolve());
    socket.once('close', () => resolve());
  });
  return {
    close: async () => {
      // The bridge is told first and ends its side: whatever it wrote before is read (and refused for the next
      // hub while this one closes) instead of being lost with the socket. An older bridge is closed at once.
      if (opts.goodbye && socket.writable) {
        await wire.send({ jsonrpc: '2.0', method: PIPE_GOODBYE }).catch(ignoreFailure(log, 'telling a bridge the hub closes its pipe'));
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([bridgeEnded, new Promise((r) => (timer = setTimeout(r, GOODBYE_WAIT_MS)))]);
        clearTimeout(timer);
      }
      await handle.close();
    },
    closed,
  };
}

/** Delegates to the line transport; answers requests itself while the hub refuses new work. */
class GatedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  onEnded?: () => void;

  constructor(
    private readonly inner: GuardedStdioTransport,
    private readonly refusal: () => string | undefined,
  ) {
    inner.onmessage = (m) => this.receive(m);
    inner.onerror = (e) => this.onerror?.(e);
    inner.onclose = () => {
      this.onclose?.();
      this.onEnded?.();
    };
  }

  private receive(m: JSONRPCMessage): void {
    const refused = this.refusal();
    if (refused === undefined || !isJSONRPCRequest(m)) return this.onmessage?.(m);
    // A refusal to a bridge that left meanwhile: it retries elsewhere anyway.
    void this.inner.send(rpcErrorBody(RPC.ServerError, refused, m.id, RETRY_ELSEWHERE) as JSONRPCMessage).catch(ignoreFailure(log, 'refusing a request on a pipe'));
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
