import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import JSON5 from 'json5';
import { ENGINES } from '../main/tools/search/engines/index.js';
import { EngineFailure, type EngineContext, type EngineResponse, type FailureKind, type SearchResult } from '../main/tools/search/engine-types.js';
import { dom } from '../main/tools/search/blocking.js';
import { hasCorpus, needsCorpora, SERP_PAGES, serpPage, withQueryEcho, type SerpPageSource } from './helpers/web-corpora.js';

/*
 * Engines' real answers, as other projects saved them in 2026 (see
 * test/fixtures/web/README.md): result pages, challenges and refusals.
 * The assertions are about structure — which links are results, that
 * text comes decoded, that ads and the engine's own links are left out,
 * that a query echo is not a block and a challenge is one.
 */

const TRAP_QUERY = 'recaptcha v3 react captcha unusual traffic are you a robot';

/** The engine's own hosts: a result pointing there is navigation, an ad or a redirect that was not unwrapped. */
const OWN_HOSTS: Record<string, RegExp> = {
  bing: /(^|\.)bing\.com$/,
  brave: /(^|\.)brave\.com$/,
  mojeek: /(^|\.)mojeek\.com$/,
  yahoo: /(^|\.)yahoo\.com$/,
  startpage: /(^|\.)startpage\.com$/,
  duckduckgo: /(^|\.)duckduckgo\.com$/,
  wikipedia: /^$/,
  searxng: /^$/,
};

function engine(name: string) {
  const e = ENGINES.find((x) => x.name === name);
  assert.ok(e, `no engine ${name}`);
  return e;
}

function ctx(query: string): EngineContext {
  return { query, base: 'https://engine.example', settings: { get: () => '' } as never, state: { cookies: new Map(), tokens: new Map() }, fetch: () => Promise.reject(new Error('no network in this test')) };
}

function answer(body: string, status = 200, contentType = 'text/html; charset=utf-8'): EngineResponse {
  return { status, url: 'https://engine.example/search', headers: { 'content-type': contentType }, cookies: {}, body };
}

function failureOf(fn: () => unknown): EngineFailure | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof EngineFailure) return err;
    throw err;
  }
}

function parse(src: SerpPageSource, body: string, query: string): SearchResult[] {
  const json = src.file.endsWith('.json');
  return engine(src.engine).parse(answer(body, 200, json ? 'application/json' : 'text/html; charset=utf-8'), ctx(query)) as SearchResult[];
}

const pages = (kind: SerpPageSource['kind']) => SERP_PAGES.filter((p) => p.kind === kind);

describe('real result pages: every organic result, decoded, nothing of the engine itself', () => {
  for (const src of pages('results')) {
    test(`${src.engine}: ${src.what} (${src.repo})`, { skip: needsCorpora(src.repo) }, () => {
      const page = serpPage(src);
      const out = parse(src, page, src.query!);
      assert.ok(out.length >= 1, 'no results');
      for (const r of out) {
        const u = new URL(r.url);
        assert.match(u.protocol, /^https?:$/, r.url);
        assert.doesNotMatch(u.hostname, OWN_HOSTS[src.engine]!, `${r.url} is the engine's own link`);
        assert.ok(r.title.length > 0, `empty title for ${r.url}`);
        // Markup and entities are decoded; whitespace from the page's layout is collapsed.
        for (const text of [r.title, r.snippet]) assert.doesNotMatch(text, /<\/?[a-z]+[\s>]|&(amp|quot|lt|gt|nbsp|#\d+|#x[0-9a-f]+);|\s{2}/i, `undecoded text: ${text}`);
      }
      assert.ok(out.some((r) => r.snippet.length > 20), 'no snippets read');
    });

    test(`${src.engine}: the same page echoing a query full of "captcha" words is read the same (${src.repo})`, { skip: needsCorpora(src.repo) }, () => {
      const page = serpPage(src);
      if (src.engine === 'searxng') {
        // SearXNG echoes the query in the answer's "query" field.
        const data = JSON.parse(page) as { query: string };
        assert.equal(data.query, src.query);
        data.query = TRAP_QUERY;
        assert.deepEqual(parse(src, JSON.stringify(data), TRAP_QUERY), parse(src, page, src.query!));
        return;
      }
      if (src.file.endsWith('.json')) {
        // Wikipedia's API answer has no echo; the query words can be in titles and snippets.
        const data = JSON.parse(page) as { query: { search: { snippet: string }[] } };
        for (const s of data.query.search) s.snippet = `${s.snippet} ${TRAP_QUERY}`;
        const out = parse(src, JSON.stringify(data), TRAP_QUERY);
        assert.equal(out.length, data.query.search.length);
        assert.ok(out.every((r) => r.snippet.endsWith(TRAP_QUERY)));
        return;
      }
      const echoed = withQueryEcho(page, src.query!, TRAP_QUERY);
      assert.notEqual(echoed, page, 'the page does not echo its query');
      assert.deepEqual(parse(src, echoed, TRAP_QUERY), parse(src, page, src.query!));
    });
  }
});

describe('real result pages, engine by engine', () => {
  const find = (engineName: string, file: string) => SERP_PAGES.find((p) => p.engine === engineName && p.file === file)!;

  test('Bing: click-tracking links (ck/a?…u=a1<base64>) come back as the sites they lead to; one result per li.b_algo', { skip: needsCorpora(find('bing', 'tests/fixtures/http-bing.html').repo) }, () => {
    for (const src of SERP_PAGES.filter((p) => p.engine === 'bing' && p.kind === 'results')) {
      const page = serpPage(src);
      const d = dom(page);
      const items = d.querySelectorAll('ol#b_results > li.b_algo');
      const wrapped = [...d.querySelectorAll('ol#b_results > li.b_algo h2 a')].filter((a) => (a.getAttribute('href') ?? '').startsWith('https://www.bing.com/ck/a?'));
      const out = parse(src, page, src.query!);
      assert.equal(out.length, items.length, src.file);
      assert.ok(wrapped.length > 0, `${src.file}: no wrapped links to unwrap`);
      assert.ok(out.every((r) => !r.url.includes('bing.com/ck/')));
    }
    const out = parse(find('bing', 'tests/fixtures/http-bing.html'), serpPage(find('bing', 'tests/fixtures/http-bing.html')), 'javascript tutorial');
    assert.equal(out[0]!.url, 'https://www.w3schools.com/Js/');
  });

  test('Brave: every web result of the page, by its link', { skip: needsCorpora(find('brave', 'tests/fixtures/brave.html').repo) }, () => {
    const src = find('brave', 'tests/fixtures/brave.html');
    const page = serpPage(src);
    const web = [...dom(page).querySelectorAll('div.snippet[data-type="web"]')].map((s) => s.querySelector('a')!.getAttribute('href')!);
    assert.ok(web.length >= 10);
    const out = parse(src, page, src.query!);
    const urls = new Set(out.map((r) => r.url));
    for (const u of web) assert.ok(urls.has(new URL(u).href), `missing ${u}`);
    // A result's deep links (div.result-cluster) come with their own description.
    const deep = [...dom(page).querySelectorAll('div.result-cluster div.snippet > a')].map((a) => new URL(a.getAttribute('href')!).href);
    assert.ok(deep.length > 0, 'no deep links on the page');
    for (const u of deep) assert.ok((out.find((r) => r.url === u)?.snippet.length ?? 0) > 20, `no description for deep link ${u}`);
  });

  test('Yahoo: one result per div.algo-sr, with the link of its title', { skip: needsCorpora(find('yahoo', 'tests/fixtures/yahoo.html').repo) }, () => {
    const src = find('yahoo', 'tests/fixtures/yahoo.html');
    const page = serpPage(src);
    const out = parse(src, page, src.query!);
    assert.equal(out.length, dom(page).querySelectorAll('div.algo-sr').length);
    assert.ok(out.some((r) => r.url === 'https://developer.mozilla.org/en-US/docs/Web/JavaScript'));
  });

  test('Mojeek: one result per ul.results-standard item', { skip: needsCorpora(find('mojeek', 'tests/fixtures/mojeek.html').repo) }, () => {
    const src = find('mojeek', 'tests/fixtures/mojeek.html');
    const page = serpPage(src);
    assert.equal(parse(src, page, src.query!).length, dom(page).querySelectorAll('ul.results-standard > li').length);
  });

  test('Startpage: the results data of the page (UIStartpage.AppSerpWeb) and its rendered list agree, ads left out', { skip: needsCorpora(find('startpage', 'tests/fixtures/http-startpage.html').repo) }, () => {
    for (const src of SERP_PAGES.filter((p) => p.engine === 'startpage')) {
      const page = serpPage(src);
      // These copies were reformatted by Prettier, which turned the JSON Startpage sends into a JS
      // object literal; written back as JSON, it is what Startpage served.
      const marker = 'React.createElement(UIStartpage.AppSerpWeb, ';
      const at = page.indexOf(marker) + marker.length;
      const end = page.indexOf('\n          })', at) + '\n          }'.length;
      assert.ok(page.indexOf(marker) >= 0 && end > at, `${src.file}: no bootstrap call`);
      const literal = page.slice(at, end);
      const served = page.slice(0, at) + JSON.stringify(JSON5.parse(literal)) + page.slice(end);
      const fromData = parse(src, served, src.query!);
      const fromRendering = parse(src, page, src.query!);
      assert.equal(fromData.length, dom(page).querySelectorAll('div.result a.result-title').length, src.file);
      assert.deepEqual(fromRendering.map((r) => r.url), fromData.map((r) => r.url), src.file);
      assert.deepEqual(fromRendering.map((r) => r.title), fromData.map((r) => r.title), src.file);
      // The page's ad regions (ads-google-top/-bottom) are in the data, and none of it became a result.
      const regions = (JSON5.parse(literal) as { render: { presenter: { regions: { mainline: { display_type: string }[] } } } }).render.presenter.regions.mainline.map((m) => m.display_type);
      assert.ok(regions.includes('ads-google-top') && regions.includes('web-google'), regions.join());
    }
  });

  test('DuckDuckGo (2026-07): every web result, no ads', { skip: needsCorpora(find('duckduckgo', 'tests/fixtures/ddg_html.html').repo) }, () => {
    const src = find('duckduckgo', 'tests/fixtures/ddg_html.html');
    const page = serpPage(src);
    const d = dom(page);
    assert.equal(parse(src, page, src.query!).length, d.querySelectorAll('div#links div.web-result').length - d.querySelectorAll('div#links div.result--ad').length);
  });

  test('SearXNG: every result of the JSON answer, in its order', { skip: needsCorpora(find('searxng', 'tests/fixtures/searxng_search.json').repo) }, () => {
    const src = find('searxng', 'tests/fixtures/searxng_search.json');
    const body = serpPage(src);
    const data = JSON.parse(body) as { results: { url: string }[] };
    assert.deepEqual(parse(src, body, src.query!).map((r) => r.url), data.results.map((r) => r.url));
  });

  test('Wikipedia: each hit links to its article by title, snippet without search-match markup', { skip: needsCorpora(find('wikipedia', 'tests/fixtures/wiki_search.json').repo) }, () => {
    const src = find('wikipedia', 'tests/fixtures/wiki_search.json');
    const body = serpPage(src);
    const data = JSON.parse(body) as { query: { search: { title: string; snippet: string }[] } };
    const out = parse(src, body, src.query!);
    assert.deepEqual(out.map((r) => r.url), data.query.search.map((s) => `https://en.wikipedia.org/wiki/${encodeURIComponent(s.title.replace(/ /g, '_'))}`));
    assert.ok(data.query.search.some((s) => s.snippet.includes('searchmatch')));
  });
});

describe("real challenge and refusal pages are recognised as such, whatever the status they came with", () => {
  for (const src of pages('challenge')) {
    test(`${src.engine}: ${src.what} is a CAPTCHA (${src.repo})`, { skip: needsCorpora(src.repo) }, () => {
      const page = serpPage(src);
      for (const status of [200, 202, 403]) {
        const kind: FailureKind | undefined = failureOf(() => engine(src.engine).parse(answer(page, status), ctx('x')))?.kind;
        assert.equal(kind, 'captcha', `HTTP ${status}`);
      }
    });
  }

  for (const src of pages('javascript-only')) {
    test(`${src.engine}: ${src.what} means "needs a browser" (${src.repo})`, { skip: needsCorpora(src.repo) }, () => {
      const f = failureOf(() => engine(src.engine).parse(answer(serpPage(src)), ctx('x')));
      assert.equal(f?.kind, 'needs-browser');
    });
  }

  test('Qwant: its DataDome "Service unavailable" page in place of the JSON answer is a refusal, not an unreadable answer', { skip: needsCorpora(pages('refusal')[0]!.repo) }, () => {
    const page = serpPage(SERP_PAGES.find((p) => p.engine === 'qwant' && p.kind === 'refusal')!);
    for (const status of [200, 403]) {
      const f = failureOf(() => engine('qwant').parse(answer(page, status), ctx('x')));
      assert.equal(f?.kind, 'denied', `HTTP ${status}`);
      assert.match(f!.message, /DataDome/);
    }
    // An HTML page without DataDome's tag is still just not JSON.
    assert.equal(failureOf(() => engine('qwant').parse(answer('<html><body><h1>Hello</h1></body></html>'), ctx('x')))?.kind, 'unreadable');
  });

  test('SearXNG: a public instance that checks for a browser gets a message saying what to do', { skip: needsCorpora(pages('refusal')[0]!.repo) }, () => {
    const page = serpPage(SERP_PAGES.find((p) => p.engine === 'searxng' && p.kind === 'refusal')!);
    const f = failureOf(() => engine('searxng').parse(answer(page), ctx('x')));
    assert.equal(f?.kind, 'misconfigured');
    assert.match(f!.message, /SEARXNG_URL answered an HTML page \("searx\.be \| Verifying your request"\).*settings\.yml/);
  });

  test('a real result page is never taken for a challenge, even with a CAPTCHA word in every title', { skip: needsCorpora(pages('results')[0]!.repo) }, () => {
    for (const src of pages('results').filter((p) => !p.file.endsWith('.json') && hasCorpus(p.repo))) {
      const page = serpPage(src).replace(/<h2([^>]*)>/g, '<h2$1>reCAPTCHA ');
      assert.equal(failureOf(() => parse(src, page, src.query!)), undefined, src.file);
    }
  });
});
