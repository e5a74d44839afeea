import type { EventChannel, HubEventType } from '../events.js';

/**
 * A view's long poll: resolves once `changed()` holds, the wait is over or the call is cancelled. Woken by
 * the hub's events of `wakeOn` (a change this process made) and checked every `everyMs` besides (a change
 * another process sharing the database made: a standalone, a job's supervisor writing its log).
 */
export async function waitForChange(opts: { changed(): boolean; waitMs: number; signal: AbortSignal; events: EventChannel; wakeOn: HubEventType[]; everyMs?: number }): Promise<void> {
  const deadline = Date.now() + opts.waitMs;
  let wake: (() => void) | undefined;
  const offs = opts.wakeOn.map((type) => opts.events.on(type, () => wake?.()));
  const onAbort = () => wake?.();
  opts.signal.addEventListener('abort', onAbort);
  try {
    while (!opts.changed() && Date.now() < deadline && !opts.signal.aborted) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, Math.min(opts.everyMs ?? 250, deadline - Date.now())));
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  } finally {
    wake = undefined;
    for (const off of offs) off();
    opts.signal.removeEventListener('abort', onAbort);
  }
}
