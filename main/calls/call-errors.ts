import { z } from 'zod';
import type { ErrorCode } from '../core/errors.js';

/**
 * Why the hub did not run a tool (or why the tool failed). Every surface maps
 * these codes, never message text, to its own wire form.
 */
export const CallErrorCode = z.enum(['TOOL_NOT_FOUND', 'SERVING_PAUSED', 'TOOL_DISABLED', 'INVALID_ARGUMENTS', 'STORE_UNAVAILABLE', 'TOOL_FAILED']);
export type CallErrorCode = z.infer<typeof CallErrorCode>;

export interface CallError {
  code: CallErrorCode;
  message: string;
  /** For TOOL_FAILED and STORE_UNAVAILABLE raised by a tool: the `UserError`'s code (absent for an unexpected crash or an `isError` result). */
  reason?: ErrorCode;
}

/** The HTTP status of the REST routes for each outcome (a tool's own failure is a normal 200 result). */
export const HTTP_STATUS: Record<CallErrorCode, number> = {
  TOOL_NOT_FOUND: 404,
  SERVING_PAUSED: 503,
  TOOL_DISABLED: 403,
  INVALID_ARGUMENTS: 400,
  STORE_UNAVAILABLE: 503,
  TOOL_FAILED: 200,
};

/**
 * Which outcomes are protocol errors on JSON-RPC surfaces (the rest are tool
 * results with `isError: true`, which the model can read and act on).
 */
export const JSONRPC_ERROR: Partial<Record<CallErrorCode, number>> = {
  TOOL_NOT_FOUND: -32602,
};

export const PAUSED_MESSAGE = 'Pincer: serving is paused (TOOLS=false). Ask the user to resume serving from the Pincer tray menu or dashboard (or set TOOLS=true).';
