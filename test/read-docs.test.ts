import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import sharp from 'sharp';
import type { Client } from '@modelcontextprotocol/client';
import { connectV2, textOf } from './helpers/clients.js';
import { tempHome, WAIT_MS } from './helpers/env.js';
import { makePdf } from './helpers/pdf.js';
import { chromiumProblem, findChromium } from './helpers/browser.js';
import { skipUnless } from './helpers/prerequisites.js';
import { osFreePort } from './helpers/ports.js';

const JS_PAGE = `<!doctype html><html><head><title>Widget Guide</title></head><body>
<nav><a href="/">Home</a> · <a href="/about">About</a></nav>
<main id="app"><p>Loading…</p></main>
<script>
setTimeout(() => {
  document.getElementById('app').innerHTML = \`
    <article>
      <h1>Widget Guide</h1>
      <p>Widgets are configured in <code>widget.toml</code>. This guide explains every option the widget understands, with an example.
      Read the <a href="../reference/options.html">options reference</a> for the full list of settings and their defaults.</p>
      <h2>Options</h2>
      <table><tr><td>name</td><td>default</td></tr><tr><td>size</td><td>42</td></tr><tr><td>color</td><td>blue</td></tr></table>
      <h2>Example</h2>
      <pre><code class="language-python">import widget
widget.run(size=42)</code></pre>
      <p>Rendered-by-javascript marker: the content above was inserted after 300 ms.</p>
    </article>\`;
}, 300);
</script></body></html>`;

const PARAGRAPHS = Array.from({ length: 12 }, (_, i) => `<p>Paragraph ${i + 1} of the article explains how widgets are configured, which options matter, and why the defaults are what they are.</p>`);
const ARTICLE = PARAGRAPHS.join('\n');
/** The article with `html` in its middle, where a script fills in a placeholder. */
const articleWith = (html: string) => [...PARAGRAPHS.slice(0, 6), html, ...PARAGRAPHS.slice(6)].join('\n');

/** A paragraph a page's script adds to its article: enough text (a tenth of ARTICLE) for rendering to count. */
const BUILT = 'Script-built marker: this paragraph was added by the page itself once it had loaded, and it says enough, in two sentences of plain words, to count as content. Nothing in the HTML as fetched holds these words.';

/** A page whose images, media, fonts and stylesheet never answer, with content its script adds. */
const HEAVY_PAGE = `<!doctype html><html><head><title>Heavy</title><link rel="stylesheet" href="/hang/style.css">
<style>@font-face { font-family: W; src: url(/hang/font.woff2); } body { font-family: W; }</style></head><body>
<article><h1>Heavy page</h1>${articleWith('<p id="late"></p>')}<img src="/hang/photo.jpg" alt="photo"><video src="/hang/clip.mp4" autoplay></video><iframe src="/hang/widget.html"></iframe></article>
<script>document.getElementById('late').textContent = ${JSON.stringify(BUILT)};</script></body></html>`;

/** A page whose script adds only a line (a clock): rendering adds nothing to speak of, so the article is shown as fetched. */
const CLOCK_PAGE = `<!doctype html><html><head><title>Clock</title></head><body><article><h1>Clock page</h1>${ARTICLE}<p id="clock"></p></article>
<script>document.getElementById('clock').textContent = 'Updated at ' + new Date().toISOString();</script></body></html>`;

const LETTERS = Array.from({ length: 8 }, (_, i) => `<li><a href="/letters/${i}">Letter ${i + 1} from a reader about another subject entirely</a> by reader ${i + 1}</li>`).join('');
/**
 * A page whose script adds a paragraph and moves the readers' letters (outside the article as fetched) into the article's
 * block: the rendered article grows more by text the fetched page had around it than by what the script added.
 */
const MOVED_PAGE = `<!doctype html><html><head><title>Moved</title></head><body><div id="page"><div class="main"><h1>Moved page</h1>${ARTICLE}</div></div>
<div class="more"><h3>From our readers</h3><ul>${LETTERS}</ul></div>
<script>const main = document.querySelector('.main'); const p = document.createElement('p'); p.textContent = ${JSON.stringify(BUILT)}; main.children[6].after(p); main.append(document.querySelector('.more'));</script></body></html>`;

/** A page whose script appends a comment thread to its article: what pages put after an article is not what rendering is for. */
const COMMENTED_PAGE = `<!doctype html><html><head><title>Commented</title></head><body><article><h1>Commented page</h1>${ARTICLE}</article>
<script>document.querySelector('article').insertAdjacentHTML('beforeend', ${JSON.stringify(Array.from({ length: 8 }, (_, i) => `<p><b>Reader ${i + 1}</b> wrote on day ${i + 1}: thanks for this piece, I tried the widget settings myself and they worked fine.</p>`).join(''))});</script></body></html>`;

/** A shell whose script builds the article after `ms` (a framework's "after a moment"). */
const timedPage = (ms: number) => `<!doctype html><html><head><title>Timed</title></head><body><main id="app"><p>Loading…</p></main>
<script>setTimeout(() => { document.getElementById('app').innerHTML = '<article><h1>Timed page</h1>' + ${JSON.stringify(ARTICLE)} + '</article>'; }, ${ms});</script></body></html>`;

/** Two pages of one site: the first stores a cookie and a local-storage item, the second writes out what it finds of them. */
const STORING_PAGE = `<!doctype html><html><head><title>Storing</title></head><body><article><h1>Storing page</h1>${ARTICLE}</article>
<script>document.cookie = 'visited=yes; path=/'; localStorage.setItem('visited', 'yes');</script></body></html>`;
const READING_PAGE = `<!doctype html><html><head><title>Reading</title></head><body><article><h1>Reading page</h1>${articleWith('<p id="found"></p>')}</article>
<script>document.getElementById('found').textContent = ${JSON.stringify(BUILT)} + ' Found: cookie ' + (document.cookie || 'none') + ', storage ' + (localStorage.getItem('visited') || 'none') + '.';</script></body></html>`;

/** A page whose script navigates to an address that cannot be reached: the browser is left on its own error page. */
const leavingPage = (to: string) => `<!doctype html><html><head><title>Leaving</title></head><body><article><h1>Leaving page</h1>${ARTICLE}</article>
<script>location.href = ${JSON.stringify(to)};</script></body></html>`;

/** A page whose script replaces the article with a consent wall: rendering would make it worse. */
const WALLED_PAGE = `<!doctype html><html><head><title>Walled</title></head><body><article><h1>Walled article</h1>${ARTICLE}</article>
<script>document.body.innerHTML = '<div class="consent"><p>We value your privacy. Accept all cookies to continue reading this site.</p><button>Accept</button></div>';</script></body></html>`;

/** A page that never finishes: a script at the end whose server never answers keeps DOMContentLoaded from firing. */
const ENDLESS_PAGE = `<!doctype html><html><head><title>Endless</title></head><body><article><h1>Endless page</h1>${ARTICLE}</article><script src="/hang/app.js"></script></body></html>`;

/** The answer's `render` field: whether a browser rendered the page, why, and what came of it. */
interface Render {
  ran: boolean;
  reason: string;
  outcome: string | null;
  ms: number | null;
  note: string;
}

describe('ReadDocs against a local site', () => {
  const h = tempHome();
  let server: http.Server;
  let base = '';
  /** Renders with a budget a loaded machine cannot run out of, so each page is read as it would be on an idle one. */
  let client: Client;
  /** Renders and fetches with a 2.5 s budget, for the tests of what happens when it runs out. */
  let brief: Client;
  let plain: Client;
  /** Paths the server was asked for under /hang/ (it never answers them). */
  const hung: string[] = [];
  /** Every path the server was asked for. */
  const asked: string[] = [];
  let closedPort = 0;
  before(async () => {
    const png = await sharp({ create: { width: 3000, height: 1000, channels: 3, background: '#123456' } }).png().toBuffer();
    closedPort = await osFreePort();
    server = http.createServer((req, res) => {
      const u = req.url ?? '/';
      asked.push(u);
      if (u === '/docs/guide.html') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(JS_PAGE);
      else if (u === '/heavy.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(HEAVY_PAGE);
      else if (u === '/walled.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(WALLED_PAGE);
      else if (u === '/soon.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(timedPage(700));
      else if (u === '/late.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(timedPage(1600));
      else if (u === '/storing.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(STORING_PAGE);
      else if (u === '/reading.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(READING_PAGE);
      else if (u === '/commented.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(COMMENTED_PAGE);
      else if (u === '/clock.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(CLOCK_PAGE);
      else if (u === '/moved.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(MOVED_PAGE);
      else if (u === '/leaving.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(leavingPage(`http://127.0.0.1:${closedPort}/gone`));
      else if (u === '/endless.html') res.writeHead(200, { 'Content-Type': 'text/html' }).end(ENDLESS_PAGE);
      else if (u.startsWith('/hang/')) hung.push(u);
      else if (u === '/moved') res.writeHead(302, { Location: '/docs/guide.html' }).end();
      else if (u === '/missing') res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>nope</h1>');
      else if (u === '/slow') setTimeout(() => res.writeHead(200).end('late'), 5000);
      else if (u === '/huge') res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(50 * 1024 * 1024) }).end();
      else if (u === '/data.json') res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"a":1,"b":[2,3]}');
      else if (u === '/notes.txt') res.writeHead(200, { 'Content-Type': 'text/plain' }).end('plain notes\nline two\n');
      else if (u === '/latin1.txt') res.writeHead(200, { 'Content-Type': 'text/plain; charset=ISO-8859-1' }).end(Buffer.from('Café crème, déjà vu\n', 'latin1'));
      else if (u === '/latin1-sniffed.txt') res.writeHead(200, { 'Content-Type': 'text/plain' }).end(Buffer.from('Café crème, déjà vu\n', 'latin1'));
      else if (u === '/paper.pdf') res.writeHead(200, { 'Content-Type': 'application/pdf' }).end(makePdf('Hello from a PDF'));
      else if (u === '/chart.png') res.writeHead(200, { 'Content-Type': 'image/png' }).end(png);
      else if (u === '/long.txt') res.writeHead(200, { 'Content-Type': 'text/plain' }).end('0123456789'.repeat(500));
      else if (u === '/archive.zip') res.writeHead(200, { 'Content-Type': 'application/zip' }).end(Buffer.from('PK\u0003\u0004rest'));
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const browsing = { BROWSER_PATH: findChromium() ?? '', READDOCS_MAX_BYTES: '10485760', READDOCS_MAX_CHARS: '2000' };
    ({ client } = await connectV2({ home: h.home, env: { ...browsing, READDOCS_TIMEOUT_MS: String(WAIT_MS) } }));
    ({ client: brief } = await connectV2({ home: h.home, env: { ...browsing, READDOCS_TIMEOUT_MS: '2500' } }));
    ({ client: plain } = await connectV2({ home: h.home, env: { BROWSER_PATH: 'off' } }));
    // The browser's launch and first page are paid here, not by the first test.
    if (!chromiumProblem()) await client.callTool({ name: 'ReadDocs', arguments: { url: `${base}/clock.html` } });
  });
  after(async () => {
    await client.close();
    await brief.close();
    await plain.close();
    server.closeAllConnections();
    server.close();
    h.cleanup();
  });

  const read = (c: Client, args: Record<string, unknown>) => c.callTool({ name: 'ReadDocs', arguments: args });

  test('with Chromium: content inserted by JavaScript after 300 ms comes out as markdown; table, code and links right', { skip: skipUnless(chromiumProblem()) }, async () => {
    const r = await read(client, { url: `${base}/moved` });
    assert.notEqual(r.isError, true, textOf(r));
    const md = textOf(r);
    assert.match(md, /^# Widget Guide\nURL: http:\/\/127\.0\.0\.1:\d+\/docs\/guide\.html\n/);
    assert.match(md, /Rendered-by-javascript marker/);
    assert.match(md, /\| name \| default\s*\|/);
    assert.match(md, /\| size \| 42\s*\|/);
    assert.match(md, /```python\nimport widget\nwidget\.run\(size=42\)\n```/);
    // Links by default: text in place, the URL once in a numbered list at the end (same-site ones as paths).
    assert.match(md, /Read the \[options reference\]\[1\] for the full list/);
    assert.match(md, new RegExp(`\\n\\[1\\]: ${base.replace(/[.]/g, '\\.')}/reference/options\\.html\\n\\[Note: rendered in chromium \\(the fetched page had next to no text without its scripts\\); showing the page after its scripts ran\\]$`));
    const inline = textOf(await read(client, { url: `${base}/docs/guide.html`, links: 'inline' }));
    assert.match(inline, new RegExp(`\\[options reference\\]\\(${base.replace(/[.]/g, '\\.')}/reference/options\\.html\\)`));
    const sc = r.structuredContent as { rendered_with: string; final_url: string; extracted_from: string; render: Render };
    assert.equal(sc.rendered_with, 'chromium');
    assert.equal(sc.extracted_from, 'rendered');
    assert.deepEqual([sc.render.ran, sc.render.reason, sc.render.outcome], [true, 'shell', 'shown']);
    assert.ok(sc.render.ms! > 0);
    assert.equal(sc.final_url, `${base}/docs/guide.html`);
    const text = await read(client, { url: `${base}/docs/guide.html`, format: 'text' });
    assert.match(textOf(text), /Rendered-by-javascript marker/);
    assert.doesNotMatch(textOf(text), /```/);
    const html = await read(client, { url: `${base}/docs/guide.html`, format: 'html', wait_ms: 100 });
    assert.match(textOf(html), /<table>/);
  });

  const chromium = skipUnless(chromiumProblem());

  test('rendering waits for the document, not its subresources: images, media, fonts, stylesheets and iframes are not fetched, nor the page twice', { skip: chromium }, async () => {
    hung.length = 0;
    asked.length = 0;
    const r = await read(client, { url: `${base}/heavy.html`, format: 'text' });
    assert.notEqual(r.isError, true, textOf(r));
    const sc = r.structuredContent as { rendered_with: string; extracted_from: string; render: Render };
    assert.deepEqual([sc.rendered_with, sc.extracted_from], ['chromium', 'rendered'], textOf(r));
    // A complete article, rendered because its own script fills an empty paragraph within it.
    assert.deepEqual([sc.render.reason, sc.render.outcome], ['placeholder', 'shown']);
    assert.match(textOf(r), /Script-built marker/);
    assert.deepEqual(hung, [], 'the browser asked for subresources a text extractor does not need');
    // The browser is given the document ReadDocs fetched: the page is asked for once.
    assert.deepEqual(asked, ['/heavy.html']);
  });

  test('a page that builds its content on a short timer is waited for; a later one is read with wait_ms', { skip: chromium }, async () => {
    // 700 ms: longer than the DOM must be still to count as settled, but a short timer the page set as it loaded.
    const soon = await read(client, { url: `${base}/soon.html`, format: 'text' });
    assert.equal((soon.structuredContent as { extracted_from: string }).extracted_from, 'rendered', textOf(soon));
    assert.match(textOf(soon), /Paragraph 12 of the article/);
    // 1.6 s is past what is waited for unasked (the shell is read as it stands); wait_ms waits for it.
    assert.doesNotMatch(textOf(await read(client, { url: `${base}/late.html`, format: 'text' })), /Paragraph 12 of the article/);
    assert.match(textOf(await read(client, { url: `${base}/late.html`, format: 'text', wait_ms: 2000 })), /Paragraph 12 of the article/);
  });

  test('each call renders in a page of its own: nothing a page stored is seen by the next one, though a page is kept ready between calls', { skip: chromium }, async () => {
    // A complete article whose script only stores things: rendered because wait_ms asks for it.
    const first = await read(client, { url: `${base}/storing.html`, format: 'text', wait_ms: 1 });
    assert.notEqual(first.isError, true, textOf(first));
    assert.equal((first.structuredContent as { render: Render }).render.ran, true);
    for (let i = 0; i < 2; i++) {
      const r = await read(client, { url: `${base}/reading.html`, format: 'text' });
      assert.equal((r.structuredContent as { extracted_from: string }).extracted_from, 'rendered', textOf(r));
      assert.match(textOf(r), /Found: cookie none, storage none\./);
    }
  });

  test('a complete article is answered as fetched without the browser, and says so; rendered when wait_ms asks, a script that adds only a line (a clock) or a comment thread after the article changes nothing', { skip: chromium }, async () => {
    for (const [path, added] of [['/clock.html', /Updated at/], ['/commented.html', /Reader \d wrote/]] as const) {
      const r = await read(client, { url: `${base}${path}`, format: 'text' });
      assert.notEqual(r.isError, true, textOf(r));
      const sc = r.structuredContent as { rendered_with: string; extracted_from: string; render: Render };
      assert.deepEqual([sc.rendered_with, sc.extracted_from], ['http', 'fetched'], textOf(r));
      assert.deepEqual(sc.render, { ran: false, reason: 'complete', outcome: null, ms: null, note: 'not rendered: the fetched page holds the article and nothing in it waits for scripts; wait_ms renders it in chromium' });
      assert.match(textOf(r), /Paragraph 12 of the article/);
      assert.doesNotMatch(textOf(r), added);
      assert.match(textOf(r), /\n\[Note: not rendered: the fetched page holds the article and nothing in it waits for scripts; wait_ms renders it in chromium\]$/);

      const asked = await read(client, { url: `${base}${path}`, format: 'text', wait_ms: 1 });
      const rendered = asked.structuredContent as { rendered_with: string; extracted_from: string; render: Render };
      assert.deepEqual([rendered.extracted_from, rendered.render.ran, rendered.render.reason, rendered.render.outcome], ['fetched', true, 'wait_ms', 'same'], textOf(asked));
      assert.doesNotMatch(textOf(asked), added);
      assert.match(textOf(asked), /\[Note: rendered in chromium \(wait_ms asked for it\); its scripts added nothing to the article, so it is shown as fetched\]/);
    }
  });

  test('a rendered article that grew more by the page around it than by what scripts added is shown as fetched, and says so; format "html" is the page after scripts ran', { skip: chromium }, async () => {
    const r = await read(client, { url: `${base}/moved.html`, format: 'text', wait_ms: 1 });
    assert.notEqual(r.isError, true, textOf(r));
    const sc = r.structuredContent as { rendered_with: string; extracted_from: string; render: Render };
    assert.deepEqual([sc.rendered_with, sc.extracted_from, sc.render.outcome], ['http', 'fetched', 'repicked'], textOf(r));
    assert.match(textOf(r), /Paragraph 12 of the article/);
    assert.doesNotMatch(textOf(r), /Letter 3 from a reader|Script-built marker/);
    assert.match(textOf(r), /\[Note: rendered in chromium \(wait_ms asked for it\); after scripts ran, the article took in more of the page around it than the scripts added, so it is shown as fetched; format "html" shows the page after scripts ran\]/);
    assert.match(textOf(await read(client, { url: `${base}/moved.html`, format: 'html', wait_ms: 1 })), /Script-built marker/);
    // Not rendered, the HTML is the page as fetched.
    assert.doesNotMatch(textOf(await read(client, { url: `${base}/moved.html`, format: 'html' })), /Script-built marker/);
  });

  test('a script that navigates somewhere unreachable leaves the browser on its error page: shown as fetched, saying the browser failed (not that it was skipped)', { skip: chromium }, async () => {
    const r = await read(client, { url: `${base}/leaving.html`, format: 'text', wait_ms: 1 });
    assert.notEqual(r.isError, true, textOf(r));
    const sc = r.structuredContent as { rendered_with: string; extracted_from: string; render: Render };
    assert.deepEqual([sc.rendered_with, sc.extracted_from], ['http', 'fetched'], textOf(r));
    assert.deepEqual([sc.render.ran, sc.render.reason, sc.render.outcome], [true, 'wait_ms', 'failed']);
    assert.match(textOf(r), /Paragraph 12 of the article/);
    assert.doesNotMatch(textOf(r), /refused to connect|This site can|ERR_[A-Z_]+\n/);
    assert.match(textOf(r), new RegExp(`\\[Note: the browser failed \\(the browser could not load http://127\\.0\\.0\\.1:${closedPort}/gone \\(net::ERR_[A-Z_]+\\)\\); showing the page as fetched, scripts were not run\\]`));
  });

  test('a page that never finishes loading is answered within READDOCS_TIMEOUT_MS with what it has', { skip: chromium }, async () => {
    const r = await read(brief, { url: `${base}/endless.html`, format: 'text', wait_ms: 1 });
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal((r.structuredContent as { render: Render }).render.ran, true);
    assert.match(textOf(r), /Paragraph 12 of the article/);
  });

  test('rendering never makes a page worse: a script that takes the article away means the page is shown as fetched, and the answer says so', { skip: chromium }, async () => {
    const r = await read(client, { url: `${base}/walled.html`, wait_ms: 1 });
    assert.notEqual(r.isError, true, textOf(r));
    const sc = r.structuredContent as { rendered_with: string; extracted_from: string; render: Render };
    assert.deepEqual([sc.rendered_with, sc.extracted_from, sc.render.outcome], ['http', 'fetched', 'lost-text']);
    assert.match(textOf(r), /Paragraph 12 of the article/);
    assert.doesNotMatch(textOf(r), /Accept all cookies/);
    assert.match(textOf(r), /\[Note: rendered in chromium \(wait_ms asked for it\); after scripts ran the page kept only \d+% of its text as fetched, so it is shown as fetched\]/);
  });

  test('without a browser it says scripts were not run where they would have been, and nothing where they would not', async () => {
    const r = await read(plain, { url: `${base}/docs/guide.html` });
    assert.doesNotMatch(textOf(r), /Rendered-by-javascript marker/);
    assert.match(textOf(r), /\[Note: no browser found, so scripts were not run \(they would have been: the fetched page had next to no text without its scripts\): install Chrome, Chromium or Edge, or set BROWSER_PATH\]/);
    const sc = r.structuredContent as { rendered_with: string; extracted_from: string; render: Render };
    assert.deepEqual([sc.rendered_with, sc.extracted_from, sc.render.ran, sc.render.reason], ['http', 'fetched', false, 'no-browser']);
    const complete = await read(plain, { url: `${base}/clock.html` });
    assert.deepEqual((complete.structuredContent as { render: Render }).render, { ran: false, reason: 'complete', outcome: null, ms: null, note: 'not rendered: the fetched page holds the article and nothing in it waits for scripts' });
  });

  test('JSON, text, PDF and images', async () => {
    const json = await read(client, { url: `${base}/data.json` });
    assert.equal((json.structuredContent as { render: Render | null }).render, null, 'no render field for what is not HTML');
    assert.match(textOf(json), /\{\n  "a": 1,\n  "b": \[\n    2,\n    3\n  \]\n\}/);
    assert.match(textOf(await read(client, { url: `${base}/notes.txt` })), /plain notes\nline two/);
    // Text is decoded by its declared charset, else sniffed (not UTF-8, so windows-1252).
    for (const path of ['/latin1.txt', '/latin1-sniffed.txt']) {
      const r = await read(client, { url: `${base}${path}` });
      assert.match(textOf(r), /Café crème, déjà vu/, path);
      assert.equal((r.structuredContent as { charset: string }).charset, path === '/latin1.txt' ? 'windows-1252 (header)' : 'windows-1252 (sniffed)');
    }
    assert.match(textOf(await read(client, { url: `${base}/paper.pdf` })), /Hello from a PDF[\s\S]*PDF, 1 page/);
    const img = await read(client, { url: `${base}/chart.png` });
    const c = img.content as { type: string; mimeType?: string; data?: string }[];
    assert.equal(c[1]!.type, 'image');
    const meta = await sharp(Buffer.from(c[1]!.data!, 'base64')).metadata();
    assert.equal(meta.width, 1568);
  });

  test('long pages are cut with a note, and offset reads on', async () => {
    const first = await read(client, { url: `${base}/long.txt` });
    assert.match(textOf(first), /\[Characters 0–2000 of 5000\. Call ReadDocs again with offset=2000 to read on\.\]/);
    assert.equal((first.structuredContent as { next_offset: number }).next_offset, 2000);
    const last = await read(client, { url: `${base}/long.txt`, offset: 4000 });
    assert.match(textOf(last), /\[Characters 4000–5000 of 5000\. This is the end\.\]/);
    assert.match(textOf(await read(client, { url: `${base}/long.txt`, offset: 9000 })), /offset 9000 is past the end/);
  });

  test('errors: schemes, HTTP status, timeouts, DNS, TLS, size, unknown types', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: 'file:///etc/passwd' }, /only http and https URLs can be read; file: URLs are refused/],
      [{ url: 'ftp://example.com/x' }, /ftp: URLs are refused/],
      [{ url: 'not a url' }, /is not a URL/],
      [{ url: `${base}/missing` }, /answered HTTP 404 Not Found — the page does not exist/],
      [{ url: 'http://no-such-host.invalid/' }, /could not be resolved \(DNS\)|resolve/],
      [{ url: `${base.replace('http:', 'https:')}/notes.txt` }, /TLS error|SSL|EPROTO|wrong version/i],
      [{ url: `${base}/huge` }, /more than the 10 MB limit \(READDOCS_MAX_BYTES\)/],
      [{ url: `${base}/archive.zip` }, /is application\/zip .* which ReadDocs cannot show/],
      [{ url: `${base}/notes.txt`, format: 'pdf' }, /format must be markdown, text or html/],
    ];
    for (const [args, re] of cases) {
      const r = await read(client, args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(textOf(r), re, JSON.stringify(args));
    }
    // The 2.5 s budget runs out before /slow answers (at 5 s).
    const slow = await read(brief, { url: `${base}/slow` });
    assert.equal(slow.isError, true);
    assert.match(textOf(slow), /timed out after 2\.5 s/);
  });
});
