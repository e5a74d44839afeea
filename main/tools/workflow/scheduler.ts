import type { CallbackRow, CallbacksRepo, FireRow } from '../../store/callbacks.js';
import type { EventChannel } from '../events.js';
import { logger } from '../../core/log.js';

const log = logger('callbacks');

export function fireText(f: FireRow): string {
  return `[Callback] Timer fired${f.late ? ' (late: Pincer was not running when it was due)' : ''}: ${f.message}`;
}

/**
 * Fires due callbacks. Every Pincer process that holds the database may run
 * one; each fire is claimed in a transaction, so it happens exactly once.
 */
export class CallbackScheduler {
  private timer?: NodeJS.Timeout;
  private stopped = true;

  constructor(private repo: CallbacksRepo, private events: EventChannel, private readOnly = false) {}

  start(): void {
    if (this.readOnly) return;
    this.stopped = false;
    this.tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * The one way to change callbacks — SetCallback and the dashboard alike: each change
   * re-plans the timer and tells the dashboard, so no path can forget either.
   */
  add(c: Parameters<CallbacksRepo['insert']>[0]): CallbackRow | undefined {
    const row = this.repo.insert(c);
    if (row) this.changed();
    return row;
  }

  /** Cancels the active callback in `slot`; undefined when there is none. */
  cancelSlot(slot: number): CallbackRow | undefined {
    const c = this.repo.bySlot(slot);
    if (!c) return undefined;
    this.repo.cancel(c.id);
    this.changed();
    return c;
  }

  /** Cancels every active callback; returns those it cancelled. */
  cancelAll(): CallbackRow[] {
    const active = this.repo.active();
    for (const c of active) this.repo.cancel(c.id);
    this.changed();
    return active;
  }

  private changed(): void {
    this.poke();
    this.events.publish({ type: 'callbacks_changed', at: Date.now() });
  }

  /** Re-plans after a change (a callback set or cancelled). */
  poke(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.tick();
  }

  private tick(): void {
    if (this.stopped) return;
    let wait = 1000;
    try {
      const now = Date.now();
      for (const c of this.repo.due(now)) {
        const fire = this.repo.claimFire(c, now);
        if (!fire) continue;
        log.info(`callback ${c.id} (slot ${c.slot}) fired #${fire.fire_number}${fire.late ? ' late' : ''}`);
        this.events.publish({ type: 'callback_fired', fire, text: fireText(fire), at: now });
      }
      const next = this.repo.nextDue();
      // Poll at least once a second: another process may add or change callbacks.
      if (next !== undefined) wait = Math.max(10, Math.min(1000, next - Date.now()));
    } catch (err) {
      log.warn(`callback tick failed: ${(err as Error).message}`, { err });
    }
    this.timer = setTimeout(() => this.tick(), wait);
    this.timer.unref();
  }
}
