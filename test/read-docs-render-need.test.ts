import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHtml } from '../main/tools/web/decode.js';
import { extractPage, parsePage } from '../main/tools/web/extract.js';
import { blockText } from '../main/tools/web/block-text.js';
import { askedToRender, renderNeed, shellBeforeExtraction, type RenderNeed } from '../main/tools/web/render-need.js';
import { readHtmlPage } from '../main/tools/web/page-reading.js';
import { PlaywrightRenderer } from '../main/tools/web/browser.js';
import { findChromium } from './helpers/browser.js';
import { articleBenchmarkPages, needsCorpora, readabilityPages, serpPage, SERP_PAGES, SOURCES, type ArticlePage } from './helpers/web-corpora.js';

/*
 * Whether ReadDocs runs the browser, decided from the page as fetched (render-need.ts), on real pages of the corpora:
 * complete articles are answered as fetched, pages whose text scripts build are rendered. The variants are real pages
 * changed the way sites that build their text with scripts ship them.
 */

const needs = needsCorpora(SOURCES.readability, SOURCES.articleBenchmark, SOURCES.webSearchMcp, SOURCES.celina, SOURCES.unlimProxy);

function need(html: string, url = 'https://example.com/article.html'): RenderNeed {
  const { extracted, page } = extractPage(html, url);
  return renderNeed(page, extracted);
}

async function decoded(p: ArticlePage): Promise<string> {
  return (await decodeHtml(p.html, p.contentType)).text;
}

let benchmark: ArticlePage[] | undefined;
function benchmarkPage(id: string): ArticlePage {
  benchmark ??= articleBenchmarkPages();
  const p = benchmark.find((x) => x.id.startsWith(id));
  assert.ok(p, `page ${id} is in the corpus`);
  return p;
}

/** The page with `snippet` after the paragraph that holds a line from the middle of its article (per the corpus's truth). */
function inArticle(html: string, truth: string, snippet: string): string {
  const lines = truth.split('\n').map((l) => l.trim()).filter((l) => l.length > 80);
  const line = lines[Math.floor(lines.length / 2)]!;
  const at = html.indexOf('</p>', html.indexOf(line.slice(0, 40)));
  assert.ok(html.includes(line.slice(0, 40)) && at > 0, 'a paragraph from the middle of the article is found in the HTML');
  return html.slice(0, at + 4) + snippet + html.slice(at + 4);
}

/** The page with `snippet` at the end of its body, after everything. */
const atEnd = (html: string, snippet: string) => html.replace(/<\/body>/i, `${snippet}</body>`);

/** A paragraph's worth of words a script writes: more than judgeRendering asks of built text. */
const WRITTEN = 'This paragraph is written by the page itself while it loads, in two sentences of plain words. It is part of the article a reader sees.';

describe('ReadDocs decides from the fetched page whether a browser can change the answer', { skip: needs }, () => {
  test('complete articles are answered as fetched: of every fourth page of both corpora (79 of 311), the browser runs for none of the article benchmark\'s and at most one of Readability\'s', async () => {
    // Every page is bench/readdocs-quality.ts's work (it reports the count); a quarter keeps this test fast on a loaded machine.
    const every4th = (pages: ArticlePage[]) => [...pages].sort((a, b) => a.id.localeCompare(b.id)).filter((_, i) => i % 4 === 0);
    const ran: string[] = [];
    benchmark ??= articleBenchmarkPages();
    const pages = [...every4th(benchmark), ...every4th(readabilityPages())];
    assert.equal(pages.length, 79);
    for (const p of pages) {
      const n = need(await decoded(p), p.url);
      if (n.render) ran.push(`${p.corpus}/${p.id}: ${n.why} (${n.detail})`);
    }
    assert.deepEqual(ran.filter((r) => r.startsWith('article-extraction-benchmark')), []);
    assert.ok(ran.length <= 1, ran.join('\n'));
  });

  test('pages of the real-web corpus that need scripts are rendered; result pages and pages without scripts are not', () => {
    const by = (engine: string, kind: string, file?: string) => {
      const s = SERP_PAGES.find((x) => x.engine === engine && x.kind === kind && (!file || x.file.endsWith(file)));
      assert.ok(s, `${engine} ${kind}`);
      return need(serpPage(s), 'https://example.com/');
    };
    // A JavaScript-only result page, a Turnstile challenge, a DataDome refusal: next to no text without scripts.
    assert.equal(by('google', 'javascript-only').why, 'shell');
    assert.equal(by('bing', 'challenge').why, 'shell');
    assert.equal(by('qwant', 'refusal').why, 'shell');
    // A short page that says in its <noscript> that it needs JavaScript.
    assert.equal(by('google', 'challenge').why, 'script-built');
    assert.equal(by('searxng', 'refusal').why, 'script-built');
    // Results the server sent whole, with or without scripts around them.
    for (const [engine, file] of [['bing', 'http-bing.html'], ['brave', ''], ['yahoo', ''], ['mojeek', ''], ['startpage', 'http-startpage.html']] as const) {
      assert.deepEqual(by(engine, 'results', file || undefined), { render: false, why: 'complete', detail: 'the fetched page holds the article and nothing in it waits for scripts' }, engine);
    }
    assert.equal(by('duckduckgo', 'results').why, 'no-scripts');
    // DuckDuckGo Lite's challenge is a form without scripts: a browser would show the same.
    assert.equal(by('duckduckgo_lite', 'challenge').why, 'no-scripts');
  });

  test('a real article rebuilt as an app (its body in a data island an inline script writes out) is a shell, known before Readability runs', async () => {
    const p = benchmarkPage('06e5123e4ef7');
    const html = await decoded(p);
    const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)![1]!;
    const app = html.replace(body, `<div id="app"></div><script id="data" type="application/json">${JSON.stringify(body).replace(/</g, '\\u003c')}</script><script>document.getElementById('app').innerHTML = JSON.parse(document.getElementById('data').textContent);</script>`);
    const page = parsePage(app);
    assert.equal(shellBeforeExtraction(page, blockText(page.documentElement))?.why, 'shell');
    assert.equal(need(app, p.url).why, 'shell');
    // The page as served: the whole page has text, so it is no shell before extraction, and its article is complete.
    const served = parsePage(html);
    assert.equal(shellBeforeExtraction(served, blockText(served.documentElement)), undefined);
    assert.equal(need(html, p.url).why, 'complete');
  });

  test('an empty element within the article that the page\'s own script fills is a placeholder; the same after the article, or one a script only sets an attribute on, is not', async () => {
    const p = benchmarkPage('06e5123e4ef7');
    const html = await decoded(p);
    const fill = `<script>document.getElementById('figures').textContent = ${JSON.stringify(WRITTEN)};</script>`;
    const within = need(atEnd(inArticle(html, p.truth, '<p id="figures"></p>'), fill), p.url);
    assert.deepEqual([within.render, within.why], [true, 'placeholder']);
    assert.match(within.detail, /an empty element its script fills in \(#figures\)/);
    assert.equal(need(atEnd(html, `<p id="figures"></p>${fill}`), p.url).why, 'complete');
    assert.equal(need(atEnd(inArticle(html, p.truth, '<p id="figures"></p>'), `<script>document.getElementById('figures').setAttribute('data-seen', '1');</script>`), p.url).why, 'complete');
  });

  test('a "Loading…" block, template markup, a gist embed and a script that writes text within the article are placeholders; template braces in a code sample are not', async () => {
    const p = benchmarkPage('0d46122928b6');
    const html = await decoded(p);
    const cases: [string, RegExp][] = [
      ['<div class="comments-feed"><p>Loading…</p></div>', /a "Loading…" placeholder/],
      ['<p>{{ post.summary }}</p>', /template markup/],
      ['<script src="https://gist.github.com/someone/0123456789abcdef.js"></script>', /a script embed that writes in place/],
      [`<script>document.write('<p>' + ${JSON.stringify(WRITTEN)} + '</p>');</script>`, /a script that writes in place/],
    ];
    for (const [snippet, detail] of cases) {
      const n = need(inArticle(html, p.truth, snippet), p.url);
      assert.deepEqual([n.render, n.why], [true, 'placeholder'], snippet);
      assert.match(n.detail, detail);
    }
    assert.equal(need(inArticle(html, p.truth, '<pre><code>{{ post.summary }}</code></pre>'), p.url).why, 'complete');
  });

  test('ad tags written with document.write within a real article (markup and addresses, no text) do not call for the browser', async () => {
    // This page has five document.write ad tags (Google Publisher Tag) between its paragraphs.
    const p = benchmarkPage('076f4f33bf75');
    const html = await decoded(p);
    assert.ok((html.match(/document\.write\(/g) ?? []).length >= 5);
    assert.equal(need(html, p.url).why, 'complete');
  });

  test('a short article on a page with an empty app mount point is rendered; the same page as served is not', async () => {
    // A real 60-odd-shingle article with scripts around it.
    const p = benchmarkPage('85439e26c41c');
    const html = await decoded(p);
    assert.equal(need(html, p.url).why, 'complete');
    const n = need(atEnd(html, '<div id="root"></div>'), p.url);
    assert.deepEqual([n.why, n.detail], ['script-built', 'the fetched article was short and the page has an empty app mount point']);
    // A long article with an empty mount point somewhere: what an app would build there is outside the article.
    const long = benchmarkPage('0d46122928b6');
    assert.equal(need(atEnd(await decoded(long), '<div id="root"></div>'), long.url).why, 'complete');
  });

  test('the whole page is read, not only the body linkedom reports: Readability\'s yahoo-3 (reported with an empty body) is a complete article, not a shell', async () => {
    const p = readabilityPages().find((x) => x.id === 'yahoo-3')!;
    assert.equal(parsePage(await decoded(p)).body?.childNodes.length, 0, 'linkedom reports this page\'s body empty');
    // Were it taken for a shell, the browser would run (or, without one here, fail): either way `ran` says so.
    const renderer = new PlaywrightRenderer(findChromium() ?? '/nonexistent/chromium', { onlyHosts: [] });
    try {
      const reading = await readHtmlPage(await decoded(p), p.url, { renderer, deadline: Date.now() + 30_000, waitMs: 0, links: 'references' });
      assert.deepEqual([reading.render.ran, reading.render.reason, reading.from], [false, 'complete', 'fetched']);
    } finally {
      await renderer.close();
    }
  });

  test('a page without scripts is never rendered, shell or not; asked for (wait_ms, READDOCS_RENDER=always), any page is', async () => {
    const tiny = readabilityPages().find((x) => x.id === 'lazy-image-3')!;
    assert.equal(need(await decoded(tiny), tiny.url).why, 'no-scripts');
    assert.deepEqual(askedToRender('wait_ms'), { render: true, why: 'wait_ms', detail: 'wait_ms asked for it' });
    assert.deepEqual(askedToRender('setting'), { render: true, why: 'setting', detail: 'READDOCS_RENDER is always' });
    assert.equal(askedToRender(undefined), undefined);
  });
});
