import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTP_STATUS, RPC_REFUSALS, errorBody, rpcErrorBody, type RpcRefusal, type WireCode } from '../core/wire-errors.js';

/**
 * A JSON answer on plain node:http, as express's `res.status(s).json(b)`
 * writes it (same Content-Type), for the /mcp path that skips express.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** A JSON-RPC refusal with its status (core/wire-errors.ts): the answer to a request that could not be read or routed (`id: null` unless it could be read). */
export function sendRpcError(res: ServerResponse, refusal: RpcRefusal, message: string, opts: { headers?: Record<string, string>; id?: string | number | null; data?: unknown } = {}): void {
  const { code, status } = RPC_REFUSALS[refusal];
  sendJson(res, status, rpcErrorBody(code, message, opts.id ?? null, opts.data), opts.headers);
}

/** A refused REST request: `{ success: false, error: { code, message } }` with the code's one status. */
export function sendError(res: ServerResponse, code: WireCode, message: string, extra?: Record<string, unknown>): void {
  sendJson(res, HTTP_STATUS[code], errorBody(code, message, extra));
}

/** How much of an oversized body the hub reads (and discards) so that its client can read the 413. */
export const DISCARD_BYTES = 64 * 1024 * 1024;
/** How long it reads it for. */
export const DISCARD_MS = 15_000;

/**
 * Answers 413 and then reads the rest of the upload into nothing before closing: a hub that closes
 * while the client is still sending makes the client's next write fail (EPIPE, a reset) and many
 * clients then report that instead of the 413. The answer is written at once and finished when the
 * body ends; past DISCARD_BYTES or DISCARD_MS the connection is cut, so the reading stays bounded.
 */
export function refuseTooLarge(req: IncomingMessage, res: ServerResponse, message: string): void {
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  const { code, status } = RPC_REFUSALS.BODY_TOO_LARGE;
  const text = JSON.stringify(rpcErrorBody(code, message));
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), Connection: 'close' });
  res.write(text);
  if (req.complete) {
    res.end();
    return;
  }
  let read = 0;
  const finish = () => {
    clearTimeout(timer);
    req.off('data', discard);
    if (!res.writableEnded) res.end();
  };
  const cut = () => {
    finish();
    req.socket.destroy();
  };
  const discard = (chunk: Buffer) => {
    if ((read += chunk.length) > DISCARD_BYTES) cut();
  };
  const timer = setTimeout(cut, DISCARD_MS);
  timer.unref();
  req.on('data', discard);
  req.once('end', finish);
  req.once('error', cut);
  req.resume();
}
