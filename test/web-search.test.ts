import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES } from '../main/tools/search/engines/index.js';
import { EngineBlocked, EngineUnreadable } from '../main/tools/search/types.js';
import { normalizeUrl, mergeResults } from '../main/tools/search/merge.js';
import { FIXTURES, CAPTCHA_PAGE, startFakeEngines, type FakeHit } from './helpers/fake-engines.js';
import { connectV2, textOf } from './helpers/clients.js';
import { tempHome } from './helpers/env.js';

const hits = (engine: string, query: string): FakeHit[] => [
  { title: `Shared answer about ${query}`, url: ['https://www.example.org/shared-page/', 'http://example.org/shared-page?utm_source=x', 'https://Example.org/shared-page#top'][engine.length % 3]!, snippet: `Everyone agrees on ${query}.` },
  { title: `${engine} only`, url: `https://${engine.replace('_', '-')}.example/result`, snippet: `Found by ${engine}` },
];

describe('engine modules against their fixtures', () => {
  for (const engine of ENGINES.filter((e) => FIXTURES[e.name])) {
    test(`${engine.name}: builds a request and reads its results`, () => {
      const req = engine.request('rust async', 'http://fake', {} as never);
      assert.match(req.url, /^http:\/\/fake\//);
      assert.ok(req.url.includes('rust') || (req.body ?? '').includes('rust'), 'the query is in the request');
      const { body } = FIXTURES[engine.name]!(hits(engine.name, 'rust async'));
      const results = engine.parse(body, 200);
      assert.equal(results.length, 2);
      // Wikipedia links to its own articles, named by title.
      assert.equal(normalizeUrl(results[0]!.url), engine.name === 'wikipedia' ? 'en.wikipedia.org/wiki/Shared_answer_about_rust_async' : 'example.org/shared-page');
      if (engine.name !== 'wikipedia') assert.equal(results[1]!.url, `https://${engine.name.replace('_', '-')}.example/result`);
      assert.ok(results[0]!.title.includes('Shared answer'));
      assert.ok(results[0]!.snippet.includes('Everyone agrees'), `${engine.name} snippet: ${results[0]!.snippet}`);
    });
  }
  test('CAPTCHA pages and rate limits are "blocked"; garbage is "unreadable"', () => {
    for (const engine of ENGINES.filter((e) => FIXTURES[e.name])) {
      assert.throws(() => engine.parse(CAPTCHA_PAGE, 200), EngineBlocked, engine.name);
      assert.throws(() => engine.parse('', 429), EngineBlocked, engine.name);
      assert.throws(() => engine.parse('<html><body>garbage</body></html>', 200), EngineUnreadable, engine.name);
    }
  });
});

test('URL normalisation and weighted rank fusion with an agreement bonus', () => {
  assert.equal(normalizeUrl('https://WWW.Example.org:443/a/b/?utm_source=x&id=3&fbclid=1#frag'), 'example.org/a/b?id=3');
  assert.equal(normalizeUrl('http://example.org/a/b?id=3'), 'example.org/a/b?id=3');
  const merged = mergeResults(
    [
      { engine: 'a', weight: 1, results: [{ title: 'solo', url: 'https://solo.example/', snippet: '' }, { title: 'both', url: 'https://both.example/x', snippet: 'short' }] },
      { engine: 'b', weight: 1, results: [{ title: 'both', url: 'http://www.both.example/x/', snippet: 'a longer snippet wins' }] },
    ],
    10,
  );
  assert.deepEqual(merged.map((m) => m.title), ['both', 'solo']);
  assert.deepEqual(merged[0]!.engines, ['a', 'b']);
  assert.equal(merged[0]!.snippet, 'a longer snippet wins');
  assert.equal(merged[0]!.url, 'https://both.example/x');
});

test('WebSearch against 12 local engines — one slow, one CAPTCHA, one garbage — merges the healthy ones by the deadline and names the failures', async () => {
  const fake = await startFakeEngines(hits, { google: 'slow', yandex: 'captcha', baidu: 'garbage' });
  const h = tempHome();
  const names = ['wikipedia', 'duckduckgo', 'duckduckgo_lite', 'startpage', 'brave', 'mojeek', 'yahoo', 'qwant', 'bing', 'yandex', 'baidu', 'google'];
  const env: Record<string, string> = { SEARCH_ENGINES: names.join(','), SEARCH_ENGINE_TIMEOUT_MS: '1500', SEARCH_DEADLINE_MS: '3000' };
  for (const n of names) env[`SEARCH_URL_${n.toUpperCase()}`] = `${fake.base}/${n}`;
  const { client } = await connectV2({ home: h.home, env });
  try {
    const r = await client.callTool({ name: 'WebSearch', arguments: { query: 'tokio runtime' } });
    const sc = r.structuredContent as { results: { title: string; url: string; engines: string[] }[]; engines: { engine: string; status: string; error?: string }[]; took_ms: number };
    assert.ok(sc.took_ms <= 3000 + 700, `answered after ${sc.took_ms} ms, past the 3000 ms deadline`);
    const ok = sc.engines.filter((e) => e.status === 'ok').map((e) => e.engine);
    assert.deepEqual(ok.sort(), names.filter((n) => !['google', 'yandex', 'baidu'].includes(n)).sort());
    assert.equal(sc.engines.find((e) => e.engine === 'google')!.status, 'timeout');
    assert.equal(sc.engines.find((e) => e.engine === 'yandex')!.status, 'blocked');
    assert.match(sc.engines.find((e) => e.engine === 'yandex')!.error!, /CAPTCHA/);
    assert.equal(sc.engines.find((e) => e.engine === 'baidu')!.status, 'failed');
    // The shared page is one result that every healthy engine found, ranked first.
    assert.equal(normalizeUrl(sc.results[0]!.url), 'example.org/shared-page');
    assert.equal(sc.results[0]!.engines.length, 8, 'every healthy engine but Wikipedia, which links to its own articles');
    assert.equal(sc.results.filter((x) => normalizeUrl(x.url) === 'example.org/shared-page').length, 1);
    assert.equal(sc.results.length, 10, 'max_results defaults to 10');
    const text = textOf(r);
    assert.match(text, /^1\. Shared answer about tokio runtime\n {3}https?:\/\/\S*example\.org\/shared-page/);
    assert.match(text, /from 9 engine\(s\)/);
    assert.match(text, /Not used: .*yandex \(blocked: answered with a CAPTCHA\).*baidu \(failed: .*\).*google \(timeout: /s);

    // Failed engines rest: the next search does not ask them.
    const before = { yandex: fake.requests.get('yandex'), baidu: fake.requests.get('baidu') };
    const again = await client.callTool({ name: 'WebSearch', arguments: { query: 'second', max_results: 3 } });
    const sc2 = again.structuredContent as { results: unknown[]; engines: { engine: string; status: string }[] };
    assert.equal(sc2.results.length, 3);
    assert.equal(sc2.engines.find((e) => e.engine === 'yandex')!.status, 'resting');
    assert.deepEqual({ yandex: fake.requests.get('yandex'), baidu: fake.requests.get('baidu') }, before);

    const empty = await client.callTool({ name: 'WebSearch', arguments: { query: '  ' } });
    assert.match(textOf(empty), /query is empty/);
  } finally {
    await client.close();
    fake.close();
    h.cleanup();
  }
});
