import type { SettingsView } from '../../core/settings/view.js';
import { EngineFailure, type Engine, type EngineContext, type EngineRequest, type EngineResponse, type EngineState, type FailureKind, type SearchResult } from './engine-types.js';
import { mergeResults, type MergedResult } from './merge.js';
import { HealthBook, type EngineHealth } from './engine-health.js';
import { FetchError } from '../web/http-fetch.js';
import { nodeTransport, type EngineTransport } from './transport.js';
import { UserError } from '../../core/errors.js';

export type { EngineHealth, EngineTransport };

export interface EngineOutcome {
  engine: string;
  status: 'ok' | 'failed' | 'blocked' | 'timeout' | 'resting' | 'skipped';
  /** Why it failed or rests, as a FailureKind; absent when ok. */
  kind?: FailureKind;
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

export const SEARCH_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';

const BLOCKED_KINDS: ReadonlySet<FailureKind> = new Set(['captcha', 'rate-limited', 'denied', 'needs-browser']);

/** The engine modules load on the first search (their HTML parser is not needed to start). */
let catalogue: Engine[] | undefined;
async function loadEngines(): Promise<Engine[]> {
  catalogue ??= (await import('./engines/index.js')).ENGINES;
  return catalogue;
}

/** `name=value` pairs of Set-Cookie headers, by undici's parser. */
async function parseSetCookies(lines: string[]): Promise<{ name: string; value: string }[]> {
  if (lines.length === 0) return [];
  const { getSetCookies, Headers } = await import('undici');
  const h = new Headers();
  for (const l of lines) h.append('set-cookie', l);
  return getSetCookies(h);
}

/** Asks many engines at once and answers by the deadline with what came back, merged. */
export class SearchService {
  private health: HealthBook;
  private states = new Map<string, EngineState>();
  transport: EngineTransport = nodeTransport;

  constructor(private settings: SettingsView) {
    this.health = new HealthBook(settings);
  }

  async load(): Promise<void> {
    await loadEngines();
  }

  private wanted(): string[] {
    return this.settings
      .get('SEARCH_ENGINES')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
  }

  engines(): Engine[] {
    const all = catalogue ?? [];
    return this.wanted()
      .map((n) => all.find((e) => e.name === n))
      .filter((e): e is Engine => e !== undefined);
  }

  unknownEngines(): string[] {
    const all = catalogue ?? [];
    return this.wanted().filter((n) => !all.some((e) => e.name === n));
  }

  healthReport(): (EngineHealth & { configured: boolean })[] {
    const all = catalogue ?? [];
    return this.health.report(all.map((e) => e.name)).map((h) => {
      const e = all.find((x) => x.name === h.name)!;
      return { ...h, configured: !e.configured || e.configured(this.settings) };
    });
  }

  private state(name: string): EngineState {
    let s = this.states.get(name);
    if (!s) this.states.set(name, (s = { cookies: new Map(), tokens: new Map() }));
    return s;
  }

  /** One request for an engine: its session's cookies go out, the cookies it is given are kept. */
  private async send(state: EngineState, req: EngineRequest, signal: AbortSignal): Promise<EngineResponse> {
    const cookie = [...state.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await this.transport({
      url: req.url,
      method: req.method,
      headers: { ...req.headers, ...(cookie ? { Cookie: cookie } : {}) },
      body: req.body,
      timeoutMs: this.settings.get('SEARCH_ENGINE_TIMEOUT_MS'),
      userAgent: req.userAgent ?? (this.settings.get('USER_AGENT_SEARCH') || SEARCH_UA),
      signal,
    });
    const cookies: Record<string, string> = {};
    for (const c of await parseSetCookies(res.setCookies)) {
      cookies[c.name] = c.value;
      state.cookies.set(c.name, c.value);
    }
    return { status: res.status, url: res.url, headers: res.headers, cookies, body: res.body };
  }

  private async ask(engine: Engine, q: string, signal: AbortSignal): Promise<SearchResult[]> {
    const state = this.state(engine.name);
    const base = this.settings.raw(`SEARCH_URL_${engine.name.toUpperCase()}`)?.replace(/\/+$/, '') || engine.defaultBase;
    const ctx: EngineContext = { query: q, base, settings: this.settings, state: state, fetch: (req) => this.send(state, req, signal) };
    const req = await engine.request(ctx);
    return engine.parse(await ctx.fetch(req), ctx);
  }

  async search(query: string, max: number, signal: AbortSignal): Promise<SearchAnswer> {
    const q = query.trim();
    if (!q) throw new UserError('WebSearch: query is empty; pass what to search for.', 'INVALID_INPUT');
    const known = await loadEngines();
    const t0 = Date.now();
    const deadline = this.settings.get('SEARCH_DEADLINE_MS');
    const all = this.engines();
    if (all.length === 0) throw new UserError(`WebSearch: SEARCH_ENGINES names no known engine. Known: ${known.map((e) => e.name).join(', ')}.`, 'UNAVAILABLE');
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const lists: { engine: string; weight: number; results: SearchResult[] }[] = [];
    const outcomes = new Map<string, EngineOutcome>();

    const runs = all.map(async (engine) => {
      if (engine.configured && !engine.configured(this.settings)) {
        outcomes.set(engine.name, { engine: engine.name, status: 'skipped', results: 0, ms: 0, error: 'not configured' });
        return;
      }
      const resting = this.health.resting(engine.name);
      if (resting) {
        const back = new Date(resting.restUntil!).toISOString();
        outcomes.set(engine.name, { engine: engine.name, status: 'resting', kind: resting.lastErrorKind, results: 0, ms: 0, error: `resting until ${back} after: ${resting.lastError}` });
        return;
      }
      const started = Date.now();
      try {
        const results = await this.ask(engine, q, stop.signal);
        const ms = Date.now() - started;
        this.health.success(engine.name, ms);
        lists.push({ engine: engine.name, weight: engine.weight, results });
        outcomes.set(engine.name, { engine: engine.name, status: 'ok', results: results.length, ms });
      } catch (err) {
        if (stop.signal.aborted && !signal.aborted && err instanceof FetchError && err.failure === 'cancelled') return; // past the deadline: counted below
        const { kind, message } = classify(err);
        this.health.failure(engine.name, kind, message);
        const status: EngineOutcome['status'] = kind === 'timeout' ? 'timeout' : BLOCKED_KINDS.has(kind) ? 'blocked' : 'failed';
        outcomes.set(engine.name, { engine: engine.name, status, kind, results: 0, ms: Date.now() - started, error: message });
      }
    });

    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(runs), new Promise<void>((r) => (timer = setTimeout(r, deadline)))]);
    clearTimeout(timer);
    stop.abort();
    signal.removeEventListener('abort', onAbort);
    for (const e of all) {
      if (!outcomes.has(e.name)) {
        const message = `no answer within the ${deadline} ms deadline`;
        this.health.failure(e.name, 'timeout', message);
        outcomes.set(e.name, { engine: e.name, status: 'timeout', kind: 'timeout', results: 0, ms: Date.now() - t0, error: message });
      }
    }
    // Fuse in the configured engine order so that ties are stable.
    lists.sort((a, b) => all.findIndex((e) => e.name === a.engine) - all.findIndex((e) => e.name === b.engine));
    return { query: q, results: mergeResults(lists, max), engines: all.map((e) => outcomes.get(e.name)!), ms: Date.now() - t0 };
  }
}

function classify(err: unknown): { kind: FailureKind; message: string } {
  if (err instanceof EngineFailure) return { kind: err.kind, message: err.message };
  if (err instanceof FetchError) {
    const message = err.message.replace(/^WebSearch: \S+: /, '');
    return { kind: err.failure === 'timeout' ? 'timeout' : err.failure === 'too-large' ? 'unreadable' : 'network', message };
  }
  // A parser that tripped over markup it did not expect: the engine changed.
  return { kind: 'unreadable', message: `could not read the answer: ${err instanceof Error ? err.message : String(err)}` };
}
