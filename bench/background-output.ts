import { table, percentile, type Row } from './lib.js';
import { startHub, httpClient, rss, time } from './harness.js';

const GB = Number(process.env.BENCH_BG_BYTES ?? 1024 ** 3);

interface ReadThrough {
  baseline: number;
  peak: number;
  seconds: number;
  liveHeap: number;
  collected: boolean;
  smallTail: number[];
  bigTail: number[];
}

/** One hub (this build, or another build's `pincer.js`): a 1 MB log and a GB log read through it. */
async function readThrough(pincer?: string): Promise<ReadThrough> {
  const hub = await startHub({ JOB_LOG_MAX_BYTES: String(2 * 1024 ** 3), NODE_OPTIONS: '--expose-gc' }, pincer);
  const { client, close } = await httpClient(hub.url, hub.token);
  const baseline = rss(hub.pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rss(hub.pid))), 50);
  const start = async (bytes: number) => {
    // Output, then a tail line every 50 ms to read: "the last chunk".
    const r = await client.callTool({ name: 'BackgroundBash', arguments: { command: `head -c ${bytes} /dev/zero | tr '\\0' x; for i in $(seq 1 400); do echo tail-$i; sleep 0.05; done` } });
    return (r.structuredContent as { task_id: number }).task_id;
  };
  const catchUp = async (id: number, bytes: number) => {
    let read = 0;
    while (read < bytes) {
      const r = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, max_bytes: 1024 * 1024, wait_ms: 2000 } });
      // A baseline build answers with structuredContent, this one with _meta (the output travels once).
      const meta = (r._meta?.['dev.pincer/job'] ?? r.structuredContent) as { bytes: number };
      read += meta.bytes;
    }
  };
  const tails = async (id: number) => {
    const samples: number[] = [];
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 60));
      samples.push(await time(() => client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id } })));
    }
    return samples;
  };
  const small = await start(1024 * 1024);
  await catchUp(small, 1024 * 1024);
  const smallTail = await tails(small);
  const t0 = Date.now();
  const big = await start(GB);
  await catchUp(big, GB);
  const seconds = (Date.now() - t0) / 1000;
  const bigTail = await tails(big);
  clearInterval(sampler);
  const live = (await (await fetch(`${hub.url}/api/hub/memory`, { headers: { Authorization: `Bearer ${hub.token}` } })).json()) as { heapUsed: number; rss: number; collected: boolean };
  await client.callTool({ name: 'KillBgTask', arguments: { task_id: small } }).catch(() => undefined);
  await client.callTool({ name: 'KillBgTask', arguments: { task_id: big } }).catch(() => undefined);
  await close();
  await hub.stop();
  return { baseline, peak, seconds, liveHeap: live.heapUsed, collected: live.collected, smallTail, bigTail };
}

function memoryLine(who: string, r: ReadThrough): string {
  const mb = (n: number) => (n / 1048576).toFixed(0);
  return `${who}: ${mb(r.baseline)} MB before, ${mb(r.peak)} MB peak while the job wrote and the client read ${(GB / 1024 ** 3).toFixed(2)} GB through it (${r.seconds.toFixed(1)} s); live heap after a collection at the end: ${mb(r.liveHeap)} MB${r.collected ? '' : ' (not collected)'}; median tail read ${percentile(r.bigTail, 50).toFixed(2)} ms.`;
}

/**
 * A job printing 1 GB: the hub's peak RSS while it runs, and the cost of
 * ReadBgOutput of the newest chunk at 1 MB and at 1 GB of log (reads start at
 * the saved position, so they should cost the same). BENCH_BASELINE_PINCER adds
 * that build's hub doing the same, one after the other, for before/after figures.
 */
export async function benchBackgroundOutput(): Promise<string> {
  const baselinePath = process.env.BENCH_BASELINE_PINCER;
  const runs: [string, ReadThrough][] = [['Hub RSS', await readThrough()]];
  if (baselinePath) runs.push(['Baseline build\'s hub RSS', await readThrough(baselinePath)]);
  const [, r] = runs[0]!;
  const rows: Row[] = [
    { name: `ReadBgOutput of the last chunk, ${(GB / 1024 ** 3).toFixed(2)} GB log`, samples: r.bigTail },
    { name: 'ReadBgOutput of the last chunk, 1 MB log', samples: r.smallTail },
  ];
  let mem = '\n' + runs.map(([who, x]) => memoryLine(who, x)).join('\n') + '\n';
  if (runs[1]) mem += `Peak RSS, this build / baseline build: ${(r.peak / runs[1][1].peak).toFixed(2)}×.\n`;
  process.stdout.write(mem);
  return table('Background output', rows) + mem;
}
