import type { Engine, EngineResponse, SearchResult } from '../engine-types.js';
import { EngineFailure } from '../engine-types.js';
import { absoluteHttp, checkHttp, dom, hasCaptchaScript, htmlText, param, type Dom } from '../blocking.js';
import { query, redirectTarget, requireResults, unexpectedRedirect } from './common.js';

/*
 * Engines whose result page is plain HTML. Requests, cookies and selectors
 * follow SearXNG's engine modules (searx/engines/<name>.py, 2026-08).
 */

function page(res: EngineResponse): Dom {
  checkHttp(res);
  if (res.status >= 300) unexpectedRedirect(res);
  return dom(res.body);
}

export const brave: Engine = {
  name: 'brave',
  weight: 1.2,
  defaultBase: 'https://search.brave.com',
  request(ctx) {
    for (const [k, v] of Object.entries({ safesearch: 'moderate', useLocation: '0', summarizer: '0', country: 'all', ui_lang: 'en-us' })) ctx.state.cookies.set(k, v);
    return { url: `${ctx.base}/search?${query({ q: ctx.query, source: 'web' })}` };
  },
  parse(res) {
    const d = page(res);
    const out: SearchResult[] = [];
    // Organic results are div.snippet with a link to another site; ads and Brave's own boxes link within Brave.
    for (const item of d.querySelectorAll('div.snippet')) {
      const url = absoluteHttp(item.querySelector('a')?.getAttribute('href'), 'https://search.brave.com/');
      const title = htmlText(item.querySelector('[class~="title"], div[class*="title"]')?.innerHTML);
      if (!url || !title || new URL(url).hostname.endsWith('brave.com')) continue;
      // Deep links under a result (div.result-cluster) are snippets too, with their text in a direct div.description.
      out.push({ title, url, snippet: htmlText(item.querySelector('div.content, .snippet-description, .generic-snippet, :scope > div.description')?.innerHTML) });
    }
    return requireResults(out, Boolean(d.querySelector('#results, main')), 'its results list');
  },
};

export const mojeek: Engine = {
  name: 'mojeek',
  weight: 0.9,
  defaultBase: 'https://www.mojeek.com',
  request: (ctx) => ({ url: `${ctx.base}/search?${query({ q: ctx.query, safe: 0 })}` }),
  parse(res) {
    const d = page(res);
    // Mojeek's challenge is a page of its own with an ALTCHA proof-of-work widget in div.captcha-wrap.
    if (!d.querySelector('ul.results-standard') && d.querySelector('div.captcha-wrap, script[src*="altcha"]')) throw new EngineFailure('captcha', 'answered with its ALTCHA challenge (div.captcha-wrap)');
    const out: SearchResult[] = [];
    for (const a of d.querySelectorAll('ul.results-standard > li > a.ob')) {
      const li = a.parentElement;
      const url = absoluteHttp(a.getAttribute('href'), 'https://www.mojeek.com/');
      const title = htmlText(li?.querySelector('h2 a')?.innerHTML);
      if (!url || !title) continue;
      out.push({ title, url, snippet: htmlText(li?.querySelector('p.s')?.innerHTML) });
    }
    return requireResults(out, Boolean(d.querySelector('ul.results-standard, #results, form[action="/search"]')), 'its results list');
  },
};

/** Yahoo wraps links as …/RU=<encoded url>/RK=…/RS=…; the real URL is inside. */
function yahooUnwrap(href: string): string {
  const ru = href.indexOf('/RU=');
  if (ru < 0) return href;
  const start = href.indexOf('http', ru + 1);
  const ends = ['/RS', '/RK'].map((e) => href.lastIndexOf(e)).filter((i) => i > start);
  if (start < 0 || ends.length === 0) return href;
  try {
    return decodeURIComponent(href.slice(start, Math.min(...ends)));
  } catch {
    // Not percent- or base64-encoded as expected: the link as it is.
    return href;
  }
}

export const yahoo: Engine = {
  name: 'yahoo',
  weight: 0.9,
  defaultBase: 'https://search.yahoo.com',
  request(ctx) {
    ctx.state.cookies.set('sB', 'v=1&vm=p&fl=1&vl=lang_en&pn=10&rw=new&userset=1');
    return { url: `${ctx.base}/search?${query({ p: ctx.query, iscqry: '' })}` };
  },
  parse(res) {
    const d = page(res);
    const out: SearchResult[] = [];
    for (const item of d.querySelectorAll('div.algo-sr')) {
      // search.yahoo.com puts the link around the heading; regional domains put it inside.
      const a = item.querySelector('div.compTitle > a, div.compTitle h3 a');
      const href = a?.getAttribute('href');
      const url = href ? absoluteHttp(yahooUnwrap(href), 'https://search.yahoo.com/') : undefined;
      const title = htmlText(item.querySelector('div.compTitle a h3 span')?.innerHTML) || (a?.getAttribute('aria-label') ?? '').trim() || htmlText(item.querySelector('h3')?.innerHTML);
      if (!url || !title) continue;
      out.push({ title, url, snippet: htmlText(item.querySelector('div.compText')?.innerHTML) });
    }
    return requireResults(out, Boolean(d.querySelector('#web, #results, form[action*="/search"]')), 'its results list');
  },
};

/** Bing's click links carry the target as u=a1<base64url>. */
function bingUnwrap(href: string): string {
  if (!href.startsWith('https://www.bing.com/ck/a?')) return href;
  const u = param('u', href);
  if (!u?.startsWith('a1')) return href;
  try {
    return Buffer.from(u.slice(2), 'base64url').toString('utf8');
  } catch {
    // Not percent- or base64-encoded as expected: the link as it is.
    return href;
  }
}

export const bing: Engine = {
  name: 'bing',
  weight: 1.1,
  defaultBase: 'https://www.bing.com',
  request: (ctx) => ({ url: `${ctx.base}/search?${query({ q: ctx.query, adlt: 'moderate', mkt: 'en-US' })}`, headers: { 'Accept-Language': 'en-US,en;q=0.9' } }),
  parse(res) {
    const d = page(res);
    const list = d.querySelector('ol#b_results');
    // Bing's challenge comes as HTTP 200: its search page with a Cloudflare Turnstile widget where the results would be.
    if (!list && (d.querySelector('#turnstile-widget') || hasCaptchaScript(d))) throw new EngineFailure('captcha', 'answered with its Turnstile challenge instead of results');
    const out: SearchResult[] = [];
    for (const item of list?.querySelectorAll(':scope > li.b_algo') ?? []) {
      const a = item.querySelector('h2 a');
      const url = absoluteHttp(bingUnwrap(a?.getAttribute('href') ?? ''), 'https://www.bing.com/');
      const title = htmlText(a?.innerHTML);
      if (!url || !title) continue;
      for (const icon of item.querySelectorAll('p span.algoSlug_icon')) icon.remove();
      const snippet = [...item.querySelectorAll('p')].map((p) => htmlText(p.innerHTML)).join(' ').trim();
      out.push({ title, url, snippet });
    }
    return requireResults(out, Boolean(list), 'its results list (ol#b_results)');
  },
};

export const yandex: Engine = {
  name: 'yandex',
  weight: 0.8,
  defaultBase: 'https://yandex.com',
  request(ctx) {
    ctx.state.cookies.set('yp', '1716337604.sp.family%3A0#1685406411.szm.1:1920x1080:1920x999');
    return { url: `${ctx.base}/search/site/?${query({ tmpl_version: 'releases', text: ctx.query, web: 1, frame: 1, searchid: 3131712, lang: 'en' })}` };
  },
  parse(res) {
    // Yandex marks its CAPTCHA with a header, or sends the browser to /showcaptcha.
    if (res.headers['x-yandex-captcha'] === 'captcha' || redirectTarget(res)?.pathname.startsWith('/showcaptcha')) throw new EngineFailure('captcha', 'answered with its CAPTCHA (x-yandex-captcha)');
    const d = page(res);
    const out: SearchResult[] = [];
    for (const item of d.querySelectorAll('li.serp-item')) {
      const a = item.querySelector('a.b-serp-item__title-link');
      const url = absoluteHttp(a?.getAttribute('href'), 'https://yandex.com/');
      const title = htmlText((item.querySelector('h3.b-serp-item__title a.b-serp-item__title-link span') ?? a)?.innerHTML);
      if (!url || !title) continue;
      out.push({ title, url, snippet: htmlText(item.querySelector('div.b-serp-item__content div.b-serp-item__text, div.b-serp-item__text')?.innerHTML) });
    }
    return requireResults(out, Boolean(d.querySelector('.b-serp-list, .serp-list, form[action*="search"]')), 'its results list');
  },
};
