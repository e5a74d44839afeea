import http from 'node:http';

export interface FakeHit {
  title: string;
  url: string;
  snippet: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** Markup in each engine's own shape (as its real pages have it), built from a list of hits. */
export const FIXTURES: Record<string, (hits: FakeHit[]) => { type: string; body: string }> = {
  wikipedia: (hits) => ({ type: 'application/json', body: JSON.stringify({ batchcomplete: '', query: { searchinfo: { totalhits: hits.length }, search: hits.map((h, i) => ({ ns: 0, title: h.title, pageid: i + 1, snippet: `<span class="searchmatch">${esc(h.snippet)}</span>` })) } }) }),
  duckduckgo: (hits) => ({
    type: 'text/html',
    body: `<html><body><div class="results">
      <div class="result result--ad"><a class="result__a" href="https://ads.example/buy">Ad</a></div>
      ${hits.map((h) => `<div class="result results_links web-result"><div class="links_main"><h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(h.url)}&amp;rut=abc">${esc(h.title)}</a></h2><a class="result__snippet" href="#">${esc(h.snippet)}</a></div></div>`).join('\n')}
    </div></body></html>`,
  }),
  duckduckgo_lite: (hits) => ({
    type: 'text/html',
    body: `<html><body><table>${hits.map((h, i) => `<tr><td>${i + 1}.&nbsp;</td><td><a rel="nofollow" href="${esc(h.url)}" class="result-link">${esc(h.title)}</a></td></tr><tr><td>&nbsp;</td><td class="result-snippet">${esc(h.snippet)}</td></tr><tr><td>&nbsp;</td><td><span class="link-text">${esc(h.url)}</span></td></tr>`).join('\n')}</table></body></html>`,
  }),
  startpage: (hits) => ({ type: 'text/html', body: `<html><body><div class="w-gl">${hits.map((h) => `<div class="result"><a class="result-title result-link" href="${esc(h.url)}"><h2 class="wgl-title">${esc(h.title)}</h2></a><p class="description">${esc(h.snippet)}</p></div>`).join('')}</div></body></html>` }),
  brave: (hits) => ({ type: 'text/html', body: `<html><body><div id="results">${hits.map((h) => `<div class="snippet" data-type="web"><a href="${esc(h.url)}" class="h"><div class="title">${esc(h.title)}</div></a><div class="snippet-description">${esc(h.snippet)}</div></div>`).join('')}</div></body></html>` }),
  mojeek: (hits) => ({ type: 'text/html', body: `<html><body><ul class="results-standard">${hits.map((h) => `<li><a class="ob" href="${esc(h.url)}">${esc(h.url)}</a><h2><a class="title" href="${esc(h.url)}">${esc(h.title)}</a></h2><p class="s">${esc(h.snippet)}</p></li>`).join('')}</ul></body></html>` }),
  yahoo: (hits) => ({
    type: 'text/html',
    body: `<html><body><ol>${hits.map((h) => `<li><div class="dd algo algo-sr"><div class="compTitle"><h3 class="title"><a class="d-ib" href="https://r.search.yahoo.com/_ylt=A0/RV=2/RE=1/RO=10/RU=${encodeURIComponent(h.url)}/RK=2/RS=x-">${esc(h.title)}</a></h3></div><div class="compText"><p>${esc(h.snippet)}</p></div></div></li>`).join('')}</ol></body></html>`,
  }),
  qwant: (hits) => ({ type: 'application/json', body: JSON.stringify({ status: 'success', data: { result: { items: { mainline: [{ type: 'ads', items: [] }, { type: 'web', items: hits.map((h) => ({ title: h.title, url: h.url, desc: h.snippet })) }] } } } }) }),
  bing: (hits) => ({
    type: 'text/html',
    body: `<html><body><ol id="b_results">${hits.map((h) => `<li class="b_algo"><h2><a href="https://www.bing.com/ck/a?!&amp;&amp;p=abc&amp;u=a1${Buffer.from(h.url).toString('base64url')}&amp;ntb=1">${esc(h.title)}</a></h2><div class="b_caption"><p>${esc(h.snippet)}</p></div></li>`).join('')}</ol></body></html>`,
  }),
  yandex: (hits) => ({ type: 'text/html', body: `<html><body><ul>${hits.map((h) => `<li class="serp-item"><h3><a class="b-serp-item__title-link" href="${esc(h.url)}">${esc(h.title)}</a></h3><div class="b-serp-item__text">${esc(h.snippet)}</div></li>`).join('')}</ul></body></html>` }),
  baidu: (hits) => ({ type: 'application/json', body: JSON.stringify({ feed: { entry: [...hits.map((h) => ({ title: h.title, url: h.url, abs: h.snippet })), {}] } }) }),
  google: (hits) => ({ type: 'text/html', body: `<html><body><div id="search">${hits.map((h) => `<div class="g"><div><a href="/url?q=${encodeURIComponent(h.url)}&amp;sa=U"><h3>${esc(h.title)}</h3></a></div><div class="VwiC3b">${esc(h.snippet)}</div></div>`).join('')}</div></body></html>` }),
};

export type Behaviour = 'ok' | 'slow' | 'captcha' | 'garbage';

export const CAPTCHA_PAGE = '<html><body><form id="challenge-form"><div class="g-recaptcha"></div>Please confirm you are not a robot: solve the CAPTCHA</form></body></html>';

/** One server, one path prefix per engine: /bing/search?q=… */
export async function startFakeEngines(hitsFor: (engine: string, query: string) => FakeHit[], behaviour: Record<string, Behaviour>): Promise<{ base: string; requests: Map<string, number>; close(): void }> {
  const requests = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const engine = url.pathname.split('/')[1] ?? '';
    requests.set(engine, (requests.get(engine) ?? 0) + 1);
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const q = url.searchParams.get('q') ?? url.searchParams.get('p') ?? url.searchParams.get('query') ?? url.searchParams.get('text') ?? url.searchParams.get('wd') ?? url.searchParams.get('srsearch') ?? new URLSearchParams(body).get('q') ?? '';
      const b = behaviour[engine] ?? 'ok';
      if (b === 'slow') {
        const t = setTimeout(() => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>too late</html>'), 20_000);
        res.on('close', () => clearTimeout(t));
        return;
      }
      if (b === 'captcha') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(CAPTCHA_PAGE);
      if (b === 'garbage') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('\u0000\u0001 ¯\\_(ツ)_/¯ <<<>>> {{{ not a results page');
      const fx = FIXTURES[engine];
      if (!fx) return void res.writeHead(404).end();
      const { type, body: out } = fx(hitsFor(engine, q));
      res.writeHead(200, { 'Content-Type': `${type}; charset=utf-8` }).end(out);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { base, requests, close: () => server.closeAllConnections() ?? server.close() };
}
