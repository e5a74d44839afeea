import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Settings } from '../core/settings/settings.js';
import { hostOriginProblem, tokenProblem, unauthorizedHeaders, type GuardOptions } from '../access/security.js';
import { refuseTooLarge, sendRpcError } from '../access/respond.js';
import { EMPTY_BODY, declaredTooLarge, parseBody, type ParsedBody } from '../access/body.js';
import { logger } from '../core/log.js';

const log = logger('mcp-http');

export interface FastPathDeps {
  guard: GuardOptions;
  settings: Settings;
  handle: (req: IncomingMessage, res: ServerResponse, body: ParsedBody) => Promise<void>;
}

/**
 * `/mcp` without express: every MCP call of a Streamable HTTP client comes
 * this way, and express's chain (router matching, six middlewares, res
 * helpers) was a measurable part of each (bench/RESULTS.md "hotpath"). The checks are the
 * chain's, done once in the same order: Host/Origin, the token, the body
 * limit (MAX_BODY_BYTES, declared or streamed), one JSON parse. Anything
 * else — other paths, `/mcp/` spellings, a Content-Encoding body that
 * body-parser would inflate — goes to express as before.
 */
export function mcpFastPath(deps: FastPathDeps, next: RequestListener): RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const encoding = req.headers['content-encoding'];
    if (path !== '/mcp' || (encoding !== undefined && encoding.toLowerCase() !== 'identity')) return next(req, res);
    const refused = hostOriginProblem(req.headers, deps.guard);
    if (refused) return sendRpcError(res, refused.refusal, refused.message);
    const unauthorized = tokenProblem(req.headers, deps.settings);
    if (unauthorized) return sendRpcError(res, unauthorized.refusal, unauthorized.message, { headers: unauthorizedHeaders(req.headers) });
    const serve = (body: ParsedBody) =>
      deps.handle(req, res, body).catch((err: Error) => {
        log.warn(`/mcp: ${err.message}`, { err });
        sendRpcError(res, 'INTERNAL', `Internal error: ${err.message}`);
      });
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return void serve(EMPTY_BODY);
    readBody(req, res, deps.settings.get('MAX_BODY_BYTES'), serve);
  };
}

/** Reads the whole body up to `limit` bytes and parses it as JSON once; past the limit answers 413 and stops reading. */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number, done: (body: ParsedBody) => void): void {
  const declared = declaredTooLarge(req.headers, limit);
  if (declared) return refuseTooLarge(req, res, declared);
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > limit) {
      over = true;
      chunks.length = 0;
      return refuseTooLarge(req, res, `Request body is larger than MAX_BODY_BYTES (${limit}).`);
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (over) return;
    done(parseBody(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
  });
}
