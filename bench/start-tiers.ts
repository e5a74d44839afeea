import { table, type Row } from './lib.js';
import { startHub, httpClient, rss, cpuMs, type Hub } from './harness.js';

const ROUNDS = Number(process.env.BENCH_TIER_ROUNDS ?? 6);
const CALLS = Number(process.env.BENCH_TIER_CALLS ?? 500);

interface Subject {
  name: string;
  hub: Hub;
  cpuPerCall: number[];
  idleRss: number;
}

/**
 * The hub runs its start-up with the optimising compilers off and turns them back on once it listens
 * (core/node-flags.ts). Does turning them back on take effect? Hub CPU per call (ListBgTasks over
 * Streamable HTTP), rounds interleaved between three hubs of this build: as shipped; with the default
 * tiers all along (PINCER_HUB_START_TIERS=1); and with the tiers off for good (`--no-maglev
 * --no-turbofan` on its command line), the control that shows what unoptimised calls would cost.
 * Also each hub's RSS once idle after its start, before any call.
 */
export async function benchStartTiers(): Promise<string> {
  const subjects: Subject[] = [];
  const add = async (name: string, env: Record<string, string>, flags: string[] = []) =>
    subjects.push({ name, hub: await startHub(env, undefined, flags), cpuPerCall: [], idleRss: 0 });
  await add('tiers off during start-up (as shipped)', {});
  await add('default tiers all along', { PINCER_HUB_START_TIERS: '1' });
  await add('tiers off for good (control)', {}, ['--no-maglev', '--no-turbofan']);
  await new Promise((r) => setTimeout(r, 11_000));
  for (const s of subjects) s.idleRss = rss(s.hub.pid);
  const clients = await Promise.all(subjects.map((s) => httpClient(s.hub.url, s.hub.token)));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, s] of subjects.entries()) {
        const c0 = cpuMs(s.hub.pid);
        for (let n = 0; n < CALLS; n++) await clients[i]!.client.callTool({ name: 'ListBgTasks', arguments: {} });
        // The first round warms up (and tiers up) each hub: not counted.
        if (round > 0) s.cpuPerCall.push((cpuMs(s.hub.pid) - c0) / CALLS);
      }
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    for (const s of subjects) await s.hub.stop();
  }
  const mb = (n: number) => n / 1048576;
  const rows: Row[] = subjects.map((s) => ({ name: `hub CPU per call, ${s.name}`, samples: s.cpuPerCall, unit: 'ms' }));
  const idle = `Idle RSS 11 s after start, before any call: ${subjects.map((s) => `${s.name} ${mb(s.idleRss).toFixed(1)} MB`).join('; ')}.\n`;
  const out = table(`Optimising tiers at start-up (${ROUNDS - 1} × ${CALLS} calls each, interleaved)`, rows, rows[1]!.name);
  process.stdout.write(idle);
  return out + '\n' + idle;
}
