/*
 * What a headless render waits for once the document is parsed: the page's own work in flight (scripts, XHR and fetch
 * requests; DOM changes; timers due shortly), never its subresources, never past the deadline.
 */

/** How long the DOM must be still before a rendered page counts as settled, and the longest settling wait (before wait_ms). */
export const SETTLE_QUIET_MS = 300;
export const SETTLE_MAX_MS = 3000;
/** The quiet window for a renderer that cannot watch the page's timers from its start (Electron's window): longer, as before. */
export const SETTLE_QUIET_UNWATCHED_MS = 500;

/** A timer set for at most this long counts as work in flight (content shown "after a moment")… */
const SHORT_TIMER_MS = 1000;
/** …when it is set this early in the page's life; later ones are a page's heartbeat (a carousel, a poller), not its build. */
const TIMERS_WATCHED_MS = 2000;

interface Activity {
  /** Resolves true once the DOM has been still for `quietMs` and no watched timer is pending, false after `maxMs`. */
  quiet(quietMs: number, maxMs: number): Promise<boolean>;
}

/**
 * Runs in the page before its own scripts (Playwright's init script): notes when the DOM last changed and which short
 * timers the page set early on are still pending, so that settling can be judged inside the page in one round trip.
 * Timers set with a string, or for longer, pass through untouched.
 */
export function activityTracker(limits: { shortTimerMs: number; watchedMs: number }): void {
  const w = window as unknown as { __pincerActivity?: Activity };
  if (w.__pincerActivity) return;
  const now = () => performance.now();
  const nativeSet = window.setTimeout.bind(window);
  const nativeClear = window.clearTimeout.bind(window);
  const pending = new Set<number>();
  let changed = now();
  new MutationObserver(() => void (changed = now())).observe(document, { subtree: true, childList: true, characterData: true });
  window.setTimeout = ((handler: TimerHandler, ms?: number, ...args: unknown[]) => {
    const delay = Number(ms) || 0;
    if (typeof handler !== 'function' || delay > limits.shortTimerMs || now() > limits.watchedMs) return nativeSet(handler, ms, ...args);
    const id = nativeSet(() => {
      pending.delete(id);
      (handler as (...a: unknown[]) => void)(...args);
    }, delay);
    pending.add(id);
    return id;
  }) as typeof window.setTimeout;
  window.clearTimeout = ((id?: number) => {
    if (id !== undefined) pending.delete(id);
    nativeClear(id);
  }) as typeof window.clearTimeout;
  w.__pincerActivity = {
    quiet: (quietMs, maxMs) =>
      new Promise((resolve) => {
        const start = now();
        const check = () => {
          const t = now();
          if (t - changed >= quietMs && pending.size === 0) return resolve(true);
          if (t - start >= maxMs) return resolve(false);
          nativeSet(check, Math.min(50, Math.max(1, quietMs - (t - changed))));
        };
        check();
      }),
  };
}
export const ACTIVITY_LIMITS = { shortTimerMs: SHORT_TIMER_MS, watchedMs: TIMERS_WATCHED_MS };

interface SettlingPage {
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  waitForTimeout(ms: number): Promise<void>;
}

/**
 * Late content: waits until the DOM has been still for SETTLE_QUIET_MS with no script, XHR or fetch in flight and no
 * early short timer pending, at most SETTLE_MAX_MS and never past the deadline. Requests that never answer (an
 * unreachable tracker) cost the cap, not more.
 */
export async function settle(page: SettlingPage, inFlight: Set<unknown>, deadline: number): Promise<void> {
  const end = Math.min(deadline, Date.now() + SETTLE_MAX_MS);
  while (Date.now() < end) {
    const left = end - Date.now();
    const quiet = await withTimeout(
      page.evaluate(([q, m]) => (window as unknown as { __pincerActivity?: Activity }).__pincerActivity?.quiet(q, m) ?? true, [SETTLE_QUIET_MS, left] as const),
      left + 250,
      'busy',
    ).catch(() => false); // a page too busy to answer, or navigating, counts as still changing
    if (quiet && inFlight.size === 0) return;
    await page.waitForTimeout(Math.min(50, Math.max(0, end - Date.now())));
  }
}

/**
 * The DOM as HTML, without its scripts: what they built is in the DOM, and their code (often hundreds of kB inline, or a
 * page's whole content again as a JSON island) is no text to extract, only more to carry over and parse. Removed and
 * serialized in one step in the page, which is not used again. A page caught mid-navigation (a script redirect) is read
 * again once it has one.
 */
export async function snapshot(page: { evaluate<R>(fn: () => R): Promise<R>; waitForTimeout(ms: number): Promise<void> }): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await page.evaluate(() => {
        for (const s of Array.from(document.querySelectorAll('script'))) s.remove();
        return (document.doctype ? `<!DOCTYPE ${document.doctype.name}>` : '') + document.documentElement.outerHTML;
      });
    } catch (err) {
      if (attempt >= 20 || !/navigat/i.test((err as Error).message)) throw err;
      await page.waitForTimeout(100);
    }
  }
}

/** Whether two URLs name the same document (the fragment aside). */
export function sameDocument(a: string, b: string): boolean {
  if (!URL.canParse(a) || !URL.canParse(b)) return false;
  const x = new URL(a);
  const y = new URL(b);
  x.hash = '';
  y.hash = '';
  return x.href === y.href;
}

export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}
