/**
 * A failure the user or model can fix. Its message is shown as-is in a tool
 * result with `isError: true`, so it must name the input and what to do.
 */
export class UserError extends Error {
  /** What kind of mistake, for surfaces that map it to a status; never match on the message. */
  constructor(message: string, readonly code: string = 'INVALID_INPUT') {
    super(message);
    this.name = 'UserError';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
