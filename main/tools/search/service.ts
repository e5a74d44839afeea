import type { SettingsView } from '../../core/settings/view.js';
import { EngineBlocked, EngineUnreadable, type Engine, type SearchResult } from './types.js';
import { mergeResults, type MergedResult } from './merge.js';
import { fetchUrl } from '../web/http-fetch.js';
import { UserError } from '../../core/errors.js';

export interface EngineHealth {
  name: string;
  lastSuccess?: number;
  lastError?: string;
  lastErrorAt?: number;
  restUntil?: number;
  latencies: number[];
  medianMs?: number;
}

export interface EngineOutcome {
  engine: string;
  status: 'ok' | 'failed' | 'blocked' | 'timeout' | 'resting' | 'skipped';
  results: number;
  ms: number;
  error?: string;
}

export interface SearchAnswer {
  query: string;
  results: MergedResult[];
  engines: EngineOutcome[];
  ms: number;
}

/** A transport for engine requests: Node's by default; the desktop app swaps in Chromium's network stack. */
export type EngineTransport = (req: { url: string; method?: string; headers?: Record<string, string>; body?: string; timeoutMs: number; userAgent: string; signal: AbortSignal }) => Promise<{ status: number; body: string }>;

const nodeTransport: EngineTransport = async (req) => {
  const r = await fetchUrl(req.url, { method: req.method, headers: req.headers, body: req.body, timeoutMs: req.timeoutMs, maxBytes: 5 * 1024 * 1024, userAgent: req.userAgent, signal: req.signal, tool: 'WebSearch', allowErrors: true });
  return { status: r.status, body: r.body.toString('utf8') };
};

export const SEARCH_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';

/** Asks many engines at once and answers by the deadline with what came back, merged. */
/** The engine modules load on the first search (their HTML parser is not needed to start). */
let catalogue: Engine[] | undefined;
async function loadEngines(): Promise<Engine[]> {
  catalogue ??= (await import('./engines/index.js')).ENGINES;
  return catalogue;
}

export class SearchService {
  private health = new Map<string, EngineHealth>();
  transport: EngineTransport = nodeTransport;

  constructor(private settings: SettingsView) {}

  async load(): Promise<void> {
    await loadEngines();
  }

  engines(): Engine[] {
    const ENGINES = catalogue ?? [];
    const wanted = this.settings
      .get('SEARCH_ENGINES')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    return wanted.map((n) => ENGINES.find((e) => e.name === n)).filter((e): e is Engine => e !== undefined);
  }

  unknownEngines(): string[] {
    const ENGINES = catalogue ?? [];
    return this.settings
      .get('SEARCH_ENGINES')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter((n) => n && !ENGINES.some((e) => e.name === n));
  }

  healthReport(): EngineHealth[] {
    return (catalogue ?? []).map((e) => {
      const h = this.health.get(e.name) ?? { name: e.name, latencies: [] };
      const sorted = [...h.latencies].sort((a, b) => a - b);
      return { ...h, medianMs: sorted.length ? sorted[Math.floor(sorted.length / 2)] : undefined };
    });
  }

  private h(name: string): EngineHealth {
    let h = this.health.get(name);
    if (!h) this.health.set(name, (h = { name, latencies: [] }));
    return h;
  }

  async search(query: string, max: number, signal: AbortSignal): Promise<SearchAnswer> {
    const q = query.trim();
    if (!q) throw new UserError('WebSearch: query is empty; pass what to search for.');
    const ENGINES = await loadEngines();
    const t0 = Date.now();
    const engineTimeout = this.settings.get('SEARCH_ENGINE_TIMEOUT_MS');
    const deadline = this.settings.get('SEARCH_DEADLINE_MS');
    const ua = this.settings.get('USER_AGENT_SEARCH') || SEARCH_UA;
    const all = this.engines();
    if (all.length === 0) throw new UserError(`WebSearch: SEARCH_ENGINES names no known engine. Known: ${ENGINES.map((e) => e.name).join(', ')}.`);
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const lists: { engine: string; weight: number; results: SearchResult[] }[] = [];
    const outcomes = new Map<string, EngineOutcome>();

    const runs = all.map(async (engine) => {
      const h = this.h(engine.name);
      if (engine.configured && !engine.configured(this.settings)) {
        outcomes.set(engine.name, { engine: engine.name, status: 'skipped', results: 0, ms: 0, error: 'not configured' });
        return;
      }
      if (h.restUntil && h.restUntil > Date.now()) {
        outcomes.set(engine.name, { engine: engine.name, status: 'resting', results: 0, ms: 0, error: `resting after: ${h.lastError}` });
        return;
      }
      const started = Date.now();
      const base = this.settings.raw(`SEARCH_URL_${engine.name.toUpperCase()}`)?.replace(/\/+$/, '') || engine.defaultBase;
      try {
        const req = engine.request(q, base, this.settings);
        const res = await this.transport({ ...req, timeoutMs: engineTimeout, userAgent: ua, signal: stop.signal });
        const results = engine.parse(res.body, res.status);
        const ms = Date.now() - started;
        h.lastSuccess = Date.now();
        h.latencies = [...h.latencies.slice(-19), ms];
        lists.push({ engine: engine.name, weight: engine.weight, results });
        outcomes.set(engine.name, { engine: engine.name, status: 'ok', results: results.length, ms });
      } catch (err) {
        const ms = Date.now() - started;
        const msg = (err as Error).message.replace(/^WebSearch: \S+: /, '');
        const timedOut = /timed out/.test(msg);
        const blocked = err instanceof EngineBlocked;
        h.lastError = msg;
        h.lastErrorAt = Date.now();
        // Blocked, broken or slow engines are left alone for a while instead of being hammered.
        if (blocked || err instanceof EngineUnreadable || timedOut || !(err instanceof UserError)) h.restUntil = Date.now() + this.settings.get('SEARCH_REST_S') * 1000;
        else h.restUntil = Date.now() + Math.min(60, this.settings.get('SEARCH_REST_S')) * 1000;
        outcomes.set(engine.name, { engine: engine.name, status: blocked ? 'blocked' : timedOut ? 'timeout' : 'failed', results: 0, ms, error: msg });
      }
    });

    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(runs), new Promise<void>((r) => (timer = setTimeout(r, deadline)))]);
    clearTimeout(timer);
    stop.abort();
    signal.removeEventListener('abort', onAbort);
    for (const e of all) {
      if (!outcomes.has(e.name)) {
        const h = this.h(e.name);
        h.lastError = `no answer within the ${deadline} ms deadline`;
        h.lastErrorAt = Date.now();
        h.restUntil = Date.now() + this.settings.get('SEARCH_REST_S') * 1000;
        outcomes.set(e.name, { engine: e.name, status: 'timeout', results: 0, ms: Date.now() - t0, error: h.lastError });
      }
    }
    // Fuse in the configured engine order so that ties are stable.
    lists.sort((a, b) => all.findIndex((e) => e.name === a.engine) - all.findIndex((e) => e.name === b.engine));
    return { query: q, results: mergeResults(lists, max), engines: all.map((e) => outcomes.get(e.name)!), ms: Date.now() - t0 };
  }
}
