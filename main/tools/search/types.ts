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
}

/** One search engine: how to ask it and how to read its answer. */
export interface Engine {
  name: string;
  /** Weight in rank fusion: engines with better results count more. */
  weight: number;
  defaultBase: string;
  /** Keyed engines are used only when this says they are configured. */
  configured?(settings: SettingsView): boolean;
  request(query: string, base: string, settings: SettingsView): EngineRequest;
  parse(body: string, status: number): SearchResult[];
}

/** The engine showed a CAPTCHA or said "slow down": rest it for a while. */
export class EngineBlocked extends Error {}
/** The answer could not be read (markup changed, garbage). */
export class EngineUnreadable extends Error {}

const CAPTCHA_MARKERS = [/captcha/i, /unusual traffic/i, /are you a (?:robot|human)/i, /anomaly-modal/, /challenge-form/, /\/sorry\/index/, /bots use duckduckgo too/i, /detected unusual/i];

export function assertNotBlocked(body: string, status: number): void {
  if (status === 429) throw new EngineBlocked('rate-limited (HTTP 429)');
  if (CAPTCHA_MARKERS.some((m) => m.test(body.slice(0, 200_000)))) throw new EngineBlocked('answered with a CAPTCHA');
  if (status === 403) throw new EngineBlocked('refused the request (HTTP 403)');
  if (status >= 400) throw new EngineUnreadable(`HTTP ${status}`);
}

export function clean(text: string | null | undefined): string {
  return (text ?? '').replace(/<[^>]+>/g, '').replace(/&quot;/g, '"').replace(/&#39;|&apos;/g, "'").replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/\s+/g, ' ').trim();
}

export function parseJson(body: string, engine: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new EngineUnreadable(`${engine} did not answer with JSON`);
  }
}
