/**
 * The closed set of reasons a tool or a hub service refuses a request the user or model can fix.
 * Surfaces map the code, never the message text, to their wire form (`ERROR_HTTP_STATUS` for the
 * REST and dashboard routes); the message is what a person reads. A plain array and union, not a
 * zod enum: the bridge loads this module and must stay free of zod (ARCHITECTURE §1).
 */
export const ERROR_CODES = [
  /** An argument is missing, empty, malformed, out of range, or contradicts another. */
  'INVALID_INPUT',
  /** The thing named (a file, job, task, step, question, callback, skill) does not exist. */
  'NOT_FOUND',
  /** It exists, but its state forbids the action: already settled or finished, a slot taken, a mode not on. */
  'CONFLICT',
  /** A configured count is full (JOB_MAX_CONCURRENT, CALLBACK_MAX): wait or free one. */
  'LIMIT_REACHED',
  /** Input or fetched content past a size limit (IMAGE_MAX_FILE_BYTES, READDOCS_MAX_BYTES …). */
  'TOO_LARGE',
  /** A kind or format Pincer cannot handle (not an image, HEIC, a content type, a URL scheme). */
  'UNSUPPORTED',
  /** The operating system or the user's settings forbid it (permission denied, a skill turned off). */
  'DENIED',
  /** A prerequisite on this machine is missing or unusable (no bash, a working folder gone, a read-only database, no search engine, no token yet). */
  'UNAVAILABLE',
  /** pincer.db was deleted or replaced under the hub (store/file-guard.ts); nothing was written. */
  'STORE_UNAVAILABLE',
  /** A deadline passed (a fetch's timeout). */
  'TIMEOUT',
  /** The caller cancelled. */
  'CANCELLED',
  /** A remote server failed: it could not be reached or answered an HTTP error. */
  'UPSTREAM',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The HTTP status of each code on the REST and dashboard routes that answer a `UserError` directly. */
export const ERROR_HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_REACHED: 429,
  TOO_LARGE: 413,
  UNSUPPORTED: 415,
  DENIED: 403,
  UNAVAILABLE: 503,
  STORE_UNAVAILABLE: 503,
  TIMEOUT: 504,
  CANCELLED: 499,
  UPSTREAM: 502,
};

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
