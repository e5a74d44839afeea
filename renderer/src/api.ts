/**
 * The hub's API, same-origin. A signed-in dashboard sends its session cookie
 * (HttpOnly, set by the hub) and the session's key, kept in this tab's
 * sessionStorage: a server on another port of 127.0.0.1 may see the cookie, never
 * the key, and a program that takes the hub's port while it is away finds no key
 * in any tab it opens there (localStorage would hand it every tab's key). Closing
 * the tab forgets the key.
 */
const KEY_STORE = 'pincer-session-key';
const KEY_HEADER = 'X-Pincer-Session-Key';

export class Unauthorized extends Error {
  override name = 'Unauthorized';
}

/** The hub did not answer at all (stopped, restarting): the banner says so, pages keep their last data. */
export class HubUnreachable extends Error {
  override name = 'HubUnreachable';
}

export function isHubUnreachable(err: unknown): boolean {
  return err instanceof HubUnreachable;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(message: string, readonly code: string, readonly status: number, readonly data: unknown) {
    super(message);
  }
}

export function sessionKey(): string | null {
  return sessionStorage.getItem(KEY_STORE);
}

export function setSessionKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_STORE, key);
  else sessionStorage.removeItem(KEY_STORE);
  // A key an older dashboard left in localStorage outlives every tab: it goes.
  localStorage.removeItem(KEY_STORE);
}

export function authHeaders(): Record<string, string> {
  const key = sessionKey();
  return key ? { [KEY_HEADER]: key } : {};
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

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
      headers: { ...authHeaders(), ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    reportReachable(false);
    throw new HubUnreachable('The hub is not answering.');
  }
  if (res.status === 401) throw new Unauthorized('Signed out.');
  const data = (await res.json().catch(() => ({}))) as { error?: { message?: string; code?: string | number } };
  if (!res.ok) throw new ApiError(data.error?.message ?? `The hub answered ${res.status}.`, String(data.error?.code ?? res.status), res.status, data);
  return data as T;
}

/** What a person should read for an error: never a raw exception. */
export function describeError(err: unknown): string {
  if (err instanceof HubUnreachable) return 'The hub is not answering. This page refreshes by itself when it is back.';
  if (err instanceof ApiError) return err.message;
  if (err instanceof Unauthorized) return 'You are signed out.';
  return 'Something went wrong while talking to the hub. Try again.';
}

export async function signIn(token: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch('/api/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) });
  } catch {
    throw new HubUnreachable('The hub is not answering.');
  }
  const data = (await res.json().catch(() => ({}))) as { key?: string; error?: { message?: string } };
  if (!res.ok || !data.key) throw new ApiError(data.error?.message ?? 'That is not the token.', 'LOGIN', res.status, data);
  setSessionKey(data.key);
}

export async function signOut(): Promise<void> {
  await fetch('/api/logout', { method: 'POST', headers: authHeaders() }).catch(() => undefined);
  setSessionKey(null);
}
