import { useEffect, useRef, useState, useCallback } from 'preact/hooks';
import { api, describeError, Unauthorized, onReachability, isHubUnreachable } from './api.js';
import { onHubEvent, onEpoch, type StreamEvent } from './live.js';
import type { Dispatch, StateUpdater } from 'preact/hooks';

export interface Resource<T> {
  data: T | undefined;
  error: string | undefined;
  reload(): void;
}

/** Does an event type match a page's list (`job_*` matches every job event)? */
export function matches(types: readonly string[], type: string): boolean {
  return types.some((t) => t === type || (t.endsWith('*') && type.startsWith(t.slice(0, -1))));
}

/**
 * Data from the hub that stays current: fetched on mount, again shortly after
 * an event it depends on, and again when the hub comes back. The last good
 * data stays on screen meanwhile, and Preact's diff changes only what changed,
 * so focus, selection and half-typed input survive.
 */
export function useResource<T>(path: string, events: readonly string[], onSignedOut: (why?: string) => void): Resource<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const timer = useRef<number | undefined>(undefined);
  const seq = useRef(0);
  const load = useCallback(() => {
    const mine = ++seq.current;
    api<T>(path).then(
      (d) => {
        if (mine !== seq.current) return;
        setData(d);
        setError(undefined);
      },
      (err: unknown) => {
        if (mine !== seq.current) return;
        if (err instanceof Unauthorized) onSignedOut(err.message);
        else if (!isHubUnreachable(err)) setError(describeError(err));
      },
    );
  }, [path]);
  useEffect(() => {
    load();
    const later = () => {
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(load, 120);
    };
    const offEvent = onHubEvent((e: StreamEvent) => {
      if (matches(events, e.type)) later();
    });
    const offEpoch = onEpoch(() => load());
    return () => {
      offEvent();
      offEpoch();
      window.clearTimeout(timer.current);
    };
  }, [load, events.join(',')]);
  return { data, error, reload: load };
}

/** Re-renders every `ms` so relative times and countdowns tick. */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(t);
  }, [ms]);
  return now;
}

export function useReachable(): boolean {
  const [up, setUp] = useState(true);
  useEffect(() => onReachability(setUp), []);
  return up;
}

export interface Page<T> {
  data: T | undefined;
  error: string | undefined;
  setError(text: string | undefined): void;
}

/**
 * One page of a long list: read when `path` changes and when the hub comes back. A live event does not
 * read it again by itself: `onEvent` patches it (`patch`) from what the event names, or asks for the
 * page again (`reload`) when it cannot.
 */
export function usePage<T>(path: string, onSignedOut: () => void, onEvent: (e: StreamEvent, patch: Dispatch<StateUpdater<T | undefined>>, reload: () => void) => void): Page<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    let alive = true;
    const patch: Dispatch<StateUpdater<T | undefined>> = (u) => alive && setData(u);
    const load = () => {
      api<T>(path).then(
        (d) => alive && (setData(d), setError(undefined)),
        (err: unknown) => {
          if (!alive) return;
          if (err instanceof Unauthorized) onSignedOut();
          else if (!isHubUnreachable(err)) setError(describeError(err));
        },
      );
    };
    load();
    const offEpoch = onEpoch(load);
    const offEvent = onHubEvent((e) => handler.current(e, patch, load));
    return () => {
      alive = false;
      offEpoch();
      offEvent();
    };
  }, [path]);
  return { data, error, setError };
}
