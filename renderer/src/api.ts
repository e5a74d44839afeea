/**
 * The hub's API, same-origin, with this tab's dashboard sign-in (sign-in.ts): every request goes
 * to a hub that proved itself first, and its answer counts only when it carries the MAC of the
 * request it answers. No cookie, nothing in storage.
 */
import { ApiError, HubUnreachable, SignedOut } from './errors.js';
import { credentials, forget, prove, unprove } from './sign-in.js';

export { ApiError, HubUnreachable, SignedOut };
/** The name the pages know a signed-out answer by. */
export const Unauthorized = SignedOut;

export function isHubUnreachable(err: unknown): boolean {
  return err instanceof HubUnreachable;
}

type Listener = (up: boolean) => void;
const reachability = new Set<Listener>();
export function onReachability(l: Listener): () => void {
  reachability.add(l);
  return () => reachability.delete(l);
}
export function reportReachable(up: boolean): void {
  for (const l of reachability) l(up);
}

async function send(path: string, init: { method?: string; body?: unknown }): Promise<Response> {
  const { headers, check } = await credentials().catch((err: unknown) => {
    if (err instanceof HubUnreachable) reportReachable(false);
    throw err;
  });
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
      headers: { ...headers, ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    unprove();
    reportReachable(false);
    throw new HubUnreachable('The hub is not answering.');
  }
  if (res.status === 401) return res;
  if (!(await check(res))) {
    reportReachable(false);
    throw new HubUnreachable('What answered was not the hub this dashboard signed in to.');
  }
  return res;
}

/** The hub's answer to a request of this tab, whatever its body (a file to save): proven, credentialed and checked as api() does. */
export async function apiResponse(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  let res = await send(path, init);
  if (res.status === 401) {
    // The sign-in ended, or the port changed hands since the proof: asking the hub again tells which.
    unprove();
    await prove();
    res = await send(path, init);
    if (res.status === 401) {
      forget();
      throw new SignedOut('Your dashboard sign-in has ended. Run "pincer dashboard" to sign in again.');
    }
  }
  return res;
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await apiResponse(path, init);
  const data = (await res.json().catch(() => ({}))) as { error?: { message?: string; code?: string | number } };
  if (!res.ok) throw new ApiError(data.error?.message ?? `The hub answered ${res.status}.`, String(data.error?.code ?? res.status), res.status, data);
  return data as T;
}

/** What a person should read for an error: never a raw exception. */
export function describeError(err: unknown): string {
  if (err instanceof HubUnreachable) return 'The hub is not answering. This page refreshes by itself when it is back.';
  if (err instanceof ApiError || err instanceof SignedOut) return err.message;
  return 'Something went wrong while talking to the hub. Try again.';
}

/** Signs this tab out: the hub ends the sign-in, and the tab forgets it either way. */
export async function signOut(): Promise<void> {
  try {
    const { headers } = await credentials();
    await fetch('/api/dashboard/logout', { method: 'POST', headers, credentials: 'omit', cache: 'no-store' });
  } catch {
    // A hub that is away (or proves nothing) has nothing to end; the tab forgets the sign-in below all the same.
  }
  forget();
}
