import express, { type Request, type Response, type NextFunction } from 'express';
import type { Settings } from '../core/settings/settings.js';
import { refuseTooLarge, sendError } from '../access/respond.js';
import { EMPTY_BODY, declaredTooLarge, parseBody, type ParsedBody } from '../access/body.js';

const bodies = new WeakMap<Request, ParsedBody>();

/**
 * The hub's one body parser: refuses a declared oversize body before reading a
 * byte (413), reads at most MAX_BODY_BYTES whatever the content type, and
 * parses JSON once. Handlers read the result with `bodyOf`.
 */
export function jsonBodies(settings: Settings) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const limit = settings.get('MAX_BODY_BYTES');
    const tooLarge = declaredTooLarge(req.headers, limit);
    if (tooLarge) return refuseTooLarge(req, res, tooLarge);
    express.raw({ type: () => true, limit })(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') return refuseTooLarge(req, res, `Request body is larger than MAX_BODY_BYTES (${limit}).`);
      if (err) {
        next(err);
        return;
      }
      const raw: unknown = req.body;
      bodies.set(req, parseBody(Buffer.isBuffer(raw) ? raw : undefined));
      next();
    });
  };
}

export function bodyOf(req: Request): ParsedBody {
  return bodies.get(req) ?? EMPTY_BODY;
}

/**
 * For the REST and dashboard routes: the body as a JSON object (an absent body
 * is `{}`), or undefined after answering 400 — never a silent default for a
 * malformed body.
 */
export function objectBody(req: Request, res: Response): Record<string, unknown> | undefined {
  const b = bodyOf(req);
  if (!b.ok) {
    sendError(res, 'INVALID_INPUT', `The request body is not valid JSON (${b.error}). Send a JSON object.`);
    return undefined;
  }
  if (b.value === undefined) return {};
  if (typeof b.value !== 'object' || b.value === null || Array.isArray(b.value)) {
    sendError(res, 'INVALID_INPUT', 'The request body must be a JSON object.');
    return undefined;
  }
  return b.value as Record<string, unknown>;
}
