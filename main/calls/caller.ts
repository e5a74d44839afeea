import { randomUUID } from 'node:crypto';

/**
 * One client as the hub core sees it, under every transport and protocol
 * generation: callbacks and questions are addressed to `id`. A session-based
 * transport has one Caller per session; session-less surfaces share one per
 * surface.
 */
export class Caller {
  /** Set once the client has set a callback, so calls without one never touch the fires table. */
  hasCallbacks = false;

  constructor(
    readonly transport: string,
    readonly id: string = randomUUID(),
    /** Resolved lazily: a session learns its client's name at initialize. */
    private nameOf: () => string | undefined = () => undefined,
  ) {}

  get clientName(): string | undefined {
    return this.nameOf();
  }
}
