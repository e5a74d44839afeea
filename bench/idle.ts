import { table, type Row } from './lib.js';
import { startHub, startMinimalHttp, httpClient, rss, cpuMs } from './harness.js';

const WINDOW_S = Number(process.env.BENCH_IDLE_SECONDS ?? 10);

async function measure(pid: number): Promise<{ rss: number; cpu: number }> {
  const c0 = cpuMs(pid);
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  return { rss: rss(pid), cpu: ((cpuMs(pid) - c0) / (WINDOW_S * 1000)) * 100 };
}

/** What an idle hub costs: RSS and CPU with no clients, and with 100 idle sessions open. */
export async function benchIdle(): Promise<string> {
  const hub = await startHub();
  const peer = await startMinimalHttp();
  await new Promise((r) => setTimeout(r, 1000));
  const hub0 = await measure(hub.pid);
  const peer0 = await measure(peer.pid);
  const a = await Promise.all(Array.from({ length: 100 }, () => httpClient(hub.url, hub.token)));
  const b = await Promise.all(Array.from({ length: 100 }, () => httpClient(peer.url)));
  const hub100 = await measure(hub.pid);
  const peer100 = await measure(peer.pid);
  await Promise.all([...a, ...b].map((c) => c.close()));
  await hub.stop();
  await peer.stop();
  const mb = (n: number) => n / 1048576;
  const rows: Row[] = [
    { name: 'pincer hub RSS, no clients', samples: [mb(hub0.rss)], unit: 'MB' },
    { name: 'minimal SDK RSS, no clients', samples: [mb(peer0.rss)], unit: 'MB' },
  ];
  const rows100: Row[] = [
    { name: 'pincer hub RSS, 100 idle sessions', samples: [mb(hub100.rss)], unit: 'MB' },
    { name: 'minimal SDK RSS, 100 idle sessions', samples: [mb(peer100.rss)], unit: 'MB' },
  ];
  const cpu = `\nIdle CPU over ${WINDOW_S} s: pincer ${hub0.cpu.toFixed(2)}% with no clients, ${hub100.cpu.toFixed(2)}% with 100 sessions; minimal SDK ${peer0.cpu.toFixed(2)}% / ${peer100.cpu.toFixed(2)}%.\n`;
  process.stdout.write(cpu);
  return table('Idle cost, no clients', rows) + '\n' + table('Idle cost, 100 idle sessions', rows100) + cpu;
}
