import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES } from '../main/tools/search/engines/index.js';
import { EngineFailure, type Engine, type EngineContext, type EngineResponse, type FailureKind } from '../main/tools/search/engine-types.js';
import { normalizeUrl, mergeResults } from '../main/tools/search/merge.js';
import { PAGES, CHALLENGES, type FakeHit } from './helpers/fake-engines.js';
import { HealthBook, restSeconds } from '../main/tools/search/engine-health.js';
import { SETTINGS } from '../main/core/settings/schema.js';
import { nodeTransport } from '../main/tools/search/transport.js';
import { FetchError } from '../main/tools/web/http-fetch.js';
import http from 'node:http';
import zlib from 'node:zlib';
import { duckDuckGoPages, needsCorpora, SOURCES } from './helpers/web-corpora.js';

/** The words the old scanner took for a block, in the query and in the results. */
const TRAP_QUERY = 'recaptcha v3 react captcha unusual traffic are you a robot';

const hits = (engine: string, query: string): FakeHit[] => [
  { title: `Shared answer about ${query}`, url: ['https://www.example.org/shared-page/', 'http://example.org/shared-page?utm_source=x', 'https://Example.org/shared-page#top'][engine.length % 3]!, snippet: `Everyone agrees on ${query}. Solve the CAPTCHA? Our systems have detected unusual traffic.` },
  { title: `${engine} only: how reCAPTCHA works`, url: `https://${engine.replace('_', '-')}.example/result`, snippet: `Found by ${engine}; /sorry/index and challenge-form are just words here.` },
];

function engine(name: string): Engine {
  return ENGINES.find((e) => e.name === name)!;
}

function ctx(query: string): EngineContext {
  return { query, base: 'http://fake', settings: { get: () => '' } as never, state: { cookies: new Map(), tokens: new Map() }, fetch: () => Promise.reject(new Error('no network in unit tests')) };
}

function response(status: number, body: string, headers: Record<string, string> = {}): EngineResponse {
  return { status, url: 'http://fake/search', headers: { 'content-type': 'text/html', ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) }, cookies: {}, body };
}

function failureKind(fn: () => unknown): FailureKind | 'no failure' {
  try {
    fn();
    return 'no failure';
  } catch (err) {
    if (err instanceof EngineFailure) return err.kind;
    throw err;
  }
}

describe('engine modules read pages in their 2026 shape', () => {
  for (const [name, page] of Object.entries(PAGES)) {
    test(`${name}: a query and results full of "captcha" words are results, not a block`, () => {
      const { body } = page(hits(name, TRAP_QUERY), TRAP_QUERY);
      const results = engine(name).parse(response(200, body), ctx(TRAP_QUERY));
      assert.equal(results.length, 2, `${name}: ${JSON.stringify(results)}`);
      // Wikipedia links to its own articles, named by title.
      assert.equal(normalizeUrl(results[0]!.url), name === 'wikipedia' ? normalizeUrl(`https://en.wikipedia.org/wiki/Shared_answer_about_${TRAP_QUERY.replace(/ /g, '_')}`) : 'example.org/shared-page');
      if (name !== 'wikipedia') assert.equal(results[1]!.url, `https://${name.replace('_', '-')}.example/result`);
      assert.equal(results[0]!.title, `Shared answer about ${TRAP_QUERY}`);
      assert.match(results[0]!.snippet, /Everyone agrees on .*unusual traffic/);
      assert.ok(!results.some((r) => /ads\.example|Ad:/.test(r.url + r.title)), `${name} let an ad through`);
    });
  }

  test('each engine asks what SearXNG asks: endpoints, form fields and headers', async () => {
    const c = ctx('rust async');
    const ddg = await engine('duckduckgo').request(c);
    assert.equal(ddg.method, 'POST');
    assert.equal(ddg.url, 'http://fake/html/');
    assert.equal(new URLSearchParams(ddg.body).get('q'), 'rust async');
    assert.equal(ddg.headers?.['Sec-Fetch-Mode'], 'navigate');
    assert.equal(ddg.headers?.['Sec-Fetch-Site'], 'same-origin');
    const g = await engine('google').request(c);
    assert.match(g.url, /^http:\/\/fake\/wml\/search\?q=rust\+async&/);
    assert.match(g.userAgent ?? '', /^Nokia/);
    assert.equal(c.state.cookies.get('CONSENT'), 'YES+');
    const m = await engine('marginalia').request({ ...c, settings: { get: (k: string) => (k === 'MARGINALIA_API_KEY' ? 'k-123' : '') } as never });
    assert.equal(engine('marginalia').defaultBase, 'https://api2.marginalia-search.com');
    assert.equal(m.headers?.['API-Key'], 'k-123');
    assert.match(m.url, /\/search\?query=rust\+async&count=10/);
    const qw = await engine('qwant').request(c);
    const qp = new URL(qw.url).searchParams;
    assert.deepEqual([qp.get('displayed'), qp.get('llm'), qp.get('device')], ['true', 'true', 'desktop']);
    assert.match(qp.get('tgp') ?? '', /^[123]$/);
    assert.equal(qw.headers?.Origin, 'https://www.qwant.com');
  });
});

describe('real DuckDuckGo pages (cloudwego/eino-ext test fixtures)', () => {
  const skip = needsCorpora(SOURCES.einoExt);
  test('a real result page: every organic result, links and snippets as shown', { skip }, () => {
    const { results } = duckDuckGoPages();
    const out = engine('duckduckgo').parse(response(200, results), ctx('eino'));
    assert.ok(out.length >= 10, `only ${out.length} results`);
    assert.equal(out[0]!.url, 'https://github.com/cloudwego/eino');
    assert.match(out[0]!.title, /cloudwego\/eino/);
    // Snippets come as text: <b> gone, entities decoded.
    assert.ok(out.every((r) => r.snippet.length > 20 && !/<\/?b>|&quot;|&#x27;/.test(r.snippet)), JSON.stringify(out.map((r) => r.snippet)));
    assert.equal(out[1]!.url, 'https://www.cloudwego.io/zh/docs/eino/overview/');
    assert.match(out[1]!.snippet, /"i know"/);
  });

  test('the same page echoing a query full of "captcha" words is read the same', { skip }, () => {
    const { results } = duckDuckGoPages();
    const echoed = results.replace('<title>eino at DuckDuckGo</title>', `<title>${TRAP_QUERY} at DuckDuckGo</title>`).replace(/value="eino"/g, `value="${TRAP_QUERY}"`);
    assert.notEqual(echoed, results);
    assert.deepEqual(engine('duckduckgo').parse(response(200, echoed), ctx(TRAP_QUERY)), engine('duckduckgo').parse(response(200, results), ctx('eino')));
  });

  test('real "no results" pages are an empty answer, not an unreadable one', { skip }, () => {
    const { noResults } = duckDuckGoPages();
    assert.ok(noResults.length >= 1);
    for (const page of noResults) assert.deepEqual(engine('duckduckgo').parse(response(200, page), ctx('zzzz')), []);
  });
});

describe('blocking is recognised by structure: status, redirect, header, challenge element', () => {
  test("each engine's own challenge is a CAPTCHA", () => {
    for (const name of ['duckduckgo', 'duckduckgo_lite', 'startpage', 'google', 'yandex', 'baidu', 'qwant', 'mojeek']) {
      const c = CHALLENGES[name]!;
      assert.equal(failureKind(() => engine(name).parse({ ...response(c.status, c.body, c.headers), url: 'http://fake/x' }, ctx('x'))), 'captcha', name);
    }
    for (const name of ['brave', 'mojeek', 'yahoo', 'bing', 'wikipedia']) {
      const c = CHALLENGES.default!;
      assert.equal(failureKind(() => engine(name).parse(response(c.status, c.body), ctx('x'))), 'captcha', `${name}: reCAPTCHA on a 503`);
    }
    assert.equal(failureKind(() => engine('bing').parse(response(403, '<html></html>', { 'cf-mitigated': 'challenge' }), ctx('x'))), 'captcha');
  });

  test('status codes: 429 rate-limited, 403 denied, 5xx server error; Qwant and Baidu say it in JSON', () => {
    for (const e of ENGINES.filter((x) => x.name !== 'searxng')) {
      assert.equal(failureKind(() => e.parse(response(429, 'Too Many Requests'), ctx('x'))), 'rate-limited', e.name);
      assert.equal(failureKind(() => e.parse(response(502, '<h1>Bad Gateway</h1>'), ctx('x'))), 'server-error', e.name);
    }
    assert.equal(failureKind(() => engine('mojeek').parse(response(403, '<h1>Forbidden</h1>'), ctx('x'))), 'denied');
    assert.equal(failureKind(() => engine('qwant').parse(response(200, JSON.stringify({ status: 'error', data: { error_code: 24 } })), ctx('x'))), 'rate-limited');
    assert.equal(failureKind(() => engine('baidu').parse(response(200, JSON.stringify({ antiFlag: 1, message: 'Forbid spider access' })), ctx('x'))), 'denied');
  });

  test('Google: its JavaScript-only page means "needs a browser"; a default SearXNG explains its 403', () => {
    const js = '<html><head><noscript><meta content="0;url=/httpservice/retry/enablejs?sei=x" http-equiv="refresh"></noscript></head><body></body></html>';
    assert.equal(failureKind(() => engine('google').parse(response(200, js), ctx('x'))), 'needs-browser');
    try {
      engine('searxng').parse(response(403, '<h1>403 Forbidden</h1>'), ctx('x'));
      assert.fail('no failure');
    } catch (err) {
      assert.ok(err instanceof EngineFailure);
      assert.equal(err.kind, 'misconfigured');
      assert.match(err.message, /search\.formats in its settings\.yml/);
    }
  });

  test('garbage is unreadable for every engine', () => {
    for (const e of ENGINES.filter((x) => x.name !== 'searxng')) {
      assert.equal(failureKind(() => e.parse(response(200, '\u0000\u0001 ¯\\_(ツ)_/¯ <<<>>> {{{ not a results page'), ctx('x'))), 'unreadable', e.name);
    }
  });
});

describe('merging', () => {
  test('URL normalisation: scheme, www., host case, port, trailing slash, tracking, parameter order, escapes', () => {
    assert.equal(normalizeUrl('https://WWW.Example.org:443/a/b/?utm_source=x&id=3&fbclid=1#frag'), 'example.org/a/b?id=3');
    assert.equal(normalizeUrl('http://example.org/a/b?id=3'), 'example.org/a/b?id=3');
    assert.equal(normalizeUrl('https://example.org/x?b=2&a=1'), normalizeUrl('https://example.org/x?a=1&b=2'));
    assert.equal(normalizeUrl('https://en.wikipedia.org/wiki/Rust_%28programming_language%29'), normalizeUrl('https://en.wikipedia.org/wiki/Rust_(programming_language)'));
    assert.equal(normalizeUrl('https://example.org/caf%c3%a9'), normalizeUrl('https://example.org/caf%C3%A9'));
    // The path's case is the page's identity on most servers.
    assert.notEqual(normalizeUrl('https://example.org/Page'), normalizeUrl('https://example.org/page'));
  });

  test('agreement wins: a #1 on two engines is first, where k=60 fusion put it fifth', () => {
    const r = (u: string) => ({ title: u, url: `https://${u}.example/`, snippet: '' });
    const lists = [
      { engine: 'a', weight: 1, results: [r('agreed'), r('a2'), r('triple1'), r('triple2'), r('triple3')] },
      { engine: 'b', weight: 1, results: [r('agreed'), r('b2'), r('triple1'), r('triple2'), r('triple3')] },
      { engine: 'c', weight: 1, results: [r('c1'), r('c2'), r('triple1'), r('triple2'), r('triple3')] },
    ];
    const merged = mergeResults(lists, 10);
    assert.equal(merged[0]!.title, 'agreed');
    assert.deepEqual(merged[0]!.engines, ['a', 'b']);
  });

  test('agreement counts at least as much as in SearXNG: every pair SearXNG orders by agreement, Pincer orders the same way', () => {
    // SearXNG (searx/results.py): weight = product of engine weights × number of engines; score = Σ weight / position.
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 200; round++) {
      const engines = Array.from({ length: 2 + Math.floor(rand() * 4) }, (_, i) => ({ engine: `e${i}`, weight: 0.7 + rand() * 0.6, results: [] as { title: string; url: string; snippet: string }[] }));
      for (const e of engines) {
        const pool = Array.from({ length: 15 }, (_, i) => i).sort(() => rand() - 0.5).slice(0, 8);
        e.results = pool.map((i) => ({ title: `p${i}`, url: `https://p${i}.example/`, snippet: '' }));
      }
      const pincer = mergeResults(engines, 100);
      const searx = new Map<string, number>();
      for (const m of pincer) {
        const holders = engines.filter((e) => e.results.some((x) => x.title === m.title));
        const weight = holders.reduce((w, e) => w * e.weight, 1) * holders.length;
        searx.set(m.title, holders.reduce((s, e) => s + weight / (e.results.findIndex((x) => x.title === m.title) + 1), 0));
      }
      const rank = new Map(pincer.map((m, i) => [m.title, i]));
      for (const a of pincer) {
        for (const b of pincer) {
          if (a.engines.length > b.engines.length && searx.get(a.title)! > searx.get(b.title)!) assert.ok(rank.get(a.title)! < rank.get(b.title)!, `round ${round}: ${a.title} (${a.engines.length} engines) below ${b.title} (${b.engines.length})`);
        }
      }
    }
  });
});

test('rest periods by kind, with the defaults the settings declare; transient failures grow while they repeat', () => {
  const defaults = { get: (k: keyof typeof SETTINGS) => Number(SETTINGS[k].default) } as never;
  const table = Object.fromEntries((['timeout', 'server-error', 'network', 'rate-limited', 'denied', 'unreadable', 'misconfigured', 'captcha', 'needs-browser'] as FailureKind[]).map((k) => [k, restSeconds(k, 1, defaults)]));
  assert.deepEqual(table, { timeout: 10, 'server-error': 10, network: 10, 'rate-limited': 180, denied: 180, unreadable: 180, misconfigured: 180, captcha: 3600, 'needs-browser': 3600 });
  assert.equal(restSeconds('timeout', 3, defaults), 30);
  assert.equal(restSeconds('timeout', 50, defaults), 120);
  const book = new HealthBook(defaults);
  // The rest is counted from the failure: from a time taken before it, however long the machine took since.
  const before = Date.now();
  book.failure('google', 'needs-browser', 'served its JavaScript-only page');
  const [g] = book.report(['google']);
  assert.equal(g!.state, 'resting');
  assert.ok(g!.restUntil! >= before + 3600_000, `rests until ${g!.restUntil}, an hour from ${before}`);
  book.success('google', 12);
  assert.deepEqual([book.report(['google'])[0]!.state, book.report(['google'])[0]!.consecutiveFailures], ['ok', 0]);
});

test('the engine transport: redirects come back as they are, compressed answers are inflated, a compression bomb is refused', async () => {
  const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024));
  const server = http.createServer((req, res) => {
    if (req.url === '/moved') return void res.writeHead(302, { Location: '/sp/captcha', 'Set-Cookie': ['a=1; Path=/', 'b=2'] }).end();
    if (req.url === '/gzip') return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Encoding': 'gzip' }).end(zlib.gzipSync('<p>déjà</p>'));
    res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' }).end(bomb);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const ask = (path: string) => nodeTransport({ url: `${base}${path}`, timeoutMs: 5000, userAgent: 'test', signal: new AbortController().signal });
  try {
    const moved = await ask('/moved');
    assert.deepEqual([moved.status, moved.headers.location, moved.setCookies], [302, '/sp/captcha', ['a=1; Path=/', 'b=2']]);
    assert.equal((await ask('/gzip')).body, '<p>déjà</p>');
    await assert.rejects(ask('/bomb'), (err) => err instanceof FetchError && err.failure === 'too-large');
  } finally {
    server.close();
  }
});
