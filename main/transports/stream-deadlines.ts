/**
 * The "stream after HTTP_STREAM_AFTER_MS" deadlines of a session's held POSTs
 * in one queue with one timer, instead of a setTimeout and clearTimeout per
 * request (a measurable part of a cheap call, bench/RESULTS.md "hotpath"). Every entry waits
 * the same delay, so arrival order is due order; an answered request stays in
 * the queue and is skipped when its time comes. Right after the setting is
 * lowered an entry may fire late by the difference, never early.
 */
/**
 * Monotonic milliseconds. Not `performance.now()`: the `performance` global loads perf_hooks (a dozen
 * internal modules) on a hub's first session, memory an idle hub keeps (bench/RESULTS.md: idle sessions).
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export class StreamDeadlines<T extends { due: number }> {
  private queue: (T | undefined)[] = [];
  private head = 0;
  private timer?: NodeJS.Timeout;

  /** `fire` runs for each entry whose time came, unless `waiting` says it no longer waits. */
  constructor(
    private fire: (item: T) => void,
    private waiting: (item: T) => boolean,
  ) {}

  add(item: T): void {
    this.queue.push(item);
    if (!this.timer) this.arm(item.due);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
    this.head = 0;
  }

  private arm(due: number): void {
    this.timer = setTimeout(() => this.tick(), Math.max(0, due - monotonicMs()));
    this.timer.unref();
  }

  private tick(): void {
    this.timer = undefined;
    const now = monotonicMs();
    for (let item = this.queue[this.head]; item && item.due <= now; item = this.queue[this.head]) {
      this.queue[this.head++] = undefined;
      if (this.waiting(item)) this.fire(item);
    }
    const next = this.queue[this.head];
    if (!next) {
      this.queue = [];
      this.head = 0;
      return;
    }
    if (this.head > 1024) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.arm(next.due);
  }
}
