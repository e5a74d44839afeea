import { parentPort } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { FUNCTION_MARK, OUTPUT_LINES_PER_MINUTE, OUTPUT_LINE_CHARS, type CallContextData, type HostMessage, type HubContextMethod, type ItemRef, type WireError, type WorkerMessage } from './protocol.js';
import { promptResult, resourceResult, stringList, toolResult } from './results.js';

/**
 * One module plugin's own thread (plugin-worker.ts starts it): imports the plugin, sends the hub its
 * export as JSON (functions marked), runs the functions the hub asks for and shapes their results, and
 * forwards what the handler's `ctx` must do in the hub. An error that escapes the plugin's functions
 * (a timer, a stray promise) is reported as the plugin's fault; the thread goes on. It also runs as a
 * child process (process IPC) for the boundary benchmark (bench/plugin-boundary.ts).
 */

type Port = { send(m: WorkerMessage): void; listen(l: (m: HostMessage) => void): void };

function portOf(): Port {
  if (parentPort) {
    const p = parentPort;
    return { send: (m) => p.postMessage(m), listen: (l) => p.on('message', l) };
  }
  const send = process.send?.bind(process);
  if (!send) throw new Error('the plugin worker runs only under Pincer (no parent to talk to)');
  return { send: (m) => void send(m), listen: (l) => process.on('message', (m) => l(m as HostMessage)) };
}

const port = portOf();

function wire(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: typeof err === 'string' ? err : describe(err) };
  const e = err as Error & { code?: unknown; pincerCapabilities?: unknown; pincerHubError?: unknown };
  return {
    name: e.name,
    message: e.message,
    ...(e.stack ? { stack: e.stack.slice(0, 8192) } : {}),
    ...(typeof e.code === 'number' ? { code: e.code } : {}),
    ...(Array.isArray(e.pincerCapabilities) ? { capabilities: e.pincerCapabilities.map(String) } : {}),
    ...(typeof e.pincerHubError === 'number' ? { hubError: e.pincerHubError } : {}),
  };
}

function describe(v: unknown): string {
  try {
    return `a non-error value was thrown: ${JSON.stringify(v) ?? String(v)}`.slice(0, 2000);
  } catch {
    // A cycle or a throwing getter: its type is all that can be said.
    return `a non-error value was thrown (${typeof v})`;
  }
}

/** Sends a message; a value the structured clone refuses (a function, a class with private state) fails the call instead. */
function send(m: WorkerMessage): void {
  try {
    port.send(m);
  } catch (err) {
    if (m.t !== 'done') throw err;
    port.send({ t: 'done', id: m.id, ok: false, error: { name: 'Error', message: `it returned a value that cannot be sent to the hub (${(err as Error).message}); return plain data` } });
  }
}

// Whatever escapes the plugin's own functions is its fault, reported to the hub (which counts it against the plugin).
process.on('uncaughtException', (err) => send({ t: 'fault', error: wire(err), origin: 'exception' }));
process.on('unhandledRejection', (reason) => send({ t: 'fault', error: wire(reason), origin: 'rejection' }));

/**
 * What the plugin writes to stdout and stderr (console included) goes to the hub's log as lines, at
 * most OUTPUT_LINES_PER_MINUTE a minute; the rest is counted and dropped here, so that a plugin
 * writing in a loop costs its own thread, not the hub's.
 */
function budgetOutput(): void {
  let windowStart = 0;
  let kept = 0;
  let dropped = 0;
  const take = (stream: 'stdout' | 'stderr', line: string) => {
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      if (dropped > 0) send({ t: 'output-dropped', first: false, count: dropped });
      windowStart = now;
      kept = 0;
      dropped = 0;
    }
    if (++kept <= OUTPUT_LINES_PER_MINUTE) send({ t: 'output', stream, line: line.slice(0, OUTPUT_LINE_CHARS) });
    else if (dropped++ === 0) send({ t: 'output-dropped', first: true, count: 0 });
  };
  for (const stream of ['stdout', 'stderr'] as const) {
    let partial = '';
    const write = (chunk: string | Uint8Array, encoding?: BufferEncoding | ((err?: Error | null) => void), done?: (err?: Error | null) => void): boolean => {
      const lines = (partial + (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8'))).split('\n');
      partial = lines.pop()!.slice(0, OUTPUT_LINE_CHARS);
      for (const line of lines) if (line.trim() !== '') take(stream, line);
      (typeof encoding === 'function' ? encoding : done)?.();
      return true;
    };
    process[stream].write = write as typeof process.stdout.write;
  }
}
budgetOutput();

type Fn = (...args: unknown[]) => unknown;
type Item = Record<string, unknown>;
let exported: Record<string, unknown> = {};

async function load(file: string, version: string, maxExportChars: number): Promise<void> {
  try {
    const mod: unknown = await import(`${pathToFileURL(file).href}?v=${encodeURIComponent(version)}`);
    const value: unknown = mod && typeof mod === 'object' && 'default' in mod ? mod.default : mod;
    const resolved: unknown = typeof value === 'function' ? await (value as Fn)() : value;
    exported = resolved && typeof resolved === 'object' ? (resolved as Record<string, unknown>) : {};
    const json = JSON.stringify(resolved ?? {}, (_k, v: unknown) => (typeof v === 'function' ? FUNCTION_MARK : v));
    if (json === undefined) throw new Error('its default export is not an object');
    if (json.length > maxExportChars) throw new Error(`what it exports is ${json.length} characters as JSON, more than the ${maxExportChars} a plugin may publish (long descriptions or schemas?)`);
    send({ t: 'ready', exported: json });
  } catch (err) {
    send({ t: 'load-failed', error: wire(err) });
  }
}

function list(key: string): Item[] {
  const v = exported[key];
  return Array.isArray(v) ? (v as Item[]) : [];
}

function fn(item: Item | undefined, key: string): Fn {
  const f = item?.[key];
  if (typeof f !== 'function') throw new Error(`${key} is not a function`);
  return f as Fn;
}

const aborts = new Map<number, AbortController>();
const asks = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
let nextAsk = 0;

/** The handler's `ctx`: what needs the hub is asked there; the client's capabilities and the signal are local. */
function contextFor(call: number, data: CallContextData, signal: AbortSignal): Record<string, unknown> {
  const hub =
    (method: HubContextMethod) =>
    (...args: unknown[]): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const id = ++nextAsk;
        asks.set(id, { resolve, reject });
        send({ t: 'ctx', id, call, method, args });
      });
  return {
    signal,
    client: data.client,
    progress: hub('progress'),
    log: hub('log'),
    workdir: hub('workdir'),
    elicit: hub('elicit'),
    sample: hub('sample'),
    listRoots: hub('listRoots'),
    askClient: hub('askClient'),
    askUser: hub('askUser'),
    startTask: hub('startTask'),
    requireCapability: (...names: string[]) => {
      const missing = names.filter((n) => !data.client.capabilities[n]);
      if (missing.length) throw Object.assign(new Error(`the client lacks ${missing.join(', ')}`), { pincerCapabilities: missing });
    },
  };
}

async function run(ref: ItemRef, args: unknown[], ctx: Record<string, unknown> | undefined, signal: AbortSignal): Promise<unknown> {
  switch (ref.kind) {
    case 'tool': {
      const t = list('tools')[ref.index];
      return toolResult(await fn(t, 'handler')(args[0], ctx), Boolean(t?.outputSchema));
    }
    case 'prompt':
      return promptResult(await fn(list('prompts')[ref.index], 'get')(args[0], ctx));
    case 'prompt-complete':
      return stringList(await fn(list('prompts')[ref.index], 'complete')(...args));
    case 'resource': {
      const r = list('resources')[ref.index];
      const uri = String(args[0]);
      return resourceResult(await fn(r, 'read')(uri, { signal }), uri, typeof r?.mimeType === 'string' ? r.mimeType : undefined);
    }
    case 'template': {
      const t = list('resourceTemplates')[ref.index];
      const uri = String(args[0]);
      return resourceResult(await fn(t, 'read')(uri, args[1], { signal }), uri, typeof t?.mimeType === 'string' ? t.mimeType : undefined);
    }
    case 'template-complete':
      return stringList(await fn(list('resourceTemplates')[ref.index], 'complete')(...args));
  }
}

port.listen((m) => {
  switch (m.t) {
    case 'load':
      void load(m.file, m.version, m.maxExportChars);
      return;
    case 'ping':
      send({ t: 'pong', n: m.n });
      return;
    case 'abort':
      aborts.get(m.id)?.abort();
      return;
    case 'ctx-reply': {
      const ask = asks.get(m.id);
      asks.delete(m.id);
      if (!ask) return;
      if (m.ok) ask.resolve(m.value);
      else ask.reject(Object.assign(new Error(m.error.message), { name: m.error.name, pincerHubError: m.id }));
      return;
    }
    case 'call': {
      const abort = new AbortController();
      aborts.set(m.id, abort);
      const ctx = m.ctx ? contextFor(m.id, m.ctx, abort.signal) : undefined;
      void (async () => {
        try {
          send({ t: 'done', id: m.id, ok: true, value: await run(m.ref, m.args, ctx, abort.signal) });
        } catch (err) {
          send({ t: 'done', id: m.id, ok: false, error: wire(err) });
        } finally {
          aborts.delete(m.id);
        }
      })();
      return;
    }
  }
});
