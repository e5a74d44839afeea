import type { SearchResult } from '../engine-types.js';
import { EngineFailure, type EngineResponse } from '../engine-types.js';

export const enc = encodeURIComponent;

export function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export function query(fields: Record<string, string | number>): string {
  return new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString();
}

/** Where a redirect points, absolute; undefined when the answer is not a redirect. */
export function redirectTarget(res: EngineResponse): URL | undefined {
  if (res.status < 300 || res.status >= 400 || !res.headers.location) return undefined;
  try {
    return new URL(res.headers.location, res.url);
  } catch {
    // A Location that is not a URL: not a redirect we can follow.
    return undefined;
  }
}

/** A redirect the engine did not mean as a challenge: the engine moved or changed. */
export function unexpectedRedirect(res: EngineResponse): never {
  throw new EngineFailure('unreadable', `redirected to ${res.headers.location ?? 'nowhere'}; the engine may have changed`);
}

/** A page that parsed but had no result block and no sign of "no results": the markup changed. */
export function requireResults(out: SearchResult[], containerFound: boolean, what: string): SearchResult[] {
  if (out.length === 0 && !containerFound) throw new EngineFailure('unreadable', `returned a page without ${what}; its markup may have changed`);
  return out;
}
