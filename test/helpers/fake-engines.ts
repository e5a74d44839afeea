import http from 'node:http';
import { hasCorpus, SOURCES, duckDuckGoPages, SERP_PAGES, serpPage, withQueryEcho, type SerpPageSource } from './web-corpora.js';

export interface FakeHit {
  title: string;
  url: string;
  snippet: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/*
 * Result pages in each engine's 2026 shape, as SearXNG's engine modules
 * (searx/engines/*.py, 2026-08) read them: the same elements, classes,
 * JSON keys and link wrappers, around the engine's query echo (search box,
 * page title, "related searches") and an ad. They are NOT saved real pages;
 * with `real`, the fake serves the real pages of web-corpora.ts instead
 * wherever there is one (see test/fixtures/web/README.md).
 */
export const PAGES: Record<string, (hits: FakeHit[], query: string) => { type: string; body: string }> = {
  wikipedia: (hits) => ({ type: 'application/json', body: JSON.stringify({ batchcomplete: '', query: { searchinfo: { totalhits: hits.length }, search: hits.map((h, i) => ({ ns: 0, title: h.title, pageid: i + 1, snippet: `<span class="searchmatch">${esc(h.snippet)}</span>` })) } }) }),
  duckduckgo: (hits, q) => ({
    type: 'text/html',
    body: `<!DOCTYPE html><html><head><title>${esc(q)} at DuckDuckGo</title></head><body class="body--html">
      <form name="x" class="header__form" action="/html/" method="post"><input name="q" class="search__input" type="text" value="${esc(q)}" /></form>
      <div class="serp__results"><div id="links" class="results">
      <div class="result results_links results_links_deep result--ad"><div class="links_main links_deep result__body"><h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example">Ad about ${esc(q)}</a></h2><a class="result__snippet" href="#">Buy ${esc(q)}</a></div></div>
      ${hits.map((h) => `<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body"><h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(h.url)}&amp;rut=abc">${esc(h.title)}</a></h2><a class="result__snippet" href="${esc(h.url)}">${esc(h.snippet)}</a></div></div>`).join('\n')}
      </div></div><form action="/html/" method="post"><input type="hidden" name="q" value="${esc(q)}" /><input type="hidden" name="vqd" value="4-1" /></form></body></html>`,
  }),
  duckduckgo_lite: (hits, q) => ({
    type: 'text/html',
    body: `<html><head><title>${esc(q)} at DuckDuckGo</title></head><body><form action="/lite/" method="post"><input class="query" type="text" name="q" value="${esc(q)}"></form><table>${hits.map((h, i) => `<tr><td>${i + 1}.&nbsp;</td><td><a rel="nofollow" href="${esc(h.url)}" class="result-link">${esc(h.title)}</a></td></tr><tr><td>&nbsp;</td><td class="result-snippet">${esc(h.snippet)}</td></tr><tr><td>&nbsp;</td><td><span class="link-text">${esc(h.url)}</span></td></tr>`).join('\n')}</table></body></html>`,
  }),
  startpage: (hits, q) => {
    const payload = { render: { presenter: { regions: { mainline: [{ display_type: 'ads-google-top', results: [{ title: `Ad: ${q}`, clickUrl: 'https://ads.example/x' }] }, { display_type: 'web-google', results: hits.map((h) => ({ title: esc(h.title), clickUrl: h.url, description: `<b>${esc(h.snippet)}</b>` })) }] } } } };
    return { type: 'text/html', body: `<!DOCTYPE html><html><head><title>${esc(q)} - Startpage Search</title></head><body><form id="search" action="/sp/search" method="post"><input name="query" value="${esc(q)}"></form><div id="main"></div><script>React.createElement(UIStartpage.AppSerpWeb, ${JSON.stringify(payload)}, null)</script></body></html>` };
  },
  brave: (hits, q) => ({
    type: 'text/html',
    body: `<html><head><title>${esc(q)} - Brave Search</title></head><body><form action="/search"><input name="q" value="${esc(q)}"></form><main><div id="results"><div class="snippet svelte-1 " data-type="ad"><a href="/a/redirect?click_url=x"><div class="title">Ad: ${esc(q)}</div></a></div>${hits.map((h) => `<div class="snippet svelte-jmfu5f" data-type="web"><a href="${esc(h.url)}" class="svelte-14r20fy l1"><div class="title search-snippet-title line-clamp-1 svelte-14r20fy">${esc(h.title)}</div></a><div class="content desktop-default-regular t-primary line-clamp-dynamic svelte-1cwdgg3">${esc(h.snippet)}</div></div>`).join('')}</div></main></body></html>`,
  }),
  mojeek: (hits, q) => ({ type: 'text/html', body: `<html><head><title>${esc(q)} - Mojeek Search</title></head><body><form action="/search"><input name="q" value="${esc(q)}"></form><div class="results"><ul class="results-standard">${hits.map((h, i) => `<li class="r${i + 1}"><a class="ob" href="${esc(h.url)}">${esc(h.url)}</a><h2><a class="title" href="${esc(h.url)}">${esc(h.title)}</a></h2><p class="s">${esc(h.snippet)}</p></li>`).join('')}</ul></div></body></html>` }),
  yahoo: (hits, q) => ({
    type: 'text/html',
    body: `<html><head><title>${esc(q)} - Yahoo Search Results</title></head><body><form action="https://search.yahoo.com/search"><input name="p" value="${esc(q)}"></form><div id="web"><ol>${hits.map((h) => `<li><div class="dd algo algo-sr relsrch Sr"><div class="compTitle options-toggle"><a class="d-ib fz-20" href="https://r.search.yahoo.com/_ylt=A0/RV=2/RE=1/RO=10/RU=${encodeURIComponent(h.url)}/RK=2/RS=x-"><h3 class="title"><span>${esc(h.title)}</span></h3></a></div><div class="compText aAbs"><p class="fz-ms">${esc(h.snippet)}</p></div></div></li>`).join('')}</ol></div><div class="AlsoTry"><table><tr><td><a href="#">${esc(q)} tutorial</a></td></tr></table></div></body></html>`,
  }),
  qwant: (hits) => ({ type: 'application/json', body: JSON.stringify({ status: 'success', data: { result: { items: { mainline: [{ type: 'ads', items: [{ title: 'Ad', url: 'https://ads.example/' }] }, { type: 'web', items: hits.map((h) => ({ title: h.title, url: h.url, desc: h.snippet })) }] } } } }) }),
  bing: (hits, q) => ({
    type: 'text/html',
    body: `<html><head><title>${esc(q)} - Search</title></head><body><form action="/search"><input name="q" value="${esc(q)}"></form><ol id="b_results"><li class="b_ad"><h2><a href="https://ads.example">Ad: ${esc(q)}</a></h2></li>${hits.map((h) => `<li class="b_algo" data-id iid="SERP.5001"><h2><a target="_blank" href="https://www.bing.com/ck/a?!&amp;&amp;p=abc&amp;u=a1${Buffer.from(h.url).toString('base64url')}&amp;ntb=1">${esc(h.title)}</a></h2><div class="b_caption"><p class="b_lineclamp2"><span class="algoSlug_icon" data-priority="2">WEB</span>${esc(h.snippet)}</p></div></li>`).join('')}</ol></body></html>`,
  }),
  yandex: (hits, q) => ({ type: 'text/html', body: `<html><head><title>${esc(q)}: search results</title></head><body><form action="/search/site/"><input name="text" value="${esc(q)}"></form><ul class="b-serp-list">${hits.map((h) => `<li class="b-serp-item serp-item"><h3 class="b-serp-item__title"><a class="b-serp-item__title-link" href="${esc(h.url)}"><span>${esc(h.title)}</span></a></h3><div class="b-serp-item__content"><div class="b-serp-item__text">${esc(h.snippet)}</div></div></li>`).join('')}</ul></body></html>` }),
  baidu: (hits) => ({ type: 'application/json', body: JSON.stringify({ feed: { entry: [...hits.map((h) => ({ title: h.title, url: h.url, abs: h.snippet })), {}] } }) }),
  google: (hits, q) => ({
    type: 'text/html',
    body: `<?xml version="1.0" encoding="UTF-8"?><html><head><title>${esc(q)} - Google Search</title></head><body><form action="/wml/search"><input name="q" value="${esc(q)}"></form>${hits.map((h) => `<div class="zMzFAb"><a class="fuLhoc ZWRArf" href="/url?q=${encodeURIComponent(h.url)}&amp;sa=U&amp;ved=2ah"><span class="CVA68e qXLe6d">${esc(h.title)}</span></a><div class="taTFJ"><span class="FrIlee">${esc(h.snippet)}</span></div></div>`).join('')}<table class="HExoMb"><tr><td><a class="ZWRArf" href="/wml/search?q=${encodeURIComponent(q)}+2">${esc(q)} 2</a></td></tr></table></body></html>`,
  }),
};

/** Each engine's own way of saying "prove you are human", as SearXNG's modules recognise it. */
export const CHALLENGES: Record<string, { status: number; headers?: Record<string, string>; body: string }> = {
  duckduckgo: { status: 202, body: '<html><body><form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet" method="POST"><div class="anomaly-modal__mask"></div></form></body></html>' },
  duckduckgo_lite: { status: 202, body: '<html><body><form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=lite&amp;cc=botnet" method="POST"></form></body></html>' },
  startpage: { status: 302, headers: { Location: 'https://www.startpage.com/sp/captcha?p=1' }, body: '' },
  google: { status: 302, headers: { Location: 'https://www.google.com/sorry/index?continue=x' }, body: '' },
  yandex: { status: 200, headers: { 'x-yandex-captcha': 'captcha' }, body: '<html><body><form action="/checkcaptcha"></form></body></html>' },
  baidu: { status: 302, headers: { Location: 'https://wappass.baidu.com/static/captcha/tuxing.html?ak=x' }, body: '' },
  qwant: { status: 403, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ status: 'error', url: 'https://geo.captcha-delivery.com/captcha/?initialCid=x' }) },
  // Reproduces the elements of a real Mojeek challenge page (ALTCHA widget in div.captcha-wrap, 2026) that
  // only a repository without a licence file we could find, and not fetchable here, keeps (see test/fixtures/web/README.md).
  mojeek: { status: 200, body: '<html><head><title>Captcha</title></head><body class="home"><div class="captcha-wrap"><p>JavaScript is required to complete this challenge.</p></div><script type="module" src="/js/page_specific/altcha.js"></script></body></html>' },
  default: { status: 503, body: '<html><body><form method="post"><script src="https://www.google.com/recaptcha/api.js" async defer></script><div class="g-recaptcha"></div></form></body></html>' },
};

export type Behaviour = 'ok' | 'slow' | 'captcha' | 'garbage' | 'rate-limited' | 'server-error';

export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Real DuckDuckGo result page, with its query echo set to the query asked (the page echoes it in its title and two inputs). */
function realDuckDuckGo(q: string): string | undefined {
  if (!hasCorpus(SOURCES.einoExt)) return undefined;
  const page = duckDuckGoPages().results;
  return page.replace(/<title>eino at DuckDuckGo<\/title>/, `<title>${esc(q)} at DuckDuckGo</title>`).replace(/value="eino"/g, `value="${esc(q)}"`);
}

/** The first real answer of this kind for the engine whose corpus is here. */
export function realSource(engine: string, kind: SerpPageSource['kind']): SerpPageSource | undefined {
  return SERP_PAGES.find((p) => p.engine === engine && p.kind === kind && hasCorpus(p.repo));
}

/** A real result page of the engine, echoing the query asked. */
function realResults(engine: string, q: string): { type: string; body: string } | undefined {
  const src = realSource(engine, 'results');
  if (!src) return undefined;
  const body = serpPage(src);
  return src.file.endsWith('.json') ? { type: 'application/json', body } : { type: 'text/html', body: withQueryEcho(body, src.query!, q) };
}

/**
 * One server, one path prefix per engine: /bing/search?q=… Startpage hands
 * out an `sc` token on its home page and wants it (and its preferences
 * cookie) back; Qwant sets a `datadome` cookie and challenges a request
 * that comes back without it.
 */
export async function startFakeEngines(
  hitsFor: (engine: string, query: string) => FakeHit[],
  behaviour: Record<string, Behaviour>,
  /** realDuckDuckGo: the real DuckDuckGo page of cloudwego/eino-ext; real: every engine's real result page (ok) and real challenge (captcha) where one is here. */
  opts: { realDuckDuckGo?: boolean; real?: boolean } = {},
): Promise<{ base: string; requests: Map<string, FakeRequest[]>; count(engine: string): number; setBehaviour(engine: string, b: Behaviour): void; close(): void }> {
  const requests = new Map<string, FakeRequest[]>();
  const SC = 'sc-token-7f3a';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const engine = url.pathname.split('/')[1] ?? '';
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const rest = url.pathname.slice(engine.length + 1);
      requests.set(engine, [...(requests.get(engine) ?? []), { method: req.method ?? 'GET', path: rest + url.search, headers: req.headers, body }]);
      const form = new URLSearchParams(body);
      const q = url.searchParams.get('q') ?? url.searchParams.get('p') ?? url.searchParams.get('text') ?? url.searchParams.get('wd') ?? url.searchParams.get('srsearch') ?? url.searchParams.get('query') ?? form.get('q') ?? form.get('query') ?? '';
      const b = behaviour[engine] ?? 'ok';
      if (b === 'slow') {
        const t = setTimeout(() => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>too late</html>'), 20_000);
        res.on('close', () => clearTimeout(t));
        return;
      }
      const realChallenge = opts.real && b === 'captcha' ? (realSource(engine, 'challenge') ?? realSource(engine, 'refusal')) : undefined;
      if (realChallenge) return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(serpPage(realChallenge));
      if (b === 'captcha') {
        const c = CHALLENGES[engine] ?? CHALLENGES.default!;
        return void res.writeHead(c.status, { 'Content-Type': 'text/html', ...c.headers }).end(c.body);
      }
      if (b === 'rate-limited') return void res.writeHead(429, { 'Content-Type': 'text/html', 'Retry-After': '60' }).end('<html><body><h1>Too Many Requests</h1></body></html>');
      if (b === 'server-error') return void res.writeHead(502, { 'Content-Type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      if (b === 'garbage') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('\u0000\u0001 ¯\\_(ツ)_/¯ <<<>>> {{{ not a results page');
      if (engine === 'startpage' && rest === '/') {
        return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<html><body><form id="search" action="/sp/search" method="post"><input type="hidden" name="sc" value="${SC}"><input name="query"></form></body></html>`);
      }
      if (engine === 'startpage' && (form.get('sc') !== SC || !/preferences=[^;]*enable_post_methodEEE1/.test(req.headers.cookie ?? ''))) {
        return void res.writeHead(302, { Location: '/sp/captcha?reason=token' }).end();
      }
      if (engine === 'qwant' && (requests.get('qwant')?.length ?? 0) > 1 && !/datadome=dd-cookie-1/.test(req.headers.cookie ?? '')) {
        const c = CHALLENGES.qwant!;
        return void res.writeHead(c.status, c.headers).end(c.body);
      }
      const realDdg = engine === 'duckduckgo' && opts.realDuckDuckGo ? realDuckDuckGo(q) : undefined;
      const real = realDdg ? { type: 'text/html', body: realDdg } : opts.real ? realResults(engine, q) : undefined;
      const page = real ?? PAGES[engine]?.(hitsFor(engine, q), q);
      if (!page) return void res.writeHead(404).end();
      const headers: Record<string, string | string[]> = { 'Content-Type': `${page.type}; charset=utf-8` };
      if (engine === 'qwant') headers['Set-Cookie'] = ['datadome=dd-cookie-1; Path=/; Secure; SameSite=Lax'];
      res.writeHead(200, headers).end(page.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    base,
    requests,
    count: (engine) => requests.get(engine)?.length ?? 0,
    setBehaviour: (engine, b) => void (behaviour[engine] = b),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
