import { logger, type Logger } from './log.js';

/** Something that releases what it holds: a listener, a timer, a stream. */
export type Disposer = () => void;

const defaultLog = logger('lifetime');

/**
 * Owns the listeners and timers of one lifetime (a session, a stream, a hub)
 * and releases them all at once, so nothing is paired by hand. A release that
 * throws is logged with what it was and whose, and the others still run.
 */
export class DisposableStore {
  private disposers: { dispose: Disposer; what?: string }[] = [];
  private disposed = false;

  /** `owner` names the lifetime in the log line of a release that failed ("session 3f…", "the runtime"). */
  constructor(
    private readonly owner = 'a lifetime',
    private readonly log: Logger = defaultLog,
  ) {}

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Takes ownership; if the store is already disposed, releases at once. `what` names it in a failure's log line. */
  add(dispose: Disposer, what?: string): void {
    if (this.disposed) this.release({ dispose, what });
    else this.disposers.push({ dispose, what });
  }

  interval(fn: () => void, ms: number): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.add(() => clearInterval(t), 'an interval');
  }

  timeout(fn: () => void, ms: number): void {
    const t = setTimeout(fn, ms);
    t.unref();
    this.add(() => clearTimeout(t), 'a timeout');
  }

  /** `emitter.on(event, fn)` now, `emitter.off(event, fn)` on dispose. */
  listen<A extends unknown[]>(emitter: { on(e: string, fn: (...a: A) => void): unknown; off(e: string, fn: (...a: A) => void): unknown }, event: string, fn: (...a: A) => void): void {
    emitter.on(event, fn);
    this.add(() => emitter.off(event, fn), `the '${event}' listener`);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const all = this.disposers.reverse();
    this.disposers = [];
    for (const d of all) this.release(d);
  }

  /** One failing release must not keep the others, nor go unseen. */
  private release(d: { dispose: Disposer; what?: string }): void {
    try {
      d.dispose();
    } catch (err) {
      this.log.warn(`releasing ${d.what ?? (d.dispose.name || 'a disposer')} of ${this.owner} failed`, { err });
    }
  }
}
