import type { parseHTML } from 'linkedom';
import { lazyModule } from '../../core/lazy-module.js';
import { EngineFailure, type EngineResponse } from './engine-types.js';

/*
 * Blocking is recognised by structure only: status codes, headers, where a
 * redirect goes, and elements a challenge page has (a form, a script from a
 * CAPTCHA provider). Never by words: a result page echoes the query and its
 * results, so "captcha" or "unusual traffic" in the text proves nothing.
 */

export type Dom = ReturnType<typeof parseHTML>['document'];

const linkedom = lazyModule<typeof import('linkedom')>('linkedom');

export function dom(body: string): Dom {
  return linkedom().parseHTML(body).document;
}

/** Text of an HTML fragment (titles and snippets come with <b>, entities and stray whitespace). */
export function htmlText(fragment: string | null | undefined): string {
  if (!fragment) return '';
  if (!/[<&]/.test(fragment)) return fragment.replace(/\s+/g, ' ').trim();
  return (linkedom().parseHTML(`<!doctype html><html><body>${fragment}</body></html>`).document.body.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function hasScriptFrom(d: Dom, prefixes: string[]): boolean {
  return [...d.querySelectorAll('script[src], iframe[src]')].some((el) => prefixes.some((p) => (el.getAttribute('src') ?? '').replace(/^\/\//, 'https://').startsWith(p)));
}

const CAPTCHA_SCRIPTS = ['https://www.google.com/recaptcha/', 'https://www.recaptcha.net/recaptcha/', 'https://challenges.cloudflare.com/', 'https://hcaptcha.com/', 'https://js.hcaptcha.com/'];

/** A script or frame of a CAPTCHA provider (reCAPTCHA, Cloudflare Turnstile, hCaptcha) on the page. */
export function hasCaptchaScript(d: Dom): boolean {
  return hasScriptFrom(d, CAPTCHA_SCRIPTS);
}

/**
 * The checks every engine shares, on an answer that is not a redirect:
 * Cloudflare's challenge (its `cf-mitigated` header or its challenge platform
 * on an error page), a CAPTCHA provider's script on an error page, then the
 * status: 429 rate-limited, 402/403 denied, 5xx server error, other 4xx unreadable.
 */
export function checkHttp(res: EngineResponse): void {
  if (res.headers['cf-mitigated'] === 'challenge') throw new EngineFailure('captcha', 'answered with a Cloudflare challenge');
  if (res.status >= 400) {
    const d = /html/i.test(res.headers['content-type'] ?? '') || res.body.trimStart().startsWith('<') ? dom(res.body) : undefined;
    if (d && (hasCaptchaScript(d) || d.querySelector('script[src*="/cdn-cgi/challenge-platform/"], form#challenge-form'))) {
      throw new EngineFailure('captcha', `answered HTTP ${res.status} with a CAPTCHA page`);
    }
  }
  if (res.status === 429) throw new EngineFailure('rate-limited', 'rate-limited (HTTP 429)');
  if (res.status === 402 || res.status === 403) throw new EngineFailure('denied', `refused the request (HTTP ${res.status})`);
  if (res.status >= 500) throw new EngineFailure('server-error', `server error (HTTP ${res.status})`);
  if (res.status >= 400) throw new EngineFailure('unreadable', `answered HTTP ${res.status}; the engine may have moved`);
}

export function parseJson(body: string, engine: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new EngineFailure('unreadable', `${engine} did not answer with JSON`);
  }
}

/** The URL a search result link points at, made absolute; undefined for links that are not http(s). */
export function absoluteHttp(href: string | null | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    const u = new URL(href.startsWith('//') ? `https:${href}` : href, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    // Not a URL: no link.
    return undefined;
  }
}

export function param(name: string, href: string): string | undefined {
  try {
    return new URL(href, 'https://x.invalid').searchParams.get(name) ?? undefined;
  } catch {
    // Not a URL: no link.
    return undefined;
  }
}
