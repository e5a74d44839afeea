/** Something that releases what it holds: a listener, a timer, a stream. */
export type Disposer = () => void;

/**
 * Owns the listeners and timers of one lifetime (a session, a stream, a hub)
 * and releases them all at once, so nothing is paired by hand.
 */
export class DisposableStore {
  private disposers: Disposer[] = [];
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Takes ownership; if the store is already disposed, releases at once. */
  add(dispose: Disposer): void {
    if (this.disposed) dispose();
    else this.disposers.push(dispose);
  }

  interval(fn: () => void, ms: number): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.add(() => clearInterval(t));
  }

  timeout(fn: () => void, ms: number): void {
    const t = setTimeout(fn, ms);
    t.unref();
    this.add(() => clearTimeout(t));
  }

  /** `emitter.on(event, fn)` now, `emitter.off(event, fn)` on dispose. */
  listen<A extends unknown[]>(emitter: { on(e: string, fn: (...a: A) => void): unknown; off(e: string, fn: (...a: A) => void): unknown }, event: string, fn: (...a: A) => void): void {
    emitter.on(event, fn);
    this.add(() => emitter.off(event, fn));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const all = this.disposers.reverse();
    this.disposers = [];
    for (const d of all) {
      try {
        d();
      } catch {
        // One failing release must not keep the others.
      }
    }
  }
}
