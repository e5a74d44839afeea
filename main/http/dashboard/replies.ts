import type { Request, Response } from 'express';
import { z } from 'zod';
import { objectBody } from '../express-body.js';
import { UserError } from '../../core/errors.js';
import { HTTP_STATUS, errorBody, type WireCode } from '../../core/wire-errors.js';

/**
 * The body checked against a schema, or undefined after answering 400: not
 * JSON (the hub's one body parser says why), or JSON of the wrong shape.
 */
export function body<T extends z.ZodType>(req: Request, res: Response, schema: T, expected: string): z.infer<T> | undefined {
  const value = objectBody(req, res);
  if (!value) return undefined;
  const r = schema.safeParse(value);
  if (!r.success) {
    fail(res, 'INVALID_INPUT', `Send ${expected}.`);
    return undefined;
  }
  return r.data;
}

/** A refused dashboard request, with its code's one status (core/wire-errors.ts). */
export function fail(res: Response, code: WireCode, message: string, extra: Record<string, unknown> = {}): void {
  // The code also sits at the top level, where scripts of the settings API already read it.
  res.status(HTTP_STATUS[code]).json({ ...errorBody(code, message, extra), code });
}

/** A query string checked against a schema, or undefined after answering 400 with `usage`. */
export function query<T extends z.ZodType>(req: Request, res: Response, schema: T, usage: string): z.infer<T> | undefined {
  const r = schema.safeParse(req.query);
  if (!r.success) {
    fail(res, 'INVALID_INPUT', usage);
    return undefined;
  }
  return r.data;
}

/** A refusal a UserError carries (no such job 404, already ended 409 …) as its HTTP answer; anything else is a bug and rethrown. */
export function failWith(res: Response, err: unknown): void {
  if (!(err instanceof UserError)) throw err;
  fail(res, err.code, err.message);
}

/** A count in a query string (offset, limit): `fallback` when absent, else a whole number from 0 to `max`. */
export const queryCount = (max: number, fallback: number) => z.preprocess((v) => (v === undefined || v === '' ? fallback : Number(v)), z.number().int().min(0).max(max));
