/** The hub's API, same-origin: the token travels as an HttpOnly cookie set at login. */
export class Unauthorized extends Error {}

export async function api<T = Record<string, unknown>>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
    headers: init.body !== undefined ? { 'Content-Type': 'application/json' } : {},
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    credentials: 'same-origin',
  });
  if (res.status === 401) throw new Unauthorized();
  const data = (await res.json().catch(() => ({}))) as T & { error?: { message?: string } };
  if (!res.ok) {
    const err = new Error(data.error?.message ?? `HTTP ${res.status}`) as Error & { data?: unknown };
    err.data = data;
    throw err;
  }
  return data;
}

export type HubEvent = { type: string; [k: string]: unknown };

/** The hub's event stream; reconnects by itself (EventSource) and reports whether it is live. */
export function subscribe(onEvent: (e: HubEvent) => void, onState: (live: boolean) => void): EventSource {
  const es = new EventSource('/api/mcp/connect');
  es.onopen = () => onState(true);
  es.onerror = () => onState(false);
  es.onmessage = (m) => {
    try {
      onEvent(JSON.parse(m.data) as HubEvent);
    } catch {
      // Ignore what is not JSON.
    }
  };
  return es;
}
