import type { Engine, EngineResponse } from '../engine-types.js';
import { EngineFailure } from '../engine-types.js';
import { absoluteHttp, checkHttp, dom, htmlText, parseJson } from '../blocking.js';
import { enc, query, redirectTarget, unexpectedRedirect } from './common.js';

/*
 * Engines that answer JSON. Requests follow SearXNG's engine modules
 * (2026-08) for the free ones and each provider's API for the keyed ones.
 */

function json(res: EngineResponse, engine: string): unknown {
  checkHttp(res);
  if (res.status >= 300) unexpectedRedirect(res);
  return parseJson(res.body, engine);
}

export const wikipedia: Engine = {
  name: 'wikipedia',
  weight: 1.1,
  defaultBase: 'https://en.wikipedia.org',
  request: (ctx) => ({ url: `${ctx.base}/w/api.php?${query({ action: 'query', list: 'search', srsearch: ctx.query, format: 'json', srlimit: 10, utf8: 1 })}` }),
  parse(res) {
    const data = json(res, 'wikipedia') as { query?: { search?: { title: string; snippet: string }[] } };
    if (!data.query?.search) throw new EngineFailure('unreadable', 'answered without query.search');
    return data.query.search.map((r) => ({ title: r.title, url: `https://en.wikipedia.org/wiki/${enc(r.title.replace(/ /g, '_'))}`, snippet: htmlText(r.snippet) }));
  },
};

/*
 * Qwant's API sits behind DataDome: the `datadome` cookie it sets must come
 * back on the next request (the engine session carries it), with the
 * parameters its own web page sends (tgp, displayed, llm) and its origin.
 */
const QWANT_SITE = 'https://www.qwant.com';

/** An HTML page carrying DataDome's tag (Qwant serves its tag from dd.qwant.com; DataDome's own host is captcha-delivery.com). */
function isDataDomePage(res: EngineResponse): boolean {
  if (!res.body.trimStart().startsWith('<')) return false;
  return Boolean(dom(res.body).querySelector('script[src*="dd.qwant.com/"], script[src*="captcha-delivery.com/"], iframe[src*="captcha-delivery.com/"]'));
}
const testGroup = 1 + Math.floor(Math.random() * 3);

export const qwant: Engine = {
  name: 'qwant',
  weight: 1.0,
  defaultBase: 'https://api.qwant.com',
  request: (ctx) => ({
    url: `${ctx.base}/v3/search/web?${query({ q: ctx.query, count: 10, locale: 'en_US', offset: 0, tgp: testGroup, device: 'desktop', safesearch: 1, displayed: 'true', llm: 'true' })}`,
    headers: { Accept: 'application/json', Referer: `${QWANT_SITE}/`, Origin: QWANT_SITE },
  }),
  parse(res) {
    let data: { status?: string; url?: string; data?: { error_code?: number; message?: string[]; result?: { items?: { mainline?: { type: string; items: { title: string; url: string; desc?: string }[] }[] } } } } | undefined;
    try {
      data = JSON.parse(res.body) as typeof data;
    } catch {
      // Not JSON: classified below (a refusal page or an unreadable answer).
      data = undefined;
    }
    // Qwant explains itself in JSON, even on 403: read that before the status.
    if (data && data.status !== 'success') {
      if (data.data?.error_code === 24) throw new EngineFailure('rate-limited', 'said too many requests (error 24)');
      if (data.url) throw new EngineFailure('captcha', 'answered with a DataDome challenge');
    }
    if (!data && isDataDomePage(res)) throw new EngineFailure('denied', 'answered with its "Service unavailable" page (DataDome bot protection) instead of JSON');
    checkHttp(res);
    if (!data) throw new EngineFailure('unreadable', 'did not answer with JSON');
    if (data.status !== 'success') throw new EngineFailure('unreadable', `error ${data.data?.error_code ?? '?'}: ${(data.data?.message ?? ['unknown']).join(', ')}`);
    const main = data.data?.result?.items?.mainline;
    if (!main) return [];
    return main
      .filter((m) => m.type === 'web')
      .flatMap((m) => m.items.map((r) => ({ title: htmlText(r.title), url: absoluteHttp(r.url, QWANT_SITE) ?? '', snippet: htmlText(r.desc) })))
      .filter((r) => r.url && r.title);
  },
};

export const baidu: Engine = {
  name: 'baidu',
  weight: 0.7,
  defaultBase: 'https://www.baidu.com',
  request: (ctx) => ({ url: `${ctx.base}/s?${query({ wd: ctx.query, rn: 10, pn: 0, tn: 'json' })}` }),
  parse(res) {
    if (redirectTarget(res)?.href.includes('wappass.baidu.com/static/captcha')) throw new EngineFailure('captcha', 'redirected to its CAPTCHA (wappass.baidu.com)');
    const data = json(res, 'baidu') as { antiFlag?: number; message?: string; feed?: { entry?: { title?: string; url?: string; abs?: string }[] } };
    if (data.antiFlag === 1) throw new EngineFailure('denied', `refused: ${data.message ?? 'Forbid spider access'}`);
    if (!data.feed) throw new EngineFailure('unreadable', 'answered without a feed');
    return (data.feed.entry ?? []).filter((e) => e.url && e.title).map((e) => ({ title: htmlText(e.title), url: e.url!, snippet: htmlText(e.abs) }));
  },
};

export const braveApi: Engine = {
  name: 'brave_api',
  weight: 1.3,
  defaultBase: 'https://api.search.brave.com',
  configured: (s) => s.get('BRAVE_API_KEY') !== '',
  request: (ctx) => ({ url: `${ctx.base}/res/v1/web/search?${query({ q: ctx.query, count: 10 })}`, headers: { Accept: 'application/json', 'X-Subscription-Token': ctx.settings.get('BRAVE_API_KEY') } }),
  parse(res) {
    const data = json(res, 'brave_api') as { web?: { results?: { title: string; url: string; description?: string }[] } };
    return (data.web?.results ?? []).map((r) => ({ title: htmlText(r.title), url: r.url, snippet: htmlText(r.description) }));
  },
};

/** Marginalia's API moved to api2.marginalia-search.com in 2026; the key travels in an API-Key header. */
export const marginalia: Engine = {
  name: 'marginalia',
  weight: 0.8,
  defaultBase: 'https://api2.marginalia-search.com',
  configured: (s) => s.get('MARGINALIA_API_KEY') !== '',
  request: (ctx) => ({ url: `${ctx.base}/search?${query({ query: ctx.query, count: 10, page: 1, nsfw: 0 })}`, headers: { Accept: 'application/json', 'API-Key': ctx.settings.get('MARGINALIA_API_KEY') } }),
  parse(res) {
    if (res.status === 401) throw new EngineFailure('misconfigured', 'refused MARGINALIA_API_KEY (HTTP 401); get a key at https://about.marginalia-search.com/article/api');
    const data = json(res, 'marginalia') as { results?: { title: string; url: string; description?: string }[] };
    if (!data.results) throw new EngineFailure('unreadable', 'answered without results');
    return data.results.map((r) => ({ title: htmlText(r.title), url: r.url, snippet: htmlText(r.description) }));
  },
};

export const tavily: Engine = {
  name: 'tavily',
  weight: 1.3,
  defaultBase: 'https://api.tavily.com',
  configured: (s) => s.get('TAVILY_API_KEY') !== '',
  request: (ctx) => ({ url: `${ctx.base}/search`, method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ctx.settings.get('TAVILY_API_KEY')}` }, body: JSON.stringify({ query: ctx.query, max_results: 10 }) }),
  parse(res) {
    if (res.status === 401) throw new EngineFailure('misconfigured', 'refused TAVILY_API_KEY (HTTP 401); check the key');
    const data = json(res, 'tavily') as { results?: { title: string; url: string; content?: string }[] };
    if (!data.results) throw new EngineFailure('unreadable', 'answered without results');
    return data.results.map((r) => ({ title: htmlText(r.title), url: r.url, snippet: htmlText(r.content) }));
  },
};

/** A SearXNG instance of the user's. Out of the box SearXNG serves only HTML and answers 403 to format=json. */
export const searxng: Engine = {
  name: 'searxng',
  weight: 1.2,
  defaultBase: '',
  configured: (s) => s.get('SEARXNG_URL') !== '',
  request: (ctx) => ({ url: `${ctx.settings.get('SEARXNG_URL').replace(/\/+$/, '')}/search?${query({ q: ctx.query, format: 'json' })}`, headers: { Accept: 'application/json' } }),
  parse(res) {
    if (res.status === 403) {
      throw new EngineFailure('misconfigured', 'SEARXNG_URL refuses JSON (HTTP 403 to format=json): SearXNG serves only HTML unless `json` is listed under search.formats in its settings.yml. Add it there, or point SEARXNG_URL at an instance that allows it.');
    }
    if (res.status < 300 && res.body.trimStart().startsWith('<')) {
      const title = htmlText(dom(res.body).querySelector('title')?.innerHTML) || 'no title';
      throw new EngineFailure('misconfigured', `SEARXNG_URL answered an HTML page ("${title.slice(0, 80)}") instead of JSON: public instances often check for a browser first. Point SEARXNG_URL at a SearXNG instance of your own with \`json\` under search.formats in its settings.yml.`);
    }
    const data = json(res, 'searxng') as { results?: { title: string; url: string; content?: string }[] };
    if (!data.results) throw new EngineFailure('unreadable', 'answered without results');
    return data.results.map((r) => ({ title: htmlText(r.title), url: r.url, snippet: htmlText(r.content) }));
  },
};
