import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { HUB_CONTEXT_METHODS, OUTPUT_LINES_PER_MINUTE, type CallContextData, type HubContextMethod, type ItemRef, type WireError, type WorkerMessage } from './protocol.js';
import { logger, ignoreFailure } from '../core/log.js';

const log = logger('plugins');

/** How long a module plugin may take to load (its thread's start, the import and its default export's setup). */
export const LOAD_TIMEOUT_MS = 5000;
/** A plugin whose thread has not answered for this long is taken as frozen (a loop, a synchronous call that never returns) and stopped. */
export const UNRESPONSIVE_MS = 15_000;
/** How often a loaded plugin's thread is asked whether it still answers. */
const PING_MS = 2000;
/** What one plugin may publish (its export as JSON: names, descriptions, schemas). */
export const MAX_EXPORT_CHARS = 1024 * 1024;

/** The hub's side of a plugin's `ctx` (context.ts pluginContext): the methods the thread may ask for. */
export type HubContext = Record<HubContextMethod, (...args: never[]) => Promise<unknown>>;

/** A call failed because the plugin's thread ended or froze under it (not because its code threw). */
export class PluginStopped extends Error {}

/** Thrown by load(): why the plugin did not load, with the error whose stack names its line (when it threw). */
export class LoadFailure extends Error {
  constructor(
    message: string,
    /** The plugin's own error, when it threw (its stack names the line). */
    readonly thrown?: WireError,
  ) {
    super(message);
  }
}

export interface PluginWorkerEvents {
  /** An error escaped the plugin's functions (a timer, a stray promise): its fault, not the hub's. */
  fault(error: WireError, origin: 'exception' | 'rejection'): void;
  /** The thread ended or froze outside load(): `reason` says which; calls in flight have failed. */
  gone(reason: string): void;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  hub?: HubContext;
  /** The errors the hub gave this call's ctx requests, by request id: rethrown as they are when the plugin lets them through. */
  hubErrors: Map<number, unknown>;
}

/**
 * One module plugin in its own thread (worker-entry.ts). The plugin shares the hub's process but not
 * its event loop: a loop or a synchronous call that never returns freezes only its thread (found by
 * a ping it no longer answers, and the thread is stopped), `process.exit` ends only its thread, and
 * an error that escapes its code is reported here as its fault. Calls and their `ctx` requests are
 * messages; nothing of the plugin runs in the hub's thread.
 */
export class PluginWorker {
  private worker?: Worker;
  private pending = new Map<number, Pending>();
  private nextId = 0;
  private pingTimer?: NodeJS.Timeout;
  private pingSent?: number;
  private pingN = 0;
  private ended = false;
  private readonly name: string;

  constructor(
    private file: string,
    private version: string,
    private events: PluginWorkerEvents,
  ) {
    this.name = path.basename(file);
  }

  get running(): boolean {
    return !this.ended;
  }

  /** Starts the thread and imports the plugin; resolves to its export as JSON (functions marked), or rejects with a LoadFailure. */
  load(): Promise<string> {
    const worker = new Worker(new URL('./worker-entry.js', import.meta.url), { name: `plugin ${this.name}`, stdout: true, stderr: true });
    this.worker = worker;
    // The thread never keeps the hub alive; the load's own timer does while it lasts.
    worker.unref();
    // Its writes reach the hub as budgeted lines (worker-entry.ts); whatever bypasses that is not kept.
    worker.stdout.resume();
    worker.stderr.resume();
    return new Promise<string>((resolve, reject) => {
      let loading = true;
      const fail = (message: string, cause?: WireError) => {
        if (!loading) return;
        loading = false;
        clearTimeout(timer);
        this.stop();
        reject(new LoadFailure(message, cause));
      };
      const timer = setTimeout(() => fail(`it did not finish loading within ${LOAD_TIMEOUT_MS / 1000} s (a top-level await or setup that never ends, or a loop?); it was stopped`), LOAD_TIMEOUT_MS);
      worker.on('message', (m: WorkerMessage) => {
        if (m.t === 'ready' && loading) {
          loading = false;
          clearTimeout(timer);
          this.watch();
          resolve(m.exported);
        } else if (m.t === 'load-failed') fail(m.error.message, m.error);
        else this.onMessage(m);
      });
      // An error the thread could not report itself (out of memory): the thread has ended.
      worker.on('error', (err) => (loading ? fail(`its thread failed: ${err.message}`) : this.end(`its thread failed: ${err.message}`)));
      worker.on('exit', (code) => {
        // Its entry always listens to the hub, so the thread never ends by itself: something called process.exit.
        const how = `it exited (code ${code}; a plugin must not call process.exit)`;
        if (loading) fail(`${how} while loading`);
        else this.end(how);
      });
      worker.postMessage({ t: 'load', file: this.file, version: this.version, maxExportChars: MAX_EXPORT_CHARS });
    });
  }

  /**
   * Runs one of the plugin's functions. `hub` answers the handler's ctx requests (tools and prompts);
   * `signal` aborting reaches the handler's ctx.signal. Rejects with the plugin's error (its stack
   * names the file and line), the hub's own error a ctx request gave it, or PluginStopped.
   */
  call(ref: ItemRef, args: unknown[], opts: { signal?: AbortSignal; ctx?: CallContextData; hub?: HubContext } = {}): Promise<unknown> {
    const worker = this.worker;
    if (this.ended || !worker) return Promise.reject(new PluginStopped('its thread is not running'));
    const id = ++this.nextId;
    const onAbort = () => worker.postMessage({ t: 'abort', id });
    return new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, ...(opts.hub ? { hub: opts.hub } : {}), hubErrors: new Map() });
      if (opts.signal?.aborted) onAbort();
      else opts.signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ t: 'call', id, ref, args, ...(opts.ctx ? { ctx: opts.ctx } : {}) });
    }).finally(() => opts.signal?.removeEventListener('abort', onAbort));
  }

  private onMessage(m: WorkerMessage): void {
    switch (m.t) {
      case 'done': {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (!p) return;
        if (m.ok) p.resolve(m.value);
        else p.reject(m.error.hubError !== undefined && p.hubErrors.has(m.error.hubError) ? asError(p.hubErrors.get(m.error.hubError)) : fromWire(m.error));
        return;
      }
      case 'ctx':
        void this.answerContext(m.id, m.call, m.method, m.args);
        return;
      case 'fault':
        this.events.fault(m.error, m.origin);
        return;
      case 'pong':
        if (m.n === this.pingN) this.pingSent = undefined;
        return;
      case 'output':
        log.info(`plugin ${this.name} (${m.stream}): ${m.line}`);
        return;
      case 'output-dropped':
        if (m.first) log.warn(`plugin ${this.name} writes more than ${OUTPUT_LINES_PER_MINUTE} lines a minute to stdout and stderr; the rest of this minute's are not kept`);
        else log.info(`plugin ${this.name}: ${m.count} lines of its output were not kept in the last minute`);
        return;
      default:
        return;
    }
  }

  /** A handler's ctx request, run in the hub for its call; the answer (or the hub's error) goes back to the thread. */
  private async answerContext(id: number, call: number, method: HubContextMethod, args: unknown[]): Promise<void> {
    const p = this.pending.get(call);
    const f = p?.hub && HUB_CONTEXT_METHODS.includes(method) ? p.hub[method] : undefined;
    let reply: { t: 'ctx-reply'; id: number; ok: true; value: unknown } | { t: 'ctx-reply'; id: number; ok: false; error: WireError };
    try {
      if (!f) throw new Error(`ctx.${method} is not available here`);
      reply = { t: 'ctx-reply', id, ok: true, value: await (f as (...a: unknown[]) => Promise<unknown>)(...args) };
    } catch (err) {
      p?.hubErrors.set(id, err);
      reply = { t: 'ctx-reply', id, ok: false, error: { name: err instanceof Error ? err.name : 'Error', message: err instanceof Error ? err.message : String(err) } };
    }
    if (this.ended) return;
    try {
      this.worker?.postMessage(reply);
    } catch (err) {
      // An answer the structured clone refuses (it came from the client): the request fails instead.
      this.worker?.postMessage({ t: 'ctx-reply', id, ok: false, error: { name: 'Error', message: `the answer could not be passed to the plugin: ${(err as Error).message}` } });
    }
  }

  /** Pings the thread; one that has not answered for UNRESPONSIVE_MS is stopped and named. */
  private watch(): void {
    this.pingTimer = setInterval(() => {
      if (this.pingSent !== undefined) {
        if (Date.now() - this.pingSent >= UNRESPONSIVE_MS) this.end(`it stopped answering for ${UNRESPONSIVE_MS / 1000} s (a loop or a synchronous call that never returned blocks its thread); it was stopped`);
        return;
      }
      this.pingSent = Date.now();
      this.worker?.postMessage({ t: 'ping', n: ++this.pingN });
    }, PING_MS);
    this.pingTimer.unref();
  }

  /** The thread ended or froze: calls in flight fail with the reason, and the owner hears it. */
  private end(reason: string): void {
    if (this.ended) return;
    this.stop();
    for (const p of this.pending.values()) p.reject(new PluginStopped(reason));
    this.pending.clear();
    this.events.gone(reason);
  }

  private stop(): void {
    this.ended = true;
    clearInterval(this.pingTimer);
    const w = this.worker;
    if (w) {
      w.removeAllListeners('exit');
      w.removeAllListeners('error');
      // A thread that is already gone: nothing is left to stop.
      w.terminate().catch(ignoreFailure(log, `stopping ${this.name}'s thread`));
    }
  }

  /** Stops the thread (the file changed or went, the hub stops, the plugin is disabled); calls in flight fail with `reason`. */
  close(reason = 'it was reloaded or the hub is stopping during the call; send it again'): void {
    if (this.ended) return;
    this.stop();
    for (const p of this.pending.values()) p.reject(new PluginStopped(reason));
    this.pending.clear();
  }
}

/** The plugin's error as the hub throws it: its message, name, JSON-RPC code and the stack that names the plugin's line. */
function fromWire(e: WireError): Error {
  const err = Object.assign(new Error(e.message), { name: e.name, ...(e.code !== undefined ? { code: e.code } : {}), ...(e.capabilities ? { capabilities: e.capabilities } : {}) });
  if (e.stack) err.stack = e.stack;
  return err;
}

function asError(v: unknown): Error {
  return v instanceof Error ? v : new Error(String(v));
}
