import { table, type Row } from './lib.js';
import { startHub, startMinimalHttp, httpClient, rss, cpuMs } from './harness.js';

const WINDOW_S = Number(process.env.BENCH_IDLE_SECONDS ?? 10);

async function measure(pid: number): Promise<{ rss: number; cpu: number }> {
  const c0 = cpuMs(pid);
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  return { rss: rss(pid), cpu: ((cpuMs(pid) - c0) / (WINDOW_S * 1000)) * 100 };
}

/**
 * What an idle hub costs: RSS and CPU with no clients, and with 100 idle sessions open.
 * BENCH_BASELINE_PINCER adds that build's hub in the same states, measured alongside.
 */
export async function benchIdle(): Promise<string> {
  const baselinePath = process.env.BENCH_BASELINE_PINCER;
  const hub = await startHub();
  const base = baselinePath ? await startHub({}, baselinePath) : undefined;
  const peer = await startMinimalHttp();
  await new Promise((r) => setTimeout(r, 1000));
  const hub0 = await measure(hub.pid);
  const base0 = base ? await measure(base.pid) : undefined;
  const peer0 = await measure(peer.pid);
  const a = await Promise.all(Array.from({ length: 100 }, () => httpClient(hub.url, hub.token)));
  const c = base ? await Promise.all(Array.from({ length: 100 }, () => httpClient(base.url, base.token))) : [];
  const b = await Promise.all(Array.from({ length: 100 }, () => httpClient(peer.url)));
  const hub100 = await measure(hub.pid);
  const base100 = base ? await measure(base.pid) : undefined;
  const peer100 = await measure(peer.pid);
  await Promise.all([...a, ...b, ...c].map((x) => x.close()));
  await hub.stop();
  await base?.stop();
  await peer.stop();
  const mb = (n: number) => n / 1048576;
  const rows: Row[] = [
    { name: 'pincer hub RSS, no clients', samples: [mb(hub0.rss)], unit: 'MB' },
    ...(base0 ? [{ name: 'pincer baseline build hub RSS, no clients', samples: [mb(base0.rss)], unit: 'MB' }] : []),
    { name: 'minimal SDK RSS, no clients', samples: [mb(peer0.rss)], unit: 'MB' },
  ];
  const rows100: Row[] = [
    { name: 'pincer hub RSS, 100 idle sessions', samples: [mb(hub100.rss)], unit: 'MB' },
    ...(base100 ? [{ name: 'pincer baseline build hub RSS, 100 idle sessions', samples: [mb(base100.rss)], unit: 'MB' }] : []),
    { name: 'minimal SDK RSS, 100 idle sessions', samples: [mb(peer100.rss)], unit: 'MB' },
  ];
  const cpu = `\nIdle CPU over ${WINDOW_S} s: pincer ${hub0.cpu.toFixed(2)}% with no clients, ${hub100.cpu.toFixed(2)}% with 100 sessions; minimal SDK ${peer0.cpu.toFixed(2)}% / ${peer100.cpu.toFixed(2)}%.\n`;
  const added = `100 sessions add ${(mb(hub100.rss) - mb(hub0.rss)).toFixed(1)} MB to the hub${base0 && base100 ? ` (baseline build: ${(mb(base100.rss) - mb(base0.rss)).toFixed(1)} MB)` : ''}.\n`;
  process.stdout.write(cpu + added);
  return table('Idle cost, no clients', rows) + '\n' + table('Idle cost, 100 idle sessions', rows100) + cpu + added;
}
