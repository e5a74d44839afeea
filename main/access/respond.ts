import type { ServerResponse } from 'node:http';
import { jsonRpcErrorBody } from './security.js';

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

/** A JSON-RPC error with `id: null`: the answer to a request that could not be read or routed. */
export function sendRpcError(res: ServerResponse, status: number, code: number, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, jsonRpcErrorBody(code, message), headers);
}
