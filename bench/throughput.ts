import { table, type Row } from './lib.js';
import { startHub, startMinimalHttp, httpClient } from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

/** Calls per second with N concurrent sessions for a fixed time; each sample is one session's rate. */
async function rate(url: string, token: string | undefined, sessions: number, call: (c: Awaited<ReturnType<typeof httpClient>>['client']) => Promise<unknown>): Promise<{ total: number; perSession: number[] }> {
  const clients = await Promise.all(Array.from({ length: sessions }, () => httpClient(url, token)));
  const until = Date.now() + SECONDS * 1000;
  const counts = await Promise.all(
    clients.map(async ({ client }) => {
      let n = 0;
      while (Date.now() < until) {
        await call(client);
        n++;
      }
      return n;
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
  return { total: counts.reduce((a, b) => a + b, 0) / SECONDS, perSession: counts.map((c) => c / SECONDS) };
}

export async function benchThroughput(): Promise<string> {
  const hub = await startHub();
  // BENCH_BASELINE_PINCER=<another build>/dist/main/cli/pincer.js adds that build's hub: before/after in one run.
  const baselinePath = process.env.BENCH_BASELINE_PINCER;
  const baseline = baselinePath ? await startHub({}, baselinePath) : undefined;
  const peer = await startMinimalHttp();
  const tables: string[] = [];
  for (const n of [1, 8, 64]) {
    const rows: Row[] = [];
    const p = await rate(hub.url, hub.token, n, (c) => c.callTool({ name: 'ListBgTasks', arguments: {} }));
    rows.push({ name: `pincer, ${n} session(s)`, samples: [p.total], unit: 'calls/s' });
    if (baseline) {
      const b = await rate(baseline.url, baseline.token, n, (c) => c.callTool({ name: 'ListBgTasks', arguments: {} }));
      rows.push({ name: `pincer baseline build, ${n} session(s)`, samples: [b.total], unit: 'calls/s' });
    }
    const m = await rate(peer.url, undefined, n, (c) => c.callTool({ name: 'echo', arguments: { text: 'x' } }));
    rows.push({ name: `minimal SDK, ${n} session(s)`, samples: [m.total], unit: 'calls/s' });
    // One table per concurrency, each Pincer row against its own peer row.
    tables.push(table(`Throughput over Streamable HTTP, ${n} concurrent session(s), ${SECONDS} s`, rows));
  }
  await hub.stop();
  await baseline?.stop();
  await peer.stop();
  return tables.join('\n');
}
