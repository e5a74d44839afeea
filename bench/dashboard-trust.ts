import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { table } from './lib.js';
import { PINCER, startHub, time } from './harness.js';
import { signInWithCode } from '../test/helpers/dashboard-client.js';

const N = Number(process.env.BENCH_CALLS ?? 300);
const TAKEOVERS = Number(process.env.BENCH_TAKEOVERS ?? 5);

/**
 * What the dashboard's trust costs (`BENCH_ONLY=trust npm run bench`). A request of a signed-in
 * browser tab — its session's credential, checked in constant time, and the MAC of its request id on
 * the answer — against the same request with the token, on the same hub in the same run. And a
 * handover as Linux does it now (the newcomer listens beside the old hub: the port is never free)
 * against the order macOS and Windows keep (`PINCER_SHARE_PORT=0`: drain, release, listen), with an
 * HTTP client calling throughout: how long a takeover takes, how long the slowest call waited, how
 * many failed.
 */
export async function benchDashboardTrust(): Promise<void> {
  const hub = await startHub();
  try {
    const link = (await (await fetch(`${hub.url}/api/dashboard/link`, { method: 'POST', headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json' }, body: '{}' })).json()) as { url: string };
    const session = (await signInWithCode(hub.url, /#signin=(.+)$/.exec(link.url)![1]!))!;
    const sessionHeaders = { ...(await session.headers()), 'X-Pincer-Request': 'bench-request-id-0123456789' };
    const token = { Authorization: `Bearer ${hub.token}` };
    const get = (headers: Record<string, string>) => time(async () => (await fetch(`${hub.url}/api/overview`, { headers })).arrayBuffer());
    for (let i = 0; i < 20; i++) await Promise.all([get(token), get(sessionHeaders)]);
    const rows = { token: [] as number[], session: [] as number[] };
    // Alternating, so that both see the same machine.
    for (let i = 0; i < N; i++) {
      rows.session.push(await get(sessionHeaders));
      rows.token.push(await get(token));
    }
    table('Dashboard API request (GET /api/overview): a browser session against the token, same hub', [
      { name: 'browser session (credential + answer MAC)', samples: rows.session },
      { name: 'token', samples: rows.token },
    ]);
  } finally {
    await hub.stop();
  }
  const shared = await takeovers({});
  const oldOrder = await takeovers({ PINCER_SHARE_PORT: '0' });
  table('Takeover by a new `pincer serve`: spawn to hub.json (an HTTP client calling throughout)', [
    { name: 'listening beside the old hub (Linux now)', samples: shared.took },
    { name: 'drain, release, listen (PINCER_SHARE_PORT=0)', samples: oldOrder.took },
  ]);
  table('Slowest call of the HTTP client during each takeover', [
    { name: 'listening beside the old hub (Linux now)', samples: shared.slowest },
    { name: 'drain, release, listen (PINCER_SHARE_PORT=0)', samples: oldOrder.slowest },
  ]);
  const why = (r: string[]) => (r.length ? ` (${r.slice(0, 3).join('; ')})` : '');
  process.stdout.write(`\nFailed calls over ${TAKEOVERS} takeovers: ${shared.failed} of ${shared.calls} listening beside${why(shared.reasons)}, ${oldOrder.failed} of ${oldOrder.calls} with drain-release-listen${why(oldOrder.reasons)}\n`);
}

async function takeovers(env: Record<string, string>): Promise<{ took: number[]; slowest: number[]; failed: number; calls: number; reasons: string[] }> {
  const first = await startHub(env);
  const port = new URL(first.url).port;
  const took: number[] = [];
  const slowest: number[] = [];
  const reasons: string[] = [];
  let failed = 0;
  let calls = 0;
  let stop = false;
  let slow = 0;
  const caller = (async () => {
    for (let i = 0; !stop; i++) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${first.url}/api/mcp/jsonrpc`, { method: 'POST', headers: { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo x' } } }) });
        const body = await res.text();
        if (res.status !== 200) {
          failed++;
          reasons.push(`${res.status} ${body.slice(0, 60)}`);
        }
      } catch (err) {
        failed++;
        reasons.push(`${(err as Error).message}: ${String((err as { cause?: unknown }).cause ?? '')}`);
      }
      calls++;
      slow = Math.max(slow, performance.now() - t0);
    }
  })();
  const children = [];
  try {
    for (let n = 0; n < TAKEOVERS; n++) {
      slow = 0;
      const t0 = performance.now();
      const child = spawn(process.execPath, [PINCER, 'serve', '--quiet'], { env: { ...process.env, PINCER_HOME: first.home, HOME: first.home, HTTP_PORT: port, PINCER_LOG_LEVEL: 'error', BASH_CWD: first.home, ...env }, stdio: 'ignore' });
      children.push(child);
      for (;;) {
        await new Promise((r) => setTimeout(r, 20));
        try {
          if ((JSON.parse(fs.readFileSync(path.join(first.home, 'hub.json'), 'utf8')) as { pid: number }).pid === child.pid) break;
        } catch {
          // hub.json is between two hubs: look again.
        }
      }
      took.push(performance.now() - t0);
      // The calls of the next second belong to this takeover too: the newcomer serves what waited.
      await new Promise((r) => setTimeout(r, 1000));
      slowest.push(slow);
    }
  } finally {
    stop = true;
    await caller;
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await first.stop();
  }
  return { took, slowest, failed, calls, reasons: [...new Set(reasons)] };
}


