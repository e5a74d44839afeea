import type { SearchResult } from './types.js';

const TRACKING = /^(utm_[a-z]+|gclid|fbclid|msclkid|mc_cid|mc_eid|igshid|yclid|_hsenc|_hsmi|ref_src|ref|spm|si)$/i;

/** The identity of a URL for de-duplication: host case, www., default port, tracking parameters, fragment and trailing slash do not count. */
export function normalizeUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw.trim().toLowerCase();
  }
  const host = u.hostname.toLowerCase().replace(/^www\./, '');
  const port = u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443')) ? `:${u.port}` : '';
  const params = [...u.searchParams.entries()].filter(([k]) => !TRACKING.test(k));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  const path = u.pathname.replace(/\/+$/, '') || '';
  return `${host}${port}${path}${query}`;
}

export interface MergedResult extends SearchResult {
  engines: string[];
  score: number;
}

/**
 * Weighted reciprocal-rank fusion: each engine adds weight / (k + rank) for
 * each result it returned, and results several engines agree on get a bonus.
 */
export function mergeResults(lists: { engine: string; weight: number; results: SearchResult[] }[], max: number, k = 60): MergedResult[] {
  const byKey = new Map<string, MergedResult>();
  for (const { engine, weight, results } of lists) {
    const seen = new Set<string>();
    results.forEach((r, i) => {
      const key = normalizeUrl(r.url);
      if (seen.has(key)) return;
      seen.add(key);
      const add = weight / (k + i + 1);
      const cur = byKey.get(key);
      if (!cur) {
        byKey.set(key, { ...r, engines: [engine], score: add });
        return;
      }
      cur.engines.push(engine);
      cur.score += add;
      if (!cur.snippet && r.snippet) cur.snippet = r.snippet;
      if (r.snippet.length > cur.snippet.length * 1.5) cur.snippet = r.snippet;
      if (cur.url.startsWith('http:') && r.url.startsWith('https:')) cur.url = r.url;
    });
  }
  const merged = [...byKey.values()].map((m) => ({ ...m, score: m.score * (1 + 0.3 * (m.engines.length - 1)) }));
  merged.sort((a, b) => b.score - a.score);
  return merged.slice(0, max);
}
