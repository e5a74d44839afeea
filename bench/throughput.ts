import { table, type Row } from './lib.js';
import { startHub, startMinimalHttp, httpClient, cpuMs } from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/** Interleaved rounds per concurrency: one 3 s run moved ±50% on a shared machine, so each row is a median of rounds. */
const ROUNDS = Number(process.env.BENCH_THROUGHPUT_ROUNDS ?? 3);

type Call = (c: Awaited<ReturnType<typeof httpClient>>['client']) => Promise<unknown>;

/** Calls per second with N concurrent sessions for a fixed time, and the server's CPU time per call (steadier than the rate when other work shares the cores). */
async function rate(url: string, token: string | undefined, pid: number, sessions: number, call: Call): Promise<{ total: number; cpuUsPerCall: number }> {
  const clients = await Promise.all(Array.from({ length: sessions }, () => httpClient(url, token)));
  const cpu0 = cpuMs(pid);
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
  const calls = counts.reduce((a, b) => a + b, 0);
  const cpu = cpuMs(pid) - cpu0;
  await Promise.all(clients.map((c) => c.close()));
  return { total: calls / SECONDS, cpuUsPerCall: (cpu * 1000) / Math.max(1, calls) };
}

export async function benchThroughput(): Promise<string> {
  const hub = await startHub();
  // BENCH_BASELINE_PINCER=<another build>/dist/main/cli/pincer.js adds that build's hub: before/after in one run.
  const baselinePath = process.env.BENCH_BASELINE_PINCER;
  const baseline = baselinePath ? await startHub({}, baselinePath) : undefined;
  const peer = await startMinimalHttp();
  const listBgTasks: Call = (c) => c.callTool({ name: 'ListBgTasks', arguments: {} });
  const subjects = [
    { name: 'pincer', url: hub.url, token: hub.token as string | undefined, pid: hub.pid, call: listBgTasks },
    ...(baseline ? [{ name: 'pincer baseline build', url: baseline.url, token: baseline.token as string | undefined, pid: baseline.pid, call: listBgTasks }] : []),
    { name: 'minimal SDK', url: peer.url, token: undefined, pid: peer.pid, call: ((c) => c.callTool({ name: 'echo', arguments: { text: 'x' } })) as Call },
  ];
  const tables: string[] = [];
  for (const n of [1, 8, 64]) {
    const rates = subjects.map(() => [] as number[]);
    const cpu = subjects.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate who goes first, so drift during a round hits every subject alike.
      for (let k = 0; k < subjects.length; k++) {
        const i = (k + round) % subjects.length;
        const s = subjects[i]!;
        const r = await rate(s.url, s.token, s.pid, n, s.call);
        rates[i]!.push(r.total);
        cpu[i]!.push(r.cpuUsPerCall);
      }
    }
    // One table per concurrency, each Pincer row against its own peer row.
    const rows: Row[] = subjects.map((s, i) => ({ name: `${s.name}, ${n} session(s)`, samples: rates[i]!, unit: 'calls/s' }));
    tables.push(table(`Throughput over Streamable HTTP, ${n} concurrent session(s), ${SECONDS} s × ${ROUNDS} rounds`, rows));
    const cpuRows: Row[] = subjects.map((s, i) => ({ name: `${s.name}, ${n} session(s)`, samples: cpu[i]!, unit: 'µs' }));
    tables.push(table(`Server CPU time per call over Streamable HTTP, ${n} concurrent session(s)`, cpuRows));
  }
  await hub.stop();
  await baseline?.stop();
  await peer.stop();
  return tables.join('\n');
}
