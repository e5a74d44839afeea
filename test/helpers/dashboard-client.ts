import crypto from 'node:crypto';

/**
 * The dashboard's side of a dashboard session, in Node, for tests that use the dashboard API
 * without a browser and for attackers that replay what they caught: redeem a sign-in code, prove
 * the hub (hello), then send the session's per-hub credential. Mirrors renderer/src/sign-in.ts.
 */
export interface DashboardClient {
  sid: string;
  epoch: string;
  at: string;
  headers(): Promise<Record<string, string>>;
  fetch(path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
}

const mac = (key: Buffer, parts: string[]) => crypto.createHmac('sha256', key).update(parts.join('\n')).digest('base64url');

/** `<id>.<secret>`: the id goes to the hub, the secret never leaves the client. */
export async function signInWithCode(url: string, code: string): Promise<DashboardClient | undefined> {
  const [id, secret] = code.split('.');
  if (!id || !secret) return undefined;
  const redeemed = await fetch(`${url}/api/dashboard/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code: id }) });
  if (!redeemed.ok) return undefined;
  const { sid } = (await redeemed.json()) as { sid: string };
  const key = Buffer.from(mac(Buffer.from(secret, 'base64url'), ['pincer-dashboard-key', sid]), 'base64url');
  const challenge = crypto.randomBytes(18).toString('base64url');
  const hello = (await (await fetch(`${url}/api/dashboard/hello?sid=${sid}&challenge=${challenge}`)).json()) as { known?: boolean; at: string; epoch: string; proof?: string };
  if (!hello.known || hello.proof !== mac(key, ['pincer-dashboard-hub', challenge, hello.at, hello.epoch])) return undefined;
  const credential = mac(key, ['pincer-dashboard-request', hello.epoch]);
  const client: DashboardClient = {
    sid,
    epoch: hello.epoch,
    at: hello.at,
    headers: async () => ({ 'X-Pincer-Session': `${sid}.${credential}` }),
    fetch: async (path, init = {}) =>
      fetch(`${url}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { ...(await client.headers()), ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      }),
  };
  return client;
}
