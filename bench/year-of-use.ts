import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/client';
import { startHub, httpClient, type Hub } from './harness.js';
import { percentile } from './lib.js';
import { seedYear, YEAR, FRESH, type SeedCounts } from '../test/helpers/year-seed.js';
import { findChromium, signIn } from '../test/helpers/browser.js';
import { createRuntime } from '../main/calls/runtime.js';

/**
 * "A year of use": a data folder seeded through Pincer's own store code to what a heavy user reaches in a
 * year (10 000 jobs, 100 000 calls, 10 000 tasks, 10 000 MCP tasks) against a fresh one (100 / 200 / 10 /
 * 10), both served by this build with retention limits raised so that everything seeded stays (the answers
 * must be bounded by design, not by pruning). Every tool answer and dashboard API is timed on both hubs in
 * the same interleaved rounds; the ratio of medians is year / fresh. Then what an open dashboard page costs
 * another client's calls, and what retention does to the year's folder under the default limits.
 */

const ROUNDS = Number(process.env.BENCH_YEAR_ROUNDS ?? 15);
const LOG_SCALE = Number(process.env.BENCH_YEAR_LOG_SCALE ?? 0.25);
const WINDOW_MS = Number(process.env.BENCH_YEAR_WINDOW_MS ?? 8_000);
const KEEP_ALL = { JOB_MAX_KEPT: '10000000', JOB_RETENTION_DAYS: '36500', JOB_MAX_KEPT_BYTES: '1099511627776', TASK_RETENTION_DAYS: '36500', QUESTION_RETENTION_DAYS: '36500', CALLBACK_RETENTION_DAYS: '36500', PLAN_RETENTION_DAYS: '36500', ACTIVITY_MAX_CALLS: '10000000', ACTIVITY_RETENTION_DAYS: '3650' };

interface Subject {
  hub: Hub;
  client: Client;
  close(): Promise<void>;
}

type Probe = { name: string; run(s: Subject): Promise<number> };

/** A seeded folder's hub (the seed is written into the folder startHub made, before the hub opens it). */
async function subject(counts: SeedCounts): Promise<Subject & { seedMs: number; logBytes: number }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-year-'));
  const report = seedYear(home, { counts, logScale: LOG_SCALE });
  const hub = await startHub(KEEP_ALL, undefined, home);
  const { client, close } = await httpClient(hub.url, hub.token);
  return {
    hub,
    client,
    seedMs: report.ms,
    logBytes: report.logBytes,
    close: async () => {
      await close();
      await hub.stop();
    },
  };
}

function api(p: string, sizes: Map<string, { year: number; fresh: number }>, year: () => Subject): Probe {
  return {
    name: `GET ${p}`,
    run: async (s) => {
      const t0 = performance.now();
      const res = await fetch(`${s.hub.url}${p}`, { headers: { Authorization: `Bearer ${s.hub.token}` } });
      const body = await res.arrayBuffer();
      const ms = performance.now() - t0;
      if (!res.ok) throw new Error(`${p}: ${res.status}`);
      // By subject: the rounds alternate which hub goes first.
      const entry = sizes.get(`GET ${p}`) ?? { year: 0, fresh: 0 };
      entry[s === year() ? 'year' : 'fresh'] = body.byteLength;
      sizes.set(`GET ${p}`, entry);
      return ms;
    },
  };
}

/** Times each probe on both hubs, alternating which goes first, ROUNDS times. */
async function interleaved(probes: Probe[], year: Subject, fresh: Subject): Promise<Map<string, { year: number[]; fresh: number[] }>> {
  const out = new Map(probes.map((p) => [p.name, { year: [] as number[], fresh: [] as number[] }]));
  for (const p of probes) {
    // Warm both (first use compiles statements and JIT paths).
    await p.run(year);
    await p.run(fresh);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of probes) {
      const order: [Subject, 'year' | 'fresh'][] = round % 2 ? [[fresh, 'fresh'], [year, 'year']] : [[year, 'year'], [fresh, 'fresh']];
      for (const [s, which] of order) out.get(p.name)![which].push(await p.run(s));
    }
  }
  return out;
}

/** A process's CPU time so far (user + system), from /proc: Linux only, as this bench's machine is. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // After the command name: utime and stime are fields 14 and 15 of stat(5), here 11 and 12 (0-based from state).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Calls another client completes in a window while `busy` runs beside it (a generator of task events, a dashboard page). */
async function callsIn(hub: Hub, windowMs: number): Promise<number> {
  const { client, close } = await httpClient(hub.url, hub.token);
  let n = 0;
  const end = Date.now() + windowMs;
  while (Date.now() < end) {
    await client.callTool({ name: 'PlanMode', arguments: { action: 'status' } });
    n++;
  }
  await close();
  return n;
}

/** Task events while the window runs: a client adding and completing steps, as a model working through a checklist does. */
async function taskEvents(hub: Hub, stop: () => boolean): Promise<void> {
  const { client, close } = await httpClient(hub.url, hub.token);
  const t = (await client.callTool({ name: 'TaskManager', arguments: { action: 'create', text: 'bench: a checklist being worked through' } })).structuredContent as { task: { id: number } };
  while (!stop()) {
    const added = (await client.callTool({ name: 'TaskManager', arguments: { action: 'add', task_id: t.task.id, text: 'a step' } })).structuredContent as { task: { steps: { id: number }[] } };
    await client.callTool({ name: 'TaskManager', arguments: { action: 'complete', step_id: added.task.steps.at(-1)!.id } });
    await new Promise((r) => setTimeout(r, 50));
  }
  await close();
}

/**
 * The other client's calls in a window with each page open, against a window with no dashboard page of
 * these just before it: each round's ratio is paired with its own baseline (a loaded machine's pace drifts
 * between rounds far more than within one), and the order of the pages rotates.
 */
async function dashboardCost(hub: Hub, rounds: number): Promise<string[]> {
  const exe = findChromium();
  if (!exe) return ['No Chromium here: the dashboard cost was not measured.'];
  const browser = await chromium.launch({ executablePath: exe, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const lines: string[] = [];
  try {
    const page = await browser.newPage();
    await signIn(page, hub.url, hub.token);
    const measure = async (route: string): Promise<{ calls: number; cpuPerCall: number }> => {
      // Within the signed-in tab (a new address would be a new sign-in).
      await page.evaluate((r) => (location.hash = `#/${r}`), route);
      await page.locator('main h1').first().waitFor();
      let stopped = false;
      const events = taskEvents(hub, () => stopped);
      const cpu0 = cpuMs(hub.pid);
      const calls = await callsIn(hub, WINDOW_MS);
      const cpu = cpuMs(hub.pid) - cpu0;
      stopped = true;
      await events;
      return { calls, cpuPerCall: cpu / calls };
    };
    const pages = (process.env.BENCH_YEAR_DASHBOARD_PAGES ?? 'todos,jobs,activity').split(',');
    const ratios = new Map<string, { base: Awaited<ReturnType<typeof measure>>; open: Awaited<ReturnType<typeof measure>> }[]>(pages.map((p) => [p, []]));
    for (let round = 0; round < rounds; round++) {
      for (const route of [...pages.slice(round % pages.length), ...pages.slice(0, round % pages.length)]) {
        const base = await measure('skills');
        const open = await measure(route);
        ratios.get(route)!.push({ base, open });
      }
    }
    for (const [route, rs] of ratios) {
      const each = rs.map((r) => r.open.calls / r.base.calls);
      // The hub's own CPU time per call of the other client: what the page takes from the one thread every client shares.
      const cpu = rs.map((r) => r.base.cpuPerCall / r.open.cpuPerCall);
      lines.push(`| ${route} | ${rs.map((r) => `${r.open.calls}/${r.base.calls}`).join(', ')} | ${percentile(each, 50).toFixed(2)} | ${Math.min(...each).toFixed(2)}–${Math.max(...each).toFixed(2)} | ${percentile(cpu, 50).toFixed(2)} (${Math.min(...cpu).toFixed(2)}–${Math.max(...cpu).toFixed(2)}) |`);
    }
  } finally {
    await browser.close();
  }
  return lines;
}

function dashboardCostTable(rows: string[], rounds: number): string {
  return [
    '\n### An open dashboard page: another client\'s calls in a window while task events arrive\n',
    `${WINDOW_MS / 1000} s windows on the year's hub, ${rounds} rounds; PlanMode status calls completed with the page open / with Skills open in the window just before (paired), the page order rotating. The last column is the share of the hub's thread left to the other client: its CPU time per call with Skills open over that with the page open (1.00: the page costs the hub nothing; 0.90: a tenth of its calls).\n`,
    '| page open | calls (open/base) per round | median ratio | range | hub CPU per call, base ÷ open: median (range) |',
    '| --- | --- | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

/** Retention under the default limits, on a copy of the year's folder: what a pass deletes, how long one holds the hub, the space that comes back. */
function retentionOnYear(): string[] {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-year-prune-'));
  try {
    const seeded = seedYear(home, { counts: YEAR, logScale: LOG_SCALE });
    const size = () => ['pincer.db', 'pincer.db-wal'].reduce((n, f) => n + (fs.existsSync(path.join(home, f)) ? fs.statSync(path.join(home, f)).size : 0), 0);
    const dirBytes = () => fs.readdirSync(path.join(home, 'jobs')).reduce((n, f) => n + fs.statSync(path.join(home, 'jobs', f)).size, 0);
    const before = { db: size(), logs: dirBytes() };
    const rt = createRuntime({ home, watch: false, role: 'hub', env: {} });
    const passes: number[] = [];
    let deleted = 0;
    try {
      for (let i = 0; i < 500; i++) {
        const r = rt.retention.run(Date.now(), true);
        passes.push(r.ms);
        deleted += r.jobs + r.tasks + r.questions + r.callbacks + r.plans + r.mcpTasks + r.activity;
        if (!r.more) break;
      }
    } finally {
      rt.close();
    }
    return [
      `Seeded in ${(seeded.ms / 1000).toFixed(1)} s (${(seeded.logBytes / 1e6).toFixed(0)} MB of job logs). Default limits: ${passes.length} passes deleted ${deleted.toLocaleString('en-US')} records; one pass held the hub's thread ${percentile(passes, 50).toFixed(0)} ms median, ${Math.max(...passes).toFixed(0)} ms at most.`,
      `pincer.db ${(before.db / 1e6).toFixed(1)} MB → ${(size() / 1e6).toFixed(1)} MB; job files ${(before.logs / 1e6).toFixed(0)} MB → ${(dirBytes() / 1e6).toFixed(0)} MB.`,
    ];
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

export async function benchYearOfUse(): Promise<string> {
  // BENCH_YEAR_ONLY=dashboard: only what an open dashboard page costs (the year's hub alone, no indexing wait).
  if (process.env.BENCH_YEAR_ONLY === 'dashboard') {
    const year = await subject(YEAR);
    try {
      const rounds = Number(process.env.BENCH_YEAR_DASHBOARD_ROUNDS ?? 6);
      const cost = dashboardCostTable(await dashboardCost(year.hub, rounds), rounds);
      process.stdout.write(cost + '\n');
      return cost;
    } finally {
      await year.close();
    }
  }
  const year = await subject(YEAR);
  const fresh = await subject(FRESH);
  const toolSizes = new Map<string, { year: number; fresh: number }>();
  try {
    const probe = (name: string, args: Record<string, unknown>): Probe => ({
      name: `${name} ${JSON.stringify(args)}`,
      run: async (s) => {
        const t0 = performance.now();
        const r = await s.client.callTool({ name, arguments: args });
        const ms = performance.now() - t0;
        const key = `${name} ${JSON.stringify(args)}`;
        const entry = toolSizes.get(key) ?? { year: 0, fresh: 0 };
        entry[s === year ? 'year' : 'fresh'] = Buffer.byteLength(JSON.stringify(r));
        toolSizes.set(key, entry);
        return ms;
      },
    });
    const probes: Probe[] = [
      probe('TaskManager', { action: 'list' }),
      probe('TaskManager', { action: 'list', status: 'done' }),
      probe('TaskManager', { action: 'list', query: 'refactor' }),
      probe('ListBgTasks', {}),
      probe('ListBgTasks', { status: 'failed' }),
      probe('ReadBgOutput', { task_id: 3 }),
      probe('PlanMode', { action: 'status' }),
      ...['/api/overview', '/api/tools', '/api/jobs', '/api/jobs?status=failed', '/api/jobs/3', '/api/jobs/3/output', '/api/tasks', '/api/tasks?status=done', '/api/tasks?q=refactor', '/api/plan', '/api/activity', '/api/activity?tool=ReadImage', '/api/activity?client=windsurf%201.12.0', '/api/activity?errors=1', '/api/activity?q=deploy', '/api/activity?q=case_13%20', '/api/activity/facets', '/api/mcp-tasks', '/api/callbacks', '/api/kept', '/api/stats/minutes'].map((p) => api(p, toolSizes, () => year)),
    ];
    // Text search reads the calls the hub indexed while quiet (store/activity-search.ts): timed once it has.
    const t0 = Date.now();
    const kept = async () => (await (await fetch(`${year.hub.url}/api/kept`, { headers: { Authorization: `Bearer ${year.hub.token}` } })).json()) as { activity: { unindexed: number } };
    while ((await kept()).activity.unindexed > 0 && Date.now() - t0 < 20 * 60_000) await new Promise((r) => setTimeout(r, 2000));
    const indexed = `The year's hub indexed its ${YEAR.activity.toLocaleString('en-US')} calls for text search in ${((Date.now() - t0) / 1000).toFixed(0)} s of quiet time before the rounds.`;
    process.stdout.write(indexed + '\n');
    const only = process.env.BENCH_YEAR_PROBES ? new RegExp(process.env.BENCH_YEAR_PROBES) : undefined;
    const times = await interleaved(only ? probes.filter((p) => only.test(p.name)) : probes, year, fresh);
    const rows = [...times].map(([name, t]) => {
      const y = percentile(t.year, 50);
      const f = percentile(t.fresh, 50);
      const bytes = toolSizes.get(name);
      const size = bytes ? `${bytes.year.toLocaleString('en-US')} / ${bytes.fresh.toLocaleString('en-US')}` : '';
      return `| ${name} | ${y.toFixed(2)} ms | ${f.toFixed(2)} ms | ${(y / f).toFixed(2)}× | ${size} |`;
    });
    const table = ['\n### A year of use: each call at the year of use vs a fresh folder (same interleaved rounds)\n', `${indexed} ${ROUNDS} rounds, medians; bytes as the client received them (year / fresh).\n`, '| call | year | fresh | ratio | bytes |', '| --- | ---: | ---: | ---: | ---: |', ...rows].join('\n');
    process.stdout.write(table + '\n');
    if (only) return table;
    const cost = dashboardCostTable(await dashboardCost(year.hub, 3), 3);
    process.stdout.write(cost + '\n');
    const pruning = ['\n### Retention on the year\'s folder under the default limits\n', ...retentionOnYear()].join('\n');
    process.stdout.write(pruning + '\n');
    return `${table}\n${cost}\n${pruning}\n`;
  } finally {
    await year.close();
    await fresh.close();
  }
}
