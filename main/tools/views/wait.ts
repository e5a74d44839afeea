import type { HubEventType } from '../events.js';
import type { ToolContext } from '../types.js';

/**
 * A view's long poll: resolves once `changed()` holds, the wait is over or the call is cancelled. Woken by
 * the hub's events of `wakeOn` (a change this process made) or what `subscribe` reports, and checked every
 * `everyMs` besides (a change another process sharing the database made: a standalone, a job's supervisor
 * writing its log).
 */
export async function waitForChange(ctx: ToolContext, opts: { changed(): boolean; waitMs: number; wakeOn: HubEventType[]; everyMs?: number; subscribe?: (wake: () => void) => () => void }): Promise<void> {
  // Capped like ReadBgOutput's wait: under the usual 60 s request timeout of the chat app's client.
  const deadline = Date.now() + Math.min(opts.waitMs, ctx.services.settings.get('JOB_WAIT_MAX_MS'));
  const signal = ctx.signal;
  let wake: (() => void) | undefined;
  const offs = opts.wakeOn.map((type) => ctx.services.events.on(type, () => wake?.()));
  if (opts.subscribe) offs.push(opts.subscribe(() => wake?.()));
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    while (!opts.changed() && Date.now() < deadline && !signal.aborted) {
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
    signal.removeEventListener('abort', onAbort);
  }
}
