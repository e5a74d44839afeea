import type http from 'node:http';
import { createParser } from 'eventsource-parser';

// `import http from 'node:http'` in an ES module reads every export of the
// builtin, and its lazy WebSocket getters load undici: ~15 MB of RSS the bridge
// never uses. getBuiltinModule hands over the module without touching them.
const { Agent, request } = process.getBuiltinModule('node:http');

/** A message from the hub: its text as sent, parsed once for routing. */
export interface Incoming {
  text: string;
  value: unknown;
}
export type Deliver = (m: Incoming) => void;

export type PostResult =
  /** The hub answered and the answer was read to its end; 2xx messages were delivered, anything else is in `body`. */
  | { kind: 'done'; status: number; sessionId?: string; body?: string }
  /** The request never reached the hub (nothing listens, or a kept-alive socket the hub had just closed): safe to send again. */
  | { kind: 'unreachable'; reason: string }
  /** The request was sent but its answer broke off: the hub may or may not have acted on it. */
  | { kind: 'cut'; reason: string };

export type StreamEnd = { kind: 'ended'; lastEventId?: string } | { kind: 'refused'; status: number } | { kind: 'unreachable'; reason: string };

/**
 * HTTP to one hub's /mcp with node:http over a keep-alive agent: sequential
 * calls reuse one connection; only overlapping calls (and the session's GET
 * stream) open more. Answers are passed on as they arrive, as JSON bodies or
 * SSE events, without re-serialising them.
 */
export class HubLink {
  private readonly agent = new Agent({ keepAlive: true, scheduling: 'lifo' });
  private readonly endpoint: URL;
  private closed = false;
  private readonly open = new Set<http.ClientRequest>();

  constructor(
    readonly url: string,
    readonly pid: number,
  ) {
    this.endpoint = new URL('/mcp', url);
  }

  /** POSTs one message; `onAnswer` sees the answer's headers before any of its messages is delivered. */
  post(body: string, headers: http.OutgoingHttpHeaders, deliver: Deliver, onAnswer?: (status: number, sessionId: string | undefined) => void): Promise<PostResult> {
    return new Promise((resolve) => {
      if (this.closed) return resolve({ kind: 'unreachable', reason: 'the bridge moved to another hub' });
      let settled = false;
      const finish = (r: PostResult) => {
        if (settled) return;
        settled = true;
        this.forget(req);
        resolve(r);
      };
      const req = request(this.endpoint, {
        method: 'POST',
        agent: this.agent,
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) },
      });
      this.open.add(req);
      req.on('error', (err: NodeJS.ErrnoException) => {
        const neverArrived = err.code === 'ECONNREFUSED' || (req.reusedSocket && err.code === 'ECONNRESET');
        finish(neverArrived ? { kind: 'unreachable', reason: err.message } : { kind: 'cut', reason: err.message });
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const sessionId = headerOf(res, 'mcp-session-id');
        const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        onAnswer?.(status, sessionId);
        res.on('aborted', () => finish({ kind: 'cut', reason: 'the hub closed the connection before its answer was complete' }));
        res.on('error', (err) => finish({ kind: 'cut', reason: err.message }));
        if (status >= 200 && status < 300 && type === 'text/event-stream') {
          const parser = sseParser(deliver);
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => parser.feed(chunk));
          res.on('end', () => finish({ kind: 'done', status, sessionId }));
          return;
        }
        readAll(res, (text) => {
          if (status >= 200 && status < 300 && type === 'application/json' && text.trim() !== '') {
            const value = parseOrUndefined(text);
            if (value !== undefined) {
              deliver({ text: oneLine(text, value), value });
              return finish({ kind: 'done', status, sessionId });
            }
          }
          finish({ kind: 'done', status, sessionId, body: status >= 200 && status < 300 && text === '' ? undefined : text });
        });
      });
      req.end(body);
    });
  }

  /** The session's standalone GET stream (2025-era sessions): server notifications and requests outside any call. */
  listen(headers: http.OutgoingHttpHeaders, deliver: Deliver, lastEventId?: string): { done: Promise<StreamEnd>; close(): void } {
    let req: http.ClientRequest | undefined;
    const done = new Promise<StreamEnd>((resolve) => {
      if (this.closed) return resolve({ kind: 'unreachable', reason: 'closed' });
      let last = lastEventId;
      req = request(this.endpoint, {
        method: 'GET',
        agent: this.agent,
        headers: { ...headers, accept: 'text/event-stream', ...(last ? { 'last-event-id': last } : {}) },
      });
      const r = req;
      this.open.add(r);
      const finish = (e: StreamEnd) => {
        this.forget(r);
        resolve(e);
      };
      r.on('error', (err) => finish({ kind: 'unreachable', reason: err.message }));
      r.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          res.resume();
          return finish({ kind: 'refused', status });
        }
        const parser = sseParser(deliver, (id) => (last = id));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => parser.feed(chunk));
        const ended = () => finish({ kind: 'ended', lastEventId: last });
        res.on('end', ended);
        res.on('aborted', ended);
        res.on('error', ended);
      });
      r.end();
    });
    return { done, close: () => req?.destroy() };
  }

  /** DELETE: ends the session on the hub (the hub and its jobs keep running). */
  terminate(headers: http.OutgoingHttpHeaders, timeoutMs = 1000): Promise<void> {
    return new Promise((resolve) => {
      const req = request(this.endpoint, { method: 'DELETE', agent: this.agent, headers, timeout: timeoutMs });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve());
      req.end();
    });
  }

  /** Takes no new requests; the ones open finish, then the connections close. */
  retire(): void {
    this.closed = true;
    if (this.open.size === 0) this.agent.destroy();
  }

  private forget(req: http.ClientRequest): void {
    this.open.delete(req);
    if (this.closed && this.open.size === 0) this.agent.destroy();
  }

  /** Drops every connection to this hub; requests still open end as `cut`. */
  close(): void {
    this.closed = true;
    for (const req of this.open) req.destroy();
    this.open.clear();
    this.agent.destroy();
  }
}

function headerOf(res: http.IncomingMessage, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function readAll(res: http.IncomingMessage, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The text to write as one stdio line: as received unless it spans lines (then re-serialised, the rare case). */
function oneLine(text: string, value: unknown): string {
  const t = text.trim();
  return t.includes('\n') ? JSON.stringify(value) : t;
}

function sseParser(deliver: Deliver, onId?: (id: string) => void) {
  return createParser({
    onEvent(event) {
      if (event.id) onId?.(event.id);
      if (event.event !== undefined && event.event !== 'message') return;
      if (!event.data) return;
      const value = parseOrUndefined(event.data);
      if (value === undefined || typeof value !== 'object' || value === null) return;
      deliver({ text: oneLine(event.data, value), value });
    },
  });
}
