import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { SessionEventStore } from './event-store.js';
import { SseStream } from './sse-stream.js';
import { StreamDeadlines, monotonicMs } from './stream-deadlines.js';
import { sendJson, sendRpcError } from '../access/respond.js';
import { RPC, RPC_REFUSALS, rpcErrorBody } from '../core/wire-errors.js';
import { primesStreams } from '../mcp/protocol-era.js';

/** The SDK's batch limit for one POST. */
const MAX_BATCH = 100;
/*
 * How long a call may take before its answer streams (HTTP_STREAM_AFTER_MS,
 * 100 ms by default): cheap calls (well under a millisecond to a few) stay
 * plain JSON; a longer one tells its client early that the hub has it: a
 * client whose connection resets before any response header cannot tell
 * whether the hub got the request (and may send it again); HTTP clients time
 * out a response without headers (undici after 300 s; a question may wait for
 * a person longer); and from 2025-11-25 on the client gets an event id to
 * resume from if the connection drops.
 */
const STANDALONE = '_GET_stream';
/** Resumed streams of finished calls a session may keep open at once. */
const MAX_IDLE_CONTINUATIONS = 4;

/** The requests of one POST and where their answers go. */
interface Exchange {
  ids: RequestId[];
  answers: Map<RequestId, JSONRPCMessage>;
  /** The held response while the answer may still be plain JSON; undefined once it streams or is answered. */
  res?: ServerResponse;
  /** Set once the answer streams: the event-store stream of this POST. */
  streamId?: string;
  protocolVersion: string;
  /** When it streams if still unanswered (monotonicMs()). */
  due: number;
}

/**
 * The server side of one 2025-era Streamable HTTP session, on node:http.
 *
 * It replaces the SDK's NodeStreamableHTTPServerTransport (which converts every
 * request to a web Request and every answer to a web ReadableStream through
 * @hono/node-server, and answers each POST either always as SSE or, with
 * `enableJsonResponse`, always as JSON while dropping progress and
 * elicitation) for speed (bench/RESULTS.md "httpfast"). It decides per POST: when the first
 * message for it is its answer, the answer is one JSON body (no SSE framing,
 * no event-store write); when a notification or request related to it comes
 * first, or the answer takes longer than HTTP_STREAM_AFTER_MS, the response becomes
 * an SSE stream with resumable events, as the SDK's transport would send.
 * Headers, status codes and error messages are the SDK's.
 */
export class StreamableSessionTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  private byRequest = new Map<RequestId, Exchange>();
  /** Connected SSE responses by event-store stream (a POST's, or the GET standalone stream). */
  private live = new Map<string, SseStream>();
  private events = new SessionEventStore();
  private streamSeq = 0;
  /** Open continuations of streams whose calls have finished (see resume). */
  private idle: SseStream[] = [];
  private closed = false;
  private deadlines = new StreamDeadlines<Exchange>(
    (ex) => this.stream(ex),
    (ex) => ex.res !== undefined,
  );

  constructor(private opts: { sessionId: string; onClosedByClient: () => void; streamAfterMs: () => number }) {}

  async start(): Promise<void> {}

  setSupportedProtocolVersions(versions: string[]): void {
    this.supported = versions;
  }

  /** POST with messages already parsed and checked by the caller (streamable.ts). `initialize` opens the session. */
  post(req: IncomingMessage, res: ServerResponse, messages: JSONRPCMessage[]): void {
    const accept = req.headers.accept;
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return sendRpcError(res, 'NOT_ACCEPTABLE', 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(req.headers['content-type'])) return sendRpcError(res, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Media Type: Content-Type must be application/json');
    if (messages.length > MAX_BATCH) return sendRpcError(res, 'INVALID_REQUEST', `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    if (this.closed) return sendRpcError(res, 'SESSION_NOT_FOUND', 'Session not found');
    const init = messages.find(isInitialize);
    if (init) {
      if (this.sessionId !== undefined) return sendRpcError(res, 'INVALID_REQUEST', 'Invalid Request: Server already initialized');
      if (messages.length > 1) return sendRpcError(res, 'INVALID_REQUEST', 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.opts.sessionId;
    } else {
      if (this.sessionId === undefined) return sendRpcError(res, 'BAD_REQUEST', 'Bad Request: Server not initialized');
      if (this.badVersion(req, res)) return;
    }
    const ids: RequestId[] = [];
    // A batch that repeats an id gets one answer for it (as the SDK's transport keys streams by id).
    for (const m of messages) if ('method' in m && 'id' in m && !ids.includes(m.id)) ids.push(m.id);
    if (ids.length === 0) {
      for (const m of messages) this.onmessage?.(m);
      res.writeHead(202).end();
      return;
    }
    // An id still in flight in this session cannot be told apart from the new request: its answer would
    // reach the wrong one and the other would wait forever. The new POST is refused, naming the id.
    const busy = ids.filter((id) => this.byRequest.has(id));
    if (busy.length > 0) {
      const errors = busy.map((id) => rpcErrorBody(RPC.InvalidRequest, `Invalid Request: a request with id ${JSON.stringify(id)} is still in flight in this session; send each request with an id not in use`, id));
      return sendJson(res, RPC_REFUSALS.INVALID_REQUEST.status, messages.length === 1 ? errors[0] : errors);
    }
    const header = req.headers['mcp-protocol-version'];
    const version = init ? initVersion(init) : typeof header === 'string' ? header : DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
    const after = this.opts.streamAfterMs();
    const ex: Exchange = { ids, answers: new Map(), res, protocolVersion: version, due: monotonicMs() + after };
    for (const id of ids) this.byRequest.set(id, ex);
    if (after === 0) this.stream(ex);
    else this.deadlines.add(ex);
    for (const m of messages) this.onmessage?.(m);
  }

  /** GET: the standalone stream for server-initiated messages, or a resumed stream after Last-Event-ID. */
  get(req: IncomingMessage, res: ServerResponse): void {
    if (!req.headers.accept?.includes('text/event-stream')) return sendRpcError(res, 'NOT_ACCEPTABLE', 'Not Acceptable: Client must accept text/event-stream');
    if (this.sessionId === undefined) return sendRpcError(res, 'BAD_REQUEST', 'Bad Request: Server not initialized');
    if (this.badVersion(req, res)) return;
    const last = req.headers['last-event-id'];
    if (typeof last === 'string' && last !== '') return this.resume(last, res);
    // A second standalone stream: the spec's "no stream here" answer, which clients take quietly (the SDK's
    // 409 becomes "Failed to open SSE stream: Conflict" in Gemini CLI, whose SDK sends a plain GET after a
    // resumed stream ends). Server messages keep arriving on the stream that is open.
    if (this.live.has(STANDALONE)) {
      return sendRpcError(res, 'METHOD_NOT_ALLOWED', "Method Not Allowed: this session's GET stream is already open; server messages arrive on it.", { headers: { Allow: 'POST, DELETE' } });
    }
    this.attach(STANDALONE, res).flush();
  }

  /** DELETE: the client ends the session. */
  async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.sessionId === undefined) return sendRpcError(res, 'BAD_REQUEST', 'Bad Request: Server not initialized');
    if (this.badVersion(req, res)) return;
    this.opts.onClosedByClient();
    res.writeHead(200).end();
    await this.close();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answer = 'result' in message || 'error' in message;
    const requestId = answer ? (message as { id: RequestId }).id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (answer) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      const eventId = this.events.store(STANDALONE, message);
      this.live.get(STANDALONE)?.write(message, eventId);
      return;
    }
    const ex = this.byRequest.get(requestId);
    if (!ex) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    if (answer) {
      ex.answers.set(requestId, message);
      if (ex.streamId === undefined) {
        if (ex.answers.size === ex.ids.length) this.answerJson(ex);
        return;
      }
    } else if (ex.streamId === undefined) this.stream(ex);
    const streamId = ex.streamId!;
    const eventId = this.events.store(streamId, message);
    const complete = answer && ex.answers.size === ex.ids.length;
    const live = this.live.get(streamId);
    if (!complete) return live?.write(message, eventId);
    this.forget(ex);
    live?.endWith(message, eventId);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.deadlines.stop();
    for (const ex of new Set(this.byRequest.values())) {
      // Nothing was sent for it yet: say why the answer will not come.
      if (ex.res) sendRpcError(ex.res, 'SESSION_NOT_FOUND', `Session ${this.sessionId ?? ''} was closed before the answer was ready (deleted, expired or the hub's token was rotated). Start a new session with initialize.`);
    }
    this.byRequest.clear();
    for (const s of this.live.values()) s.end();
    this.live.clear();
    this.onclose?.();
  }

  private badVersion(req: IncomingMessage, res: ServerResponse): boolean {
    const v = req.headers['mcp-protocol-version'];
    if (v === undefined || (typeof v === 'string' && this.supported.includes(v))) return false;
    sendRpcError(res, 'BAD_REQUEST', `Bad Request: Unsupported protocol version: ${String(v)} (supported versions: ${this.supported.join(', ')})`);
    return true;
  }

  /** Every answer of the POST is in and nothing streamed: one JSON body (an array for a batch). */
  private answerJson(ex: Exchange): void {
    const res = ex.res;
    this.forget(ex);
    if (!res || res.destroyed) return;
    const body = JSON.stringify(ex.ids.length === 1 ? ex.answers.get(ex.ids[0]!) : ex.ids.map((id) => ex.answers.get(id)));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'mcp-session-id': this.sessionId! });
    res.end(body);
  }

  /** Switches a held POST to SSE: answers already in are written first, in order. */
  private stream(ex: Exchange): void {
    if (ex.streamId !== undefined || !ex.res) return;
    const res = ex.res;
    ex.res = undefined;
    ex.streamId = `${this.sessionId}:${++this.streamSeq}`;
    if (res.destroyed) return;
    const sse = this.attach(ex.streamId, res);
    if (this.supported.includes(ex.protocolVersion) && primesStreams(ex.protocolVersion)) sse.prime(this.events.mark(ex.streamId));
    for (const id of ex.ids) {
      const a = ex.answers.get(id);
      if (a) sse.write(a, this.events.store(ex.streamId, a));
    }
    sse.flush();
  }

  private attach(streamId: string, res: ServerResponse): SseStream {
    const sse = new SseStream(res, this.sessionId, (s) => {
      if (this.live.get(streamId) === s) this.live.delete(streamId);
    });
    this.live.set(streamId, sse);
    return sse;
  }

  /**
   * Replays what a broken stream missed, and stays open as that stream's
   * continuation, as the SDKs' servers do: a call still running finishes on
   * it; one that finished leaves it open, idle, for the client to close (an
   * SDK client that sees it end opens another GET at once). The client that
   * resumes lost the old connection, so a connection still registered for
   * the stream is replaced. Idle continuations are bounded per session: the
   * oldest is ended when one more opens.
   */
  private resume(lastEventId: string, res: ServerResponse): void {
    const found = this.events.after(lastEventId);
    if (!found) return sendRpcError(res, 'BAD_REQUEST', 'Invalid event ID format');
    this.live.get(found.stream)?.end();
    const sse = this.attach(found.stream, res);
    for (const e of found.events) sse.write(e.message, e.id);
    sse.flush();
    const inUse = found.stream === STANDALONE || [...this.byRequest.values()].some((ex) => ex.streamId === found.stream);
    if (inUse) return;
    this.idle = this.idle.filter((x) => x.open && x !== sse);
    this.idle.push(sse);
    while (this.idle.length > MAX_IDLE_CONTINUATIONS) this.idle.shift()!.end();
  }

  private forget(ex: Exchange): void {
    ex.res = undefined;
    for (const id of ex.ids) this.byRequest.delete(id);
  }
}

/** An initialize request (a notification named initialize is not one). */
export function isInitialize(m: JSONRPCMessage): boolean {
  return 'method' in m && m.method === 'initialize' && 'id' in m;
}

/** The version an initialize asks for (classifyValue checked its params). */
function initVersion(m: JSONRPCMessage): string {
  const params = 'params' in m ? m.params : undefined;
  return params && typeof params.protocolVersion === 'string' ? params.protocolVersion : DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
}

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(';')[0]!.trim().toLowerCase() === 'application/json';
}
