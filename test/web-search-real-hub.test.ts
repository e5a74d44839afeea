import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeEngines, type FakeHit } from './helpers/fake-engines.js';
import { startHubProcess } from './helpers/hub.js';
import { tempHome } from './helpers/env.js';
import { textOf } from './helpers/clients.js';
import { needsCorpora, SOURCES } from './helpers/web-corpora.js';

/*
 * The built pincer hub searching engines that answer with real 2026 pages
 * (test/fixtures/web/README.md): result pages that echo a "captcha" query,
 * DuckDuckGo Lite's real challenge and Qwant's real refusal page.
 */

const QUERY = 'recaptcha v3 react captcha';
const noHits = (): FakeHit[] => [];
const skip = needsCorpora(SOURCES.webSearchMcp, SOURCES.celina);

test('WebSearch over real engine pages: results from each, the real challenge and refusal recognised, agreement on real results ranked first', { skip }, async () => {
  const withResults = ['wikipedia', 'duckduckgo', 'startpage', 'brave', 'mojeek', 'yahoo', 'bing'];
  const names = [...withResults, 'duckduckgo_lite', 'qwant'];
  const fake = await startFakeEngines(noHits, { duckduckgo_lite: 'captcha', qwant: 'captcha' }, { real: true });
  const h = tempHome();
  const env: Record<string, string> = { SEARCH_ENGINES: names.join(','), SEARCH_ENGINE_TIMEOUT_MS: '5000', SEARCH_DEADLINE_MS: '8000' };
  for (const n of names) env[`SEARCH_URL_${n.toUpperCase()}`] = `${fake.base}/${n}`;
  const hub = await startHubProcess(h.home, env);
  try {
    const r = await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'WebSearch', arguments: { query: QUERY, max_results: 30 } } }) });
    const result = ((await r.json()) as { result: { structuredContent: { results: { url: string; engines: string[] }[]; engines: { engine: string; status: string; kind?: string; count?: number; error?: string }[] } } }).result;
    const sc = result.structuredContent;
    const by = (n: string) => sc.engines.find((e) => e.engine === n)!;
    for (const n of withResults) assert.equal(by(n).status, 'ok', `${n}: ${by(n).error ?? ''}\n${textOf(result)}`);
    assert.deepEqual([by('duckduckgo_lite').status, by('duckduckgo_lite').kind], ['blocked', 'captcha']);
    assert.deepEqual([by('qwant').status, by('qwant').kind], ['blocked', 'denied']);
    // Brave, Mojeek, Yahoo and Startpage answered the same real query: the pages they agree on come first.
    assert.ok(sc.results[0]!.engines.length >= 3, JSON.stringify(sc.results.slice(0, 3)));
    const urls = new Set(sc.results.map((x) => x.url));
    for (const u of ['https://javascript.info/', 'https://www.sleepfoundation.org/nutrition/caffeine-and-sleep']) assert.ok(urls.has(u), `missing ${u}`);
  } finally {
    await hub.stop();
    fake.close();
    h.cleanup();
  }
});
