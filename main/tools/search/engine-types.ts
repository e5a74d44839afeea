import type { SettingsView } from '../../core/settings/view.js';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface EngineRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Replaces the default user agent (Google's no-JS endpoint answers only old phones). */
  userAgent?: string;
}

/** An engine's answer as it came, redirects not followed: a redirect to a challenge page is itself the signal. */
export interface EngineResponse {
  status: number;
  url: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** Cookies the answer sets, by name. */
  cookies: Record<string, string>;
  body: string;
}

/**
 * Why an engine gave no results. Each kind has its own rest period:
 * - `captcha`: a challenge page (an hour by default);
 * - `rate-limited`, `denied`: HTTP 429 / 402 / 403 or an engine's own "slow down" (minutes);
 * - `timeout`, `server-error`, `network`: transient (seconds, growing while it repeats);
 * - `unreadable`: the answer is not a page the parser knows (the engine changed; minutes);
 * - `needs-browser`: the engine served a page that only works with JavaScript (as long as a CAPTCHA);
 * - `misconfigured`: the user's own setting is wrong (e.g. a SearXNG without JSON output); minutes.
 */
export const FAILURE_KINDS = ['captcha', 'rate-limited', 'denied', 'timeout', 'server-error', 'network', 'unreadable', 'needs-browser', 'misconfigured'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export class EngineFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'EngineFailure';
  }
}

/** What an engine may keep between searches: cookies it was given and tokens it fetched. */
export interface EngineState {
  cookies: Map<string, string>;
  tokens: Map<string, { value: string; expires: number }>;
}

export interface EngineContext {
  query: string;
  /** SEARCH_URL_<ENGINE> when set (tests point engines at local fakes), else the engine's own. */
  base: string;
  settings: SettingsView;
  state: EngineState;
  /** A request on the engine's behalf (for tokens), with the session's cookies, redirects not followed. */
  fetch(req: EngineRequest): Promise<EngineResponse>;
}

/** One search engine: how to ask it and how to read its answer. */
export interface Engine {
  name: string;
  /** Weight in rank fusion: engines with better results count more. */
  weight: number;
  defaultBase: string;
  /** Keyed engines are used only when this says they are configured. */
  configured?(settings: SettingsView): boolean;
  /** Builds the request, fetching and caching a token first when the engine wants one. */
  request(ctx: EngineContext): EngineRequest | Promise<EngineRequest>;
  /** Reads the answer; throws EngineFailure when it is a challenge, a refusal or unreadable. */
  parse(res: EngineResponse, ctx: EngineContext): SearchResult[];
}
