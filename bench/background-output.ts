import { table, percentile, type Row } from './lib.js';
import { startHub, httpClient, rss, time } from './harness.js';

const GB = Number(process.env.BENCH_BG_BYTES ?? 1024 ** 3);

/**
 * A job printing 1 GB: the hub's peak RSS while it runs, and the cost of
 * ReadBgOutput of the newest chunk at 1 MB and at 1 GB of log (reads start at
 * the saved position, so they should cost the same).
 */
export async function benchBackgroundOutput(): Promise<string> {
  const hub = await startHub({ JOB_LOG_MAX_BYTES: String(2 * 1024 ** 3), NODE_OPTIONS: '--expose-gc' });
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
      read += (r.structuredContent as { bytes: number }).bytes;
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
  const writeSeconds = (Date.now() - t0) / 1000;
  const bigTail = await tails(big);
  clearInterval(sampler);
  const live = (await (await fetch(`${hub.url}/api/hub/memory`, { headers: { Authorization: `Bearer ${hub.token}` } })).json()) as { heapUsed: number; rss: number; collected: boolean };
  await client.callTool({ name: 'KillBgTask', arguments: { task_id: small } }).catch(() => undefined);
  await client.callTool({ name: 'KillBgTask', arguments: { task_id: big } }).catch(() => undefined);
  await close();
  await hub.stop();
  const rows: Row[] = [
    { name: `ReadBgOutput of the last chunk, ${(GB / 1024 ** 3).toFixed(2)} GB log`, samples: bigTail },
    { name: 'ReadBgOutput of the last chunk, 1 MB log', samples: smallTail },
  ];
  const mem = `\nHub RSS: ${(baseline / 1048576).toFixed(0)} MB before, ${(peak / 1048576).toFixed(0)} MB peak while the job wrote and the client read ${(GB / 1024 ** 3).toFixed(2)} GB through it (${writeSeconds.toFixed(1)} s); live heap after a collection at the end: ${(live.heapUsed / 1048576).toFixed(0)} MB${live.collected ? '' : ' (not collected)'}; median tail read ${percentile(bigTail, 50).toFixed(2)} ms.\n`;
  process.stdout.write(mem);
  return table('Background output', rows) + mem;
}
