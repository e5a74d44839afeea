import type { ErrorCode } from './wire-errors.js';

/** The closed set of reasons a `UserError` carries, declared with every other wire code in core/wire-errors.ts. */
export type { ErrorCode };

/**
 * A failure the user or model can fix. Its message is shown as-is in a tool
 * result with `isError: true`, so it must name the input and what to do.
 */
export class UserError extends Error {
  /** `code` says what kind of mistake, for surfaces that map it to a status; never match on the message. */
  constructor(
    message: string,
    readonly code: ErrorCode,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
