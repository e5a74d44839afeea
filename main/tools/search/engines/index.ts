import type { Engine, SearchResult } from '../types.js';
import { assertNotBlocked, clean, parseJson, EngineUnreadable, EngineBlocked } from '../types.js';
import { parseHTML } from 'linkedom';
import { htmlEngine, param } from './html.js';

const enc = encodeURIComponent;

const wikipedia: Engine = {
  name: 'wikipedia',
  weight: 1.1,
  defaultBase: 'https://en.wikipedia.org',
  request: (q, base) => ({ url: `${base}/w/api.php?action=query&list=search&srsearch=${enc(q)}&format=json&srlimit=10&utf8=1` }),
  parse(body, status) {
    assertNotBlocked(body, status);
    const data = parseJson(body, 'wikipedia') as { query?: { search?: { title: string; snippet: string }[] } };
    if (!data.query?.search) throw new EngineUnreadable('answered without query.search');
    return data.query.search.map((r) => ({ title: r.title, url: `https://en.wikipedia.org/wiki/${enc(r.title.replace(/ /g, '_'))}`, snippet: clean(r.snippet) }));
  },
};

const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

const duckduckgo = htmlEngine({
  name: 'duckduckgo',
  weight: 1.2,
  defaultBase: 'https://html.duckduckgo.com',
  request: (q, base) => ({ url: `${base}/html/`, method: 'POST', headers: form, body: `q=${enc(q)}&b=&kl=` }),
  item: 'div.result:not(.result--ad)',
  link: 'a.result__a',
  snippet: '.result__snippet',
  unwrap: (href) => param('uddg', href) ?? href,
  noResults: /class="no-results"|No results\./,
});

/** Lite lays each result over three table rows: the link, then the snippet, then the URL. */
const duckduckgoLite: Engine = {
  name: 'duckduckgo_lite',
  weight: 1.0,
  defaultBase: 'https://lite.duckduckgo.com',
  request: (q, base) => ({ url: `${base}/lite/`, method: 'POST', headers: form, body: `q=${enc(q)}&kl=` }),
  parse(body, status) {
    assertNotBlocked(body, status);
    const { document } = parseHTML(body);
    const out: SearchResult[] = [];
    for (const a of document.querySelectorAll('a.result-link')) {
      const href = a.getAttribute('href');
      if (!href) continue;
      let url = param('uddg', href) ?? href;
      if (url.startsWith('//')) url = `https:${url}`;
      if (!/^https?:\/\//.test(url)) continue;
      let row = a.closest('tr')?.nextElementSibling;
      while (row && !row.querySelector('td.result-snippet') && !row.querySelector('a.result-link')) row = row.nextElementSibling;
      out.push({ title: clean(a.textContent), url, snippet: clean(row?.querySelector('td.result-snippet')?.textContent) });
    }
    if (out.length === 0 && !/No results\./.test(body)) throw new EngineUnreadable('returned a page without recognisable results');
    return out;
  },
};

const startpage = htmlEngine({
  name: 'startpage',
  weight: 1.1,
  defaultBase: 'https://www.startpage.com',
  request: (q, base) => ({ url: `${base}/sp/search?query=${enc(q)}&cat=web&language=english` }),
  item: 'div.result',
  link: 'a.result-title, a.result-link',
  title: '.wgl-title, h2, a.result-title',
  snippet: 'p.description, .description',
  noResults: /did not match any/i,
});

const brave = htmlEngine({
  name: 'brave',
  weight: 1.2,
  defaultBase: 'https://search.brave.com',
  request: (q, base) => ({ url: `${base}/search?q=${enc(q)}&source=web` }),
  item: 'div.snippet[data-type="web"]',
  link: 'a[href^="http"]',
  title: '.title, .snippet-title',
  snippet: '.snippet-description, .generic-snippet, .description',
  noResults: /no results found/i,
});

const mojeek = htmlEngine({
  name: 'mojeek',
  weight: 0.9,
  defaultBase: 'https://www.mojeek.com',
  request: (q, base) => ({ url: `${base}/search?q=${enc(q)}` }),
  item: 'ul.results-standard > li',
  link: 'a.title, h2 a',
  snippet: 'p.s',
  noResults: /No pages found/i,
});

/** Yahoo wraps links as …/RU=<encoded url>/RK=…; the real URL is inside. */
function yahooUnwrap(href: string): string {
  const m = /\/RU=([^/]+)\//.exec(href);
  return m ? decodeURIComponent(m[1]!) : href;
}

const yahoo = htmlEngine({
  name: 'yahoo',
  weight: 0.9,
  defaultBase: 'https://search.yahoo.com',
  request: (q, base) => ({ url: `${base}/search?p=${enc(q)}&ei=UTF-8` }),
  item: 'div.algo',
  link: 'h3 a, a.d-ib',
  title: 'h3',
  snippet: '.compText p, .compText',
  unwrap: yahooUnwrap,
  noResults: /We did not find results/i,
});

const qwant: Engine = {
  name: 'qwant',
  weight: 1.0,
  defaultBase: 'https://api.qwant.com',
  request: (q, base) => ({ url: `${base}/v3/search/web?q=${enc(q)}&count=10&locale=en_US&offset=0&device=desktop&safesearch=1` }),
  parse(body, status) {
    assertNotBlocked(body, status);
    const data = parseJson(body, 'qwant') as { status?: string; data?: { error_code?: number; result?: { items?: { mainline?: { type: string; items: { title: string; url: string; desc?: string }[] }[] } } } };
    if (data.status === 'error') {
      if (data.data?.error_code === 24) throw new EngineBlocked('answered with a CAPTCHA');
      throw new EngineUnreadable(`error ${data.data?.error_code ?? '?'}`);
    }
    const main = data.data?.result?.items?.mainline;
    if (!main) throw new EngineUnreadable('answered without result items');
    return main.filter((m) => m.type === 'web').flatMap((m) => m.items.map((r) => ({ title: clean(r.title), url: r.url, snippet: clean(r.desc) })));
  },
};

/** Bing's click links carry the target as u=a1<base64url>. */
function bingUnwrap(href: string): string {
  const u = param('u', href);
  if (u && u.startsWith('a1')) {
    try {
      return Buffer.from(u.slice(2), 'base64url').toString('utf8');
    } catch {
      return href;
    }
  }
  return href;
}

const bing = htmlEngine({
  name: 'bing',
  weight: 1.1,
  defaultBase: 'https://www.bing.com',
  request: (q, base) => ({ url: `${base}/search?q=${enc(q)}&setlang=en&cc=US` }),
  item: 'li.b_algo',
  link: 'h2 a',
  snippet: '.b_caption p, .b_lineclamp2, .b_algoSlug',
  unwrap: bingUnwrap,
  noResults: /There are no results for/i,
});

const yandex = htmlEngine({
  name: 'yandex',
  weight: 0.8,
  defaultBase: 'https://yandex.com',
  request: (q, base) => ({ url: `${base}/search/site/?text=${enc(q)}&tmpl_version=releases&web=1&frame=1&searchid=3131712&lang=en` }),
  item: 'li.serp-item, .b-serp-item',
  link: 'a.b-serp-item__title-link, h3 a',
  snippet: '.b-serp-item__text',
  noResults: /nothing was found/i,
});

const baidu: Engine = {
  name: 'baidu',
  weight: 0.7,
  defaultBase: 'https://www.baidu.com',
  request: (q, base) => ({ url: `${base}/s?wd=${enc(q)}&rn=10&tn=json&ie=utf-8` }),
  parse(body, status) {
    assertNotBlocked(body, status);
    const data = parseJson(body, 'baidu') as { feed?: { entry?: { title?: string; url?: string; abs?: string }[] } };
    if (!data.feed) throw new EngineUnreadable('answered without a feed');
    return (data.feed.entry ?? []).filter((e) => e.url && e.title).map((e) => ({ title: clean(e.title), url: e.url!, snippet: clean(e.abs) }));
  },
};

const google = htmlEngine({
  name: 'google',
  weight: 1.2,
  defaultBase: 'https://www.google.com',
  request: (q, base) => ({ url: `${base}/search?q=${enc(q)}&hl=en&num=10&ie=utf8&oe=utf8` }),
  item: 'div.g, div.MjjYud, div[data-hveid]:has(h3)',
  link: 'a:has(h3)',
  title: 'h3',
  snippet: '.VwiC3b, [data-sncf], .IsZvec',
  unwrap: (href) => (href.startsWith('/url?') ? (param('q', href) ?? href) : href),
  noResults: /did not match any documents/i,
});

const braveApi: Engine = {
  name: 'brave_api',
  weight: 1.3,
  defaultBase: 'https://api.search.brave.com',
  configured: (s) => s.get('BRAVE_API_KEY') !== '',
  request: (q, base, s) => ({ url: `${base}/res/v1/web/search?q=${enc(q)}&count=10`, headers: { Accept: 'application/json', 'X-Subscription-Token': s.get('BRAVE_API_KEY') } }),
  parse(body, status) {
    assertNotBlocked(body, status);
    const data = parseJson(body, 'brave_api') as { web?: { results?: { title: string; url: string; description?: string }[] } };
    return (data.web?.results ?? []).map((r) => ({ title: clean(r.title), url: r.url, snippet: clean(r.description) }));
  },
};

const marginalia: Engine = {
  name: 'marginalia',
  weight: 0.8,
  defaultBase: 'https://api.marginalia.nu',
  configured: (s) => s.get('MARGINALIA_API_KEY') !== '',
  request: (q, base, s) => ({ url: `${base}/${enc(s.get('MARGINALIA_API_KEY'))}/search/${enc(q)}?count=10` }),
  parse(body, status) {
    assertNotBlocked(body, status);
    const data = parseJson(body, 'marginalia') as { results?: { title: string; url: string; description?: string }[] };
    if (!data.results) throw new EngineUnreadable('answered without results');
    return data.results.map((r) => ({ title: clean(r.title), url: r.url, snippet: clean(r.description) }));
  },
};

const tavily: Engine = {
  name: 'tavily',
  weight: 1.3,
  defaultBase: 'https://api.tavily.com',
  configured: (s) => s.get('TAVILY_API_KEY') !== '',
  request: (q, base, s) => ({ url: `${base}/search`, method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.get('TAVILY_API_KEY')}` }, body: JSON.stringify({ query: q, max_results: 10 }) }),
  parse(body, status) {
    assertNotBlocked(body, status);
    const data = parseJson(body, 'tavily') as { results?: { title: string; url: string; content?: string }[] };
    if (!data.results) throw new EngineUnreadable('answered without results');
    return data.results.map((r) => ({ title: clean(r.title), url: r.url, snippet: clean(r.content) }));
  },
};

const searxng: Engine = {
  name: 'searxng',
  weight: 1.2,
  defaultBase: '',
  configured: (s) => s.get('SEARXNG_URL') !== '',
  request: (q, _base, s) => ({ url: `${s.get('SEARXNG_URL').replace(/\/+$/, '')}/search?q=${enc(q)}&format=json` }),
  parse(body, status) {
    assertNotBlocked(body, status);
    const data = parseJson(body, 'searxng') as { results?: { title: string; url: string; content?: string }[] };
    if (!data.results) throw new EngineUnreadable('answered without results (is format=json enabled in its settings.yml?)');
    return data.results.map((r) => ({ title: clean(r.title), url: r.url, snippet: clean(r.content) }));
  },
};

export const ENGINES: Engine[] = [wikipedia, duckduckgo, duckduckgoLite, startpage, brave, mojeek, yahoo, qwant, bing, yandex, baidu, google, braveApi, marginalia, tavily, searxng];

export type { SearchResult };
