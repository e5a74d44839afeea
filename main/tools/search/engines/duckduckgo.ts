import type { Engine, EngineContext, EngineResponse, SearchResult } from '../engine-types.js';
import { EngineFailure } from '../engine-types.js';
import { absoluteHttp, checkHttp, dom, htmlText, param, type Dom } from '../blocking.js';
import { formBody } from './common.js';

/*
 * DuckDuckGo's no-JavaScript pages (html. and lite.), as SearXNG's
 * duckduckgo.py asks them: a form POST with the Sec-Fetch headers a browser
 * sends when a person submits the form. Without them DDG rate-limits sooner.
 * A challenge is served as a page with `form#challenge-form` (often with HTTP 202).
 */

function browserFormHeaders(ctx: EngineContext): Record<string, string> {
  return {
    'Content-Type': 'application/x-www-form-urlencoded',
    'Sec-Fetch-Dest': 'document',
    'Sec-Fetch-Mode': 'navigate',
    'Sec-Fetch-Site': 'same-origin',
    'Sec-Fetch-User': '?1',
    Referer: `${ctx.base}/`,
  };
}

function checkDuckDuckGo(res: EngineResponse): Dom | undefined {
  // 303 is DDG's answer to a repeated or empty form: no results, not an error.
  if (res.status === 303) return undefined;
  const d = dom(res.body);
  if (d.querySelector('form#challenge-form, form[action*="anomaly.js"]')) throw new EngineFailure('captcha', 'answered with its bot challenge (form#challenge-form)');
  checkHttp(res);
  if (res.status >= 300) throw new EngineFailure('unreadable', `redirected to ${res.headers.location ?? 'nowhere'}`);
  return d;
}

/** DDG wraps some links as //duckduckgo.com/l/?uddg=<url>. */
function unwrap(href: string | null): string | undefined {
  if (!href) return undefined;
  const target = href.includes('duckduckgo.com/l/') ? param('uddg', href) : href;
  return absoluteHttp(target, 'https://duckduckgo.com/');
}

/** Past its last result DDG shows one more "result": a link to the same search on Google ("EOF"). */
function isGoogleFallback(url: string): boolean {
  const u = new URL(url);
  return /(^|\.)google\.[a-z.]+$/.test(u.hostname) && u.pathname === '/search';
}

export const duckduckgo: Engine = {
  name: 'duckduckgo',
  weight: 1.2,
  defaultBase: 'https://html.duckduckgo.com',
  request: (ctx) => ({ url: `${ctx.base}/html/`, method: 'POST', headers: browserFormHeaders(ctx), body: formBody({ q: ctx.query, b: '' }) }),
  parse(res) {
    const d = checkDuckDuckGo(res);
    if (!d) return [];
    const links = d.querySelector('div#links');
    if (!links) throw new EngineFailure('unreadable', 'returned a page without its results list (div#links)');
    const out: SearchResult[] = [];
    for (const item of links.querySelectorAll('div.web-result')) {
      if (item.classList.contains('result--ad')) continue;
      const a = item.querySelector('h2 a');
      const url = unwrap(a?.getAttribute('href') ?? null);
      const title = htmlText(a?.innerHTML);
      if (!url || !title || isGoogleFallback(url)) continue;
      out.push({ title, url, snippet: htmlText(item.querySelector('a.result__snippet, .result__snippet')?.innerHTML) });
    }
    return out;
  },
};

/** Lite lays each result over table rows: the link, then the snippet, then the URL. */
export const duckduckgoLite: Engine = {
  name: 'duckduckgo_lite',
  weight: 1.0,
  defaultBase: 'https://lite.duckduckgo.com',
  request: (ctx) => ({ url: `${ctx.base}/lite/`, method: 'POST', headers: browserFormHeaders(ctx), body: formBody({ q: ctx.query }) }),
  parse(res) {
    const d = checkDuckDuckGo(res);
    if (!d) return [];
    if (!d.querySelector('form[action*="/lite"], input[name="q"]')) throw new EngineFailure('unreadable', 'returned a page without its search form');
    const out: SearchResult[] = [];
    for (const a of d.querySelectorAll('a.result-link')) {
      const url = unwrap(a.getAttribute('href'));
      const title = htmlText(a.innerHTML);
      if (!url || !title) continue;
      let row = a.closest('tr')?.nextElementSibling;
      while (row && !row.querySelector('td.result-snippet') && !row.querySelector('a.result-link')) row = row.nextElementSibling;
      out.push({ title, url, snippet: htmlText(row?.querySelector('td.result-snippet')?.innerHTML) });
    }
    return out;
  },
};
