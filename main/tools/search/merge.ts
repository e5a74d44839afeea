import type { SearchResult } from './engine-types.js';

const TRACKING = /^(utm_[a-z_]+|gclid|gclsrc|dclid|fbclid|msclkid|mc_cid|mc_eid|igshid|yclid|_hsenc|_hsmi|_ga|_gl|ref_src|ref|spm|si|srsltid|ved|ei)$/i;

/** A path with its percent-escapes in one spelling: unreserved characters decoded, the rest upper-case hex. */
function canonicalPath(path: string): string {
  return path.replace(/%[0-9a-fA-F]{2}/g, (esc) => {
    const ch = String.fromCharCode(parseInt(esc.slice(1), 16));
    return /[A-Za-z0-9\-._~!$&'()*+,;=:@]/.test(ch) ? ch : esc.toUpperCase();
  });
}

/**
 * The identity of a URL for de-duplication. Scheme, host case, `www.`,
 * default port, tracking parameters, parameter order, fragment, trailing
 * slash and the spelling of percent-escapes do not count; the path's case
 * does (paths are case-sensitive on most servers, Wikipedia's among them).
 */
export function normalizeUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    // Not a URL: compared as text.
    return raw.trim().toLowerCase();
  }
  const host = u.hostname.toLowerCase().replace(/^www\./, '');
  const port = u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443')) ? `:${u.port}` : '';
  const params = [...u.searchParams.entries()].filter(([k]) => !TRACKING.test(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  const path = canonicalPath(u.pathname).replace(/\/+$/, '');
  return `${host}${port}${path}${query}`;
}

export interface MergedResult extends SearchResult {
  engines: string[];
  score: number;
}

/**
 * Rank fusion as SearXNG scores results (searx/results.py): a result's
 * weight is the product of the weights of the engines that returned it times
 * their number, and its score is that weight divided by its position, summed
 * over those engines. Agreement counts twice, in the weight and in the sum: a
 * page that is #1 on two engines (2 × (1 + 1) = 4) beats a #1 on one (1) and
 * a #3 on three (3 × 3 × ⅓ = 3). (The k = 60 of classic reciprocal-rank
 * fusion flattened this: #1 on two engines could land fifth.)
 */
export function mergeResults(lists: { engine: string; weight: number; results: SearchResult[] }[], max: number): MergedResult[] {
  const byKey = new Map<string, MergedResult & { positions: number[]; weights: number[] }>();
  for (const { engine, weight, results } of lists) {
    const seen = new Set<string>();
    results.forEach((r, i) => {
      const key = normalizeUrl(r.url);
      if (seen.has(key)) return;
      seen.add(key);
      const cur = byKey.get(key);
      if (!cur) {
        byKey.set(key, { ...r, engines: [engine], score: 0, positions: [i + 1], weights: [weight] });
        return;
      }
      cur.engines.push(engine);
      cur.positions.push(i + 1);
      cur.weights.push(weight);
      if (r.snippet.length > cur.snippet.length * 1.5) cur.snippet = r.snippet;
      if (cur.url.startsWith('http:') && r.url.startsWith('https:')) cur.url = r.url;
    });
  }
  const merged = [...byKey.values()].map(({ positions, weights, ...m }) => {
    const weight = weights.reduce((a, b) => a * b, 1) * positions.length;
    return { ...m, score: positions.reduce((s, p) => s + weight / p, 0) };
  });
  merged.sort((a, b) => b.score - a.score);
  return merged.slice(0, max);
}
