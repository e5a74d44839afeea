import type { SettingsView } from '../../core/settings/view.js';
import type { FailureKind } from './engine-types.js';

/** What /api/search/engines and the dashboard show of one engine. */
export interface EngineHealth {
  name: string;
  /** ok: answered last time; resting: left alone until restUntil; failing: failed last time, free to retry; unknown: not asked yet. */
  state: 'ok' | 'resting' | 'failing' | 'unknown';
  lastSuccess?: number;
  lastError?: string;
  lastErrorKind?: FailureKind;
  lastErrorAt?: number;
  /** Epoch ms when a resting engine is asked again. */
  restUntil?: number;
  consecutiveFailures: number;
  latencies: number[];
  medianMs?: number;
}

/** Transient failures rest SEARCH_REST_ERROR_S times the number of failures in a row, up to this many times. */
const ERROR_GROWTH_CAP = 12;

/**
 * How long an engine is left alone after a failure, by kind (SearXNG's
 * policy): seconds for a timeout, a 5xx or a network error, growing while
 * they repeat; minutes for a refusal, a rate limit, an unreadable page or a
 * wrong setting; an hour for a CAPTCHA or a page that needs a browser.
 */
export function restSeconds(kind: FailureKind, consecutive: number, settings: SettingsView): number {
  switch (kind) {
    case 'timeout':
    case 'server-error':
    case 'network':
      return settings.get('SEARCH_REST_ERROR_S') * Math.min(Math.max(1, consecutive), ERROR_GROWTH_CAP);
    case 'rate-limited':
    case 'denied':
    case 'unreadable':
    case 'misconfigured':
      return settings.get('SEARCH_REST_BLOCKED_S');
    case 'captcha':
    case 'needs-browser':
      return settings.get('SEARCH_REST_CAPTCHA_S');
  }
}

export class HealthBook {
  private byName = new Map<string, EngineHealth>();

  constructor(private settings: SettingsView) {}

  get(name: string): EngineHealth {
    let h = this.byName.get(name);
    if (!h) this.byName.set(name, (h = { name, state: 'unknown', consecutiveFailures: 0, latencies: [] }));
    return h;
  }

  resting(name: string, now = Date.now()): EngineHealth | undefined {
    const h = this.byName.get(name);
    return h?.restUntil && h.restUntil > now ? h : undefined;
  }

  success(name: string, ms: number): void {
    const h = this.get(name);
    h.lastSuccess = Date.now();
    h.consecutiveFailures = 0;
    h.restUntil = undefined;
    h.latencies = [...h.latencies.slice(-19), ms];
  }

  failure(name: string, kind: FailureKind, message: string): number {
    const h = this.get(name);
    h.consecutiveFailures++;
    h.lastError = message;
    h.lastErrorKind = kind;
    h.lastErrorAt = Date.now();
    const rest = restSeconds(kind, h.consecutiveFailures, this.settings);
    h.restUntil = rest > 0 ? Date.now() + rest * 1000 : undefined;
    return rest;
  }

  report(names: string[], now = Date.now()): EngineHealth[] {
    return names.map((name) => {
      const h = this.get(name);
      const sorted = [...h.latencies].sort((a, b) => a - b);
      const resting = h.restUntil !== undefined && h.restUntil > now;
      const state: EngineHealth['state'] = resting ? 'resting' : h.consecutiveFailures > 0 ? 'failing' : h.lastSuccess ? 'ok' : 'unknown';
      return { ...h, state, restUntil: resting ? h.restUntil : undefined, medianMs: sorted.length ? sorted[Math.floor(sorted.length / 2)] : undefined };
    });
  }
}
