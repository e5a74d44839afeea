import type { IncomingMessage, ServerResponse } from 'node:http';
import { RPC_REFUSALS, rpcErrorBody } from '../core/wire-errors.js';
import { classifyInboundRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import { logger, ignoreFailure } from '../core/log.js';

const log = logger('mcp-http');

/**
 * The 2026-07-28 leg of /mcp on node:http: one web Request per HTTP request
 * (the SDK's handler is web-standard), built once for both the era check and
 * the handler — `toNodeHandler` from @modelcontextprotocol/node built it a
 * second time, re-serialising the body — and a JSON answer written in one
 * piece instead of header and body chunks apart (bench/RESULTS.md "httpfast"). SSE answers are
 * streamed chunk by chunk with backpressure, and a client that goes away
 * aborts its request (2026-07-28 cancels by closing the stream), as
 * `toNodeHandler` does.
 */
export class ModernHttp {
  constructor(private handler: McpHttpHandler) {}

  /**
   * Whether a session-less request is 2025-era (served by the session transport) or 2026-07-28, and for
   * the latter the web Request the SDK's handler takes. The era comes from the SDK's own classifier
   * (`classifyInboundRequest`, the step behind `isLegacyRequest`) fed from node's headers and the body
   * parsed once; a web Request is built only for the modern leg — the Request and Headers globals load
   * Node's bundled undici, ~2 MB of RSS a hub serving 2025-era sessions never needs (bench/RESULTS.md: idle sessions).
   */
  classify(req: IncomingMessage, body: unknown): { legacy: true } | { legacy: false; request: Request; abort: AbortController } {
    if (isLegacy(req, body)) return { legacy: true };
    const abort = new AbortController();
    const request = new globalThis.Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/mcp'}`, { method: req.method, headers: toHeaders(req), signal: abort.signal });
    return { legacy: false, request, abort };
  }

  async serve(res: ServerResponse, request: Request, abort: AbortController, body: unknown): Promise<void> {
    let finished = false;
    res.once('close', () => {
      if (!finished) abort.abort();
    });
    let response: Response;
    try {
      response = await this.handler.fetch(request, body === undefined ? undefined : { parsedBody: body });
    } catch (err) {
      log.warn(`modern handler: ${(err as Error).message}`, { err });
      response = Response.json(rpcErrorBody(RPC_REFUSALS.INTERNAL.code, 'Internal server error'), { status: RPC_REFUSALS.INTERNAL.status });
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) headers[name] = value;
    const streaming = (headers['content-type'] ?? '').startsWith('text/event-stream');
    if (!response.body || !streaming) {
      // A JSON (or empty) answer: read whole, written with its headers in one go.
      const text = response.body ? await response.text() : '';
      finished = true;
      if (res.destroyed) return;
      headers['content-length'] = String(Buffer.byteLength(text));
      res.writeHead(response.status, headers);
      res.end(text);
      return;
    }
    res.writeHead(response.status, headers);
    res.flushHeaders();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { value: chunk, done } = await reader.read();
        if (done || abort.signal.aborted) break;
        if (!res.write(chunk)) await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    } catch {
      // The stream failed or the client went away: end what is left.
    }
    // Cancelling a stream whose client left: a failure means it is already cancelled.
    if (abort.signal.aborted) void reader.cancel().catch(ignoreFailure(log, 'cancelling the stream of a client that left'));
    finished = true;
    res.end();
  }
}

/** `isLegacyRequest` of the SDK without a web Request: a POST without a JSON body, or what its classifier routes to legacy. */
function isLegacy(req: IncomingMessage, body: unknown): boolean {
  const httpMethod = req.method ?? 'GET';
  if (httpMethod.toUpperCase() === 'POST' && body === undefined) return true;
  const outcome = classifyInboundRequest({
    httpMethod,
    protocolVersionHeader: headerValue(req, 'mcp-protocol-version'),
    mcpMethodHeader: headerValue(req, 'mcp-method'),
    mcpNameHeader: headerValue(req, 'mcp-name'),
    ...(body !== undefined && { body }),
  });
  return outcome.kind === 'legacy';
}

/** A header as web `Headers.get` reads it: repeated values joined with ", ". */
function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function toHeaders(req: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(':')) continue;
    if (Array.isArray(v)) for (const item of v) h.append(k, item);
    else h.set(k, v);
  }
  return h;
}
