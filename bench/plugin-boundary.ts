import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { table, type Row } from './lib.js';
import { startHub, httpClient, time } from './harness.js';
import { PluginWorker, type HubContext } from '../main/plugins/plugin-worker.js';
import { toolResult } from '../main/plugins/results.js';
import type { HostMessage, ItemRef, WorkerMessage } from '../main/plugins/protocol.js';

const N = Number(process.env.BENCH_CALLS ?? 300);
const STARTS = Number(process.env.BENCH_PLUGIN_STARTS ?? 10);
const ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'main', 'plugins', 'worker-entry.js');

const PLUGIN = `export default { tools: [
  { name: 'b.echo', description: 'Echo', handler: (a) => a },
  { name: 'b.big', description: '100 KB of text', handler: () => 'x'.repeat(100000) },
  { name: 'b.progress', description: 'One ctx call', handler: async (a, ctx) => { await ctx.progress('p'); return 'ok'; } },
] };
`;

/** What a handler's ctx costs nothing for: every ctx method answers at once. */
const hubCtx: HubContext = {
  progress: async () => undefined,
  log: async () => undefined,
  workdir: async () => undefined,
  elicit: async () => ({}),
  sample: async () => ({}),
  listRoots: async () => ({}),
  askClient: async () => ({}),
  askUser: async () => ({}),
  startTask: async () => undefined,
};
const ctxData = { client: { name: 'bench', capabilities: {} } };

interface Subject {
  name: string;
  call(index: number, args: unknown): Promise<unknown>;
  close(): void;
}

/** The plugin imported into this process, called as Pincer did before plugins had threads. */
async function inProcess(file: string): Promise<Subject> {
  const mod = (await import(pathToFileURL(file).href)) as { default: { tools: { handler(a: unknown, ctx: unknown): unknown }[] } };
  const ctx = { ...hubCtx, signal: new AbortController().signal, client: ctxData.client, requireCapability: () => undefined };
  return { name: 'in-process (the hub’s own thread)', call: async (i, a) => toolResult(await mod.default.tools[i]!.handler(a, ctx), false), close: () => undefined };
}

async function workerThread(file: string): Promise<Subject> {
  const w = new PluginWorker(file, '1', { fault: () => undefined, gone: () => undefined });
  await w.load();
  return { name: 'worker thread (shipped)', call: (i, a) => w.call({ kind: 'tool', index: i }, [a], { ctx: ctxData, hub: hubCtx }), close: () => w.close() };
}

/** The same worker entry in a child process (process IPC, advanced serialization): the other isolation measured. */
async function childProcess(file: string): Promise<Subject & { pid: number }> {
  const child: ChildProcess = fork(ENTRY, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  const pending = new Map<number, (v: unknown) => void>();
  let ready!: () => void;
  const loaded = new Promise<void>((r) => (ready = r));
  const send = (m: HostMessage) => child.send(m);
  child.on('message', (raw) => {
    const m = raw as WorkerMessage;
    if (m.t === 'ready') ready();
    else if (m.t === 'done') pending.get(m.id)?.(m.ok ? m.value : m.error);
    else if (m.t === 'ctx') send({ t: 'ctx-reply', id: m.id, ok: true, value: undefined });
  });
  send({ t: 'load', file, version: '1', maxExportChars: 1 << 20 });
  await loaded;
  let ids = 0;
  return {
    name: 'child process',
    pid: child.pid!,
    call: (i, a) =>
      new Promise((resolve) => {
        const id = ++ids;
        pending.set(id, resolve);
        send({ t: 'call', id, ref: { kind: 'tool', index: i } satisfies ItemRef, args: [a], ctx: ctxData });
      }),
    close: () => child.kill(),
  };
}

function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/**
 * Where module plugins run (ARCHITECTURE §5): the cost of one call across each boundary — in the hub's
 * own thread, in a worker thread (what ships), in a child process — for a tiny echo, a 100 KB result
 * and a handler that calls ctx.progress once; then what starting one costs, and a call through the hub
 * over HTTP against a built-in tool. `BENCH_ONLY=plugins npm run bench`.
 */
export async function benchPluginBoundary(): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-bench-plugin-'));
  const file = path.join(dir, 'bench.mjs');
  fs.writeFileSync(file, PLUGIN);
  const out: string[] = [];
  const subjects = [await inProcess(file), await workerThread(file), await childProcess(file)];
  try {
    for (const [index, label, args] of [
      [0, 'echo of a small object', { a: 1, b: 'two' }],
      [1, '100 KB text result', {}],
      [2, 'one ctx.progress round trip', {}],
    ] as const) {
      const rows: Row[] = subjects.map((s) => ({ name: s.name, samples: [] }));
      for (let i = 0; i < N; i++) {
        // Interleaved, each round starting with the next subject, so drift on a shared machine hits all alike.
        for (let j = 0; j < subjects.length; j++) {
          const k = (i + j) % subjects.length;
          rows[k]!.samples.push(await time(() => subjects[k]!.call(index, args)));
        }
      }
      out.push(table(`Plugin call across the boundary: ${label}`, rows, rows[0]!.name));
    }
  } finally {
    for (const s of subjects) s.close();
  }

  // Starting one: spawn → plugin loaded, and what each keeps resident.
  const starts: Row[] = [
    { name: 'worker thread', samples: [] },
    { name: 'child process', samples: [] },
  ];
  const rss: Row[] = [
    { name: 'worker thread (process RSS growth per plugin)', samples: [], unit: 'MB' },
    { name: 'child process (its own RSS)', samples: [], unit: 'MB' },
  ];
  for (let i = 0; i < STARTS; i++) {
    const before = process.memoryUsage().rss;
    let w: Subject | undefined;
    starts[0]!.samples.push(await time(async () => void (w = await workerThread(file))));
    await w!.call(0, {});
    rss[0]!.samples.push((process.memoryUsage().rss - before) / 2 ** 20);
    w!.close();
    let c: (Subject & { pid: number }) | undefined;
    starts[1]!.samples.push(await time(async () => void (c = await childProcess(file))));
    await c!.call(0, {});
    rss[1]!.samples.push(rssOf(c!.pid) / 2 ** 20);
    c!.close();
  }
  out.push(table('Starting a plugin: spawn → loaded', starts, starts[0]!.name));
  out.push(table('Memory per running plugin', rss, rss[0]!.name));

  // Through the hub: a plugin tool against a built-in one, over Streamable HTTP.
  const hub = await startHub();
  try {
    fs.mkdirSync(path.join(hub.home, 'plugins'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(hub.home, 'plugins', 'bench.mjs'), PLUGIN, { mode: 0o600 });
    const c = await httpClient(hub.url, hub.token);
    for (let i = 0; i < 100 && !(await c.client.listTools()).tools.some((t) => t.name === 'b.echo'); i++) await new Promise((r) => setTimeout(r, 100));
    const rows: Row[] = [
      { name: 'plugin b.echo (worker thread)', samples: [] },
      { name: 'built-in ListBgTasks', samples: [] },
    ];
    for (let i = 0; i < N; i++) {
      rows[0]!.samples.push(await time(() => c.client.callTool({ name: 'b.echo', arguments: { a: 1 } })));
      rows[1]!.samples.push(await time(() => c.client.callTool({ name: 'ListBgTasks', arguments: {} })));
    }
    await c.close();
    out.push(table('A plugin tool through the hub (HTTP) against a built-in tool', rows, rows[1]!.name));
  } finally {
    await hub.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
