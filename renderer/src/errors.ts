/** The hub did not answer at all (stopped, restarting), or not as itself: the banner says so, pages keep their last data. */
export class HubUnreachable extends Error {
  override name = 'HubUnreachable';
}

/** This tab has no sign-in (any more): it ended, its hub stopped, or what answers proved nothing. The message says which. */
export class SignedOut extends Error {
  override name = 'SignedOut';
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(message: string, readonly code: string, readonly status: number, readonly data: unknown) {
    super(message);
  }
}
