import type { ServerResponse } from 'node:http';

/** The SDK's SSE keep-alive period: a comment line every 15 s keeps idle proxies and clients from timing the stream out. */
const SSE_KEEP_ALIVE_MS = 15_000;

/**
 * Every open stream's keep-alive from one timer, running while any stream is
 * open: a hundred idle sessions' GET streams cost one timer, not a hundred.
 */
class KeepAlive {
  private streams = new Set<SseStream>();
  private timer?: NodeJS.Timeout;

  add(s: SseStream): void {
    this.streams.add(s);
    if (this.timer) return;
    this.timer = setInterval(() => {
      for (const x of this.streams) x.ping();
    }, SSE_KEEP_ALIVE_MS);
    this.timer.unref();
  }

  delete(s: SseStream): void {
    if (!this.streams.delete(s) || this.streams.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

const keepAlive = new KeepAlive();

/**
 * One Server-Sent Events response of a Streamable HTTP session, written
 * straight to node:http (no web streams): the headers the SDK's transport
 * sends, `event: message` frames with their resumption ids, and a keep-alive
 * comment every 15 s while it stays open.
 */
export class SseStream {
  private ended = false;
  /** Whether anything went out yet (writeHead only queues the headers until the first write). */
  private sent = false;

  constructor(readonly res: ServerResponse, sessionId: string | undefined, onClose: (stream: SseStream) => void) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    });
    keepAlive.add(this);
    res.once('close', () => {
      this.stop();
      onClose(this);
    });
  }

  get open(): boolean {
    return !this.ended && !this.res.destroyed;
  }

  /** The first event of a resumable stream: an id and no data (2025-11-25), so a client can resume before any message. */
  prime(eventId: string): void {
    if (!this.open) return;
    this.sent = true;
    this.res.write(`id: ${eventId}\ndata: \n\n`);
  }

  write(message: unknown, eventId?: string): void {
    if (!this.open) return;
    this.sent = true;
    this.res.write(`event: message\n${eventId === undefined ? '' : `id: ${eventId}\n`}data: ${JSON.stringify(message)}\n\n`);
  }

  /** Sends the headers now when there is nothing to write yet (they otherwise go out with the first event). */
  flush(): void {
    if (!this.open || this.sent) return;
    this.sent = true;
    this.res.flushHeaders();
  }

  /** Writes the last event and ends the response in one write. */
  endWith(message: unknown, eventId?: string): void {
    if (!this.open) return this.end();
    this.stop();
    this.res.end(`event: message\n${eventId === undefined ? '' : `id: ${eventId}\n`}data: ${JSON.stringify(message)}\n\n`);
  }

  end(): void {
    this.stop();
    if (!this.res.writableEnded) this.res.end();
  }

  private stop(): void {
    this.ended = true;
    keepAlive.delete(this);
  }

  /** The keep-alive comment, for the shared timer. */
  ping(): void {
    if (!this.open) return;
    this.sent = true;
    this.res.write(': keepalive\n\n');
  }
}
