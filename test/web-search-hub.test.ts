import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeEngines, type FakeHit } from './helpers/fake-engines.js';
import { startHubProcess } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';
import { textOf } from './helpers/clients.js';
import { hasCorpus, SOURCES } from './helpers/web-corpora.js';

const QUERY = 'recaptcha v3 react';

const hits = (engine: string, query: string): FakeHit[] => [
  { title: `Shared answer about ${query}`, url: ['https://www.example.org/shared-page/', 'http://example.org/shared-page?utm_source=x', 'https://EXAMPLE.org/shared-page#top'][engine.length % 3]!, snippet: `Everyone agrees on ${query}: reCAPTCHA scores unusual traffic.` },
  { title: `${engine} only`, url: `https://${engine.replace('_', '-')}.example/result`, snippet: `Found by ${engine}` },
];

interface Health {
  name: string;
  state: string;
  lastErrorKind?: string;
  lastError?: string;
  lastErrorAt?: number;
  restUntil?: number;
  enabled: boolean;
}

test('WebSearch in the real hub: a "captcha" query gets results; each failure rests as long as its kind says; tokens and cookies carried', async () => {
  const names = ['wikipedia', 'duckduckgo', 'duckduckgo_lite', 'startpage', 'brave', 'mojeek', 'yahoo', 'qwant', 'bing', 'yandex', 'baidu', 'google'];
  const fake = await startFakeEngines(hits, { google: 'slow', yandex: 'captcha', baidu: 'garbage', mojeek: 'rate-limited', bing: 'server-error' }, { realDuckDuckGo: hasCorpus(SOURCES.einoExt) });
  const h = tempHome();
  // Google never answers in time: the search answers at its deadline without it. The deadline is generous, so that
  // on a loaded machine every other (local, fake) engine has answered by then; a 5xx rests well past that search,
  // so that bing is still resting when its rest is read.
  const env: Record<string, string> = { SEARCH_ENGINES: names.join(','), SEARCH_ENGINE_TIMEOUT_MS: '60000', SEARCH_DEADLINE_MS: '8000', SEARCH_REST_ERROR_S: '20' };
  for (const n of names) env[`SEARCH_URL_${n.toUpperCase()}`] = `${fake.base}/${n}`;
  const hub = await startHubProcess(h.home, env);
  const search = async (query: string) => {
    const r = await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'WebSearch', arguments: { query } } }) });
    const result = ((await r.json()) as { result: { structuredContent: { results: { url: string; engines: string[] }[]; engines: { engine: string; status: string; kind?: string; error?: string }[]; took_ms: number } } }).result;
    return { text: textOf(result), sc: result.structuredContent, by: (name: string) => result.structuredContent.engines.find((e) => e.engine === name)! };
  };
  const health = async () => {
    const r = await fetch(`${hub.url}/api/search/engines`, { headers: hub.headers() });
    const body = (await r.json()) as { engines: Health[] };
    return (name: string) => body.engines.find((e) => e.name === name)!;
  };
  try {
    const first = await search(QUERY);
    const ok = first.sc.engines.filter((e) => e.status === 'ok').map((e) => e.engine);
    assert.deepEqual(ok.sort(), ['brave', 'duckduckgo', 'duckduckgo_lite', 'qwant', 'startpage', 'wikipedia', 'yahoo'], first.text);
    assert.deepEqual(
      Object.fromEntries(['google', 'yandex', 'baidu', 'mojeek', 'bing'].map((n) => [n, `${first.by(n).status}/${first.by(n).kind}`])),
      { google: 'timeout/timeout', yandex: 'blocked/captcha', baidu: 'failed/unreadable', mojeek: 'blocked/rate-limited', bing: 'failed/server-error' },
    );
    // The page every engine found, under three spellings of its URL, is one result, first.
    assert.equal(first.sc.results[0]!.url.replace(/^https?:\/\/(www\.)?/i, '').toLowerCase().replace(/[/#?].*$/, ''), 'example.org');
    // Wikipedia links to its own articles, and the real DuckDuckGo page has its own results.
    const agreeing = ok.filter((n) => n !== 'wikipedia' && !(n === 'duckduckgo' && hasCorpus(SOURCES.einoExt)));
    assert.deepEqual([...first.sc.results[0]!.engines].sort(), agreeing.sort());
    if (hasCorpus(SOURCES.einoExt)) assert.ok(first.sc.results.some((r) => r.url === 'https://github.com/cloudwego/eino'), 'results of the real DuckDuckGo page');
    assert.match(first.text, /Not used: .*yandex \(captcha: answered with its CAPTCHA/);

    // Rest periods by kind: CAPTCHA an hour, 429 and unreadable 180 s, timeout and 5xx SEARCH_REST_ERROR_S (20 s),
    // each counted from its failure (however long the machine took since).
    const hh = await health();
    const restFor = (n: string) => Math.round((hh(n).restUntil! - hh(n).lastErrorAt!) / 1000);
    assert.equal(hh('yandex').state, 'resting');
    assert.equal(hh('yandex').lastErrorKind, 'captcha');
    assert.equal(restFor('yandex'), 3600, 'yandex rests an hour');
    assert.equal(restFor('mojeek'), 180, 'mojeek rests 180 s');
    assert.equal(restFor('baidu'), 180, 'baidu rests 180 s');
    assert.equal(hh('bing').state, 'resting');
    assert.equal(restFor('bing'), 20, 'bing rests SEARCH_REST_ERROR_S');
    assert.equal(hh('wikipedia').state, 'ok');
    assert.equal(hh('brave_api').enabled, false);

    // Startpage's token was fetched once and sent back with its preferences cookie; Qwant's cookie came back.
    const second = await search('tokio runtime');
    assert.equal(second.by('startpage').status, 'ok', second.by('startpage').error);
    assert.equal(second.by('qwant').status, 'ok', second.by('qwant').error);
    assert.equal(fake.requests.get('startpage')!.filter((r) => r.path === '/').length, 1);
    assert.match(fake.requests.get('qwant')![1]!.headers.cookie ?? '', /datadome=dd-cookie-1/);
    assert.equal(fake.requests.get('duckduckgo')![0]!.headers['sec-fetch-mode'], 'navigate');
    for (const n of ['yandex', 'mojeek', 'baidu']) assert.equal(second.by(n).status, 'resting', n);
    assert.match(second.by('yandex').error ?? '', /resting until \d{4}-\d\d-\d\dT.* after: answered with its CAPTCHA/);

    // A 5xx rests seconds: once bing's rest is over it is asked again; yandex is not.
    const yandexAsked = fake.count('yandex');
    fake.setBehaviour('bing', 'ok');
    // Google has shown its timeout; past its rest it would hold the next search until the deadline.
    fake.setBehaviour('google', 'ok');
    await waitFor(async () => (await health())('bing').state !== 'resting', "bing's short rest to end");
    const third = await search('tokio runtime');
    assert.equal(third.by('bing').status, 'ok', third.by('bing').error);
    assert.equal(third.by('yandex').status, 'resting');
    assert.equal(fake.count('yandex'), yandexAsked);
  } finally {
    await hub.stop();
    fake.close();
    h.cleanup();
  }
});
