import type { CallErrorCode, ErrorCode } from '../core/wire-errors.js';

/**
 * Why the hub did not run a tool (or why the tool failed). Every surface maps these codes, never
 * message text, to its own wire form (core/wire-errors.ts: HTTP_STATUS, CALL_RPC_ERROR).
 */
export type { CallErrorCode };

export interface CallError {
  code: CallErrorCode;
  message: string;
  /** For TOOL_FAILED and STORE_UNAVAILABLE raised by a tool: the `UserError`'s code (absent for an unexpected crash or an `isError` result). */
  reason?: ErrorCode;
}

export const PAUSED_MESSAGE = 'Pincer: serving is paused (TOOLS=false). Ask the user to resume serving from the Pincer tray menu or dashboard (or set TOOLS=true).';
