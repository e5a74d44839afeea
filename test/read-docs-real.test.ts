import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { parseHTML } from 'linkedom';
import type { Client } from '@modelcontextprotocol/client';
import { connectV2, textOf } from './helpers/clients.js';
import { tempHome } from './helpers/env.js';
import { articleBenchmarkPages, needsCorpora, readabilityPages, SOURCES, type ArticlePage } from './helpers/web-corpora.js';
import { wordF1 } from '../bench/readdocs-quality.js';
import { chromiumProblem, findChromium } from './helpers/browser.js';
import { skipUnless } from './helpers/prerequisites.js';

/*
 * ReadDocs on real article pages (see test/fixtures/web/README.md), served
 * from loopback without a browser so that Pincer's own decoding and
 * extraction are what is tested.
 */

/** windows-1252 bytes of a string (Node has no encoder for it): Latin-1 plus the typographic characters at 0x80–0x9F. */
function windows1252(s: string): Buffer {
  const extra: Record<string, number> = { '€': 0x80, '‚': 0x82, '„': 0x84, '…': 0x85, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97, 'œ': 0x9c, 'Œ': 0x8c };
  return Buffer.from([...s].map((c) => extra[c] ?? (c.codePointAt(0)! <= 0xff ? c.codePointAt(0)! : 0x3f)));
}

const needs = needsCorpora(SOURCES.readability, SOURCES.articleBenchmark);
const CHROMIUM = findChromium();

/** Text a script adds to a page, enough for rendering to count (a tenth of the article and more). */
const BUILT = 'Script-built marker: this paragraph was added by the page itself once it had loaded, and it says enough, in two sentences of plain words, to count as content.';

describe('ReadDocs on real pages', () => {
  const h = tempHome();
  let server: http.Server;
  let base = '';
  let client: Client;
  let lemonde: ArticlePage;
  let wikipedia: ArticlePage;
  let boxed: ArticlePage;
  let based: ArticlePage;
  let rendering: Client | undefined;
  const routes = new Map<string, { type: string; body: Buffer }>();

  before(async () => {
    if (needs) return;
    const pages = readabilityPages();
    lemonde = pages.find((p) => p.id === 'lemonde-1')!;
    wikipedia = pages.find((p) => p.id === 'wikipedia')!;
    based = pages.find((p) => p.id === 'base-url-base-element-relative')!;
    // A real article whose page has boxes around it that beat the article at charThreshold 100.
    boxed = articleBenchmarkPages().find((p) => p.id.startsWith('4219d096902d'))!;
    const utf8 = lemonde.html.toString('utf8');
    const latin = utf8.replace(/<meta http-equiv="Content-Type" content="text\/html; charset=utf-8"\/>/i, '');
    assert.notEqual(latin, utf8, 'the page declares its charset in a <meta>');
    routes.set('/lemonde-header', { type: 'text/html; charset=ISO-8859-1', body: windows1252(utf8) });
    routes.set('/lemonde-meta', { type: 'text/html', body: windows1252(utf8.replace(/charset=utf-8/i, 'charset=iso-8859-1')) });
    routes.set('/lemonde-sniffed', { type: 'text/html', body: windows1252(latin) });
    routes.set('/lemonde-utf8', { type: 'text/html; charset=utf-8', body: lemonde.html });
    routes.set('/wikipedia', { type: 'text/html; charset=utf-8', body: wikipedia.html });
    // Served where its `<base href="base/">` and the expected article's fakehost URLs line up: /test/….
    routes.set('/test/base-relative.html', { type: 'text/html; charset=utf-8', body: based.html });
    // The same page with a paragraph its script adds within the article: rendering builds text, so the rendered article is shown.
    const script = `<script>document.querySelector('article h2').before(Object.assign(document.createElement('p'), { textContent: ${JSON.stringify(BUILT)} }));</script>`;
    routes.set('/test/base-relative-built.html', { type: 'text/html; charset=utf-8', body: Buffer.from(based.html.toString('utf8').replace('</body>', `${script}</body>`)) });
    routes.set('/boxed', { type: 'text/html; charset=utf-8', body: boxed.html });
    const para = (n: number) => `<p>Paragraph ${n} of the guide explains how the widget reads its configuration file and which of its options matter most in practice.</p>`;
    routes.set('/boilerplate', { type: 'text/html; charset=utf-8', body: Buffer.from(`<!doctype html><title>Guide</title><body><article><h1>Widget guide</h1>${para(1)}
<p class="photo-credit">Photograph by Jane Doe for the Widget Agency, all rights reserved</p>${para(2)}
<div class="trending"><h3>Trending now</h3><p>Readers everywhere are discussing another widget story from this week, about gadgets in winter.</p></div>${para(3)}
<div class="sidebar-popular"><h3>Most read</h3><p>Readers also opened the weekly widget digest, with configuration tips for gadgets in winter.</p></div>${para(4)}
<div class="section sharing-with-a-single-developer"><h2>Sharing with a single developer</h2>${para(5)}</div>${para(6)}</article></body>`) });
    routes.set('/blocks', { type: 'text/html; charset=utf-8', body: Buffer.from('<!doctype html><title>Blocks</title><body><article><h1>Heading One</h1><p>Hello <b>bold</b> world, this paragraph is long enough to count as the article body for the extractor.</p><ul><li>First item</li><li>Second item</li></ul><h2>Heading Two</h2><p>Another paragraph.<br>After a line break.</p><pre>  indented\n    code</pre></article></body>') });
    server = http.createServer((req, res) => {
      if (req.url === '/moved/base') return void res.writeHead(301, { Location: '/test/base-relative.html' }).end();
      if (req.url === '/moved/base-built') return void res.writeHead(301, { Location: '/test/base-relative-built.html' }).end();
      const r = routes.get(req.url ?? '');
      if (!r) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': r.type }).end(r.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    ({ client } = await connectV2({ home: h.home, env: { BROWSER_PATH: 'off', READDOCS_MAX_CHARS: '1000000' } }));
    if (CHROMIUM) ({ client: rendering } = await connectV2({ home: h.home, env: { BROWSER_PATH: CHROMIUM, READDOCS_MAX_CHARS: '1000000' } }));
  });
  after(async () => {
    await client?.close();
    await rendering?.close();
    server?.close();
    h.cleanup();
  });

  const read = async (path: string, args: Record<string, unknown> = {}, c: Client = client) => {
    const r = await c.callTool({ name: 'ReadDocs', arguments: { url: `${base}${path}`, ...args } });
    assert.notEqual(r.isError, true, textOf(r));
    return { text: textOf(r), sc: r.structuredContent as { charset: string; title: string; final_url: string; extracted_from: string } };
  };
  const truthText = (p: ArticlePage) => parseHTML(`<!doctype html><html><body>${p.truth}</body></html>`).document.body.textContent ?? '';

  test('text format puts headings, paragraphs and list items on lines of their own', { skip: needs }, async () => {
    const { text } = await read('/blocks', { format: 'text' });
    assert.match(text, /Heading One\n\nHello bold world, this paragraph/);
    assert.match(text, /\nFirst item\nSecond item\n\nHeading Two\n\nAnother paragraph\.\nAfter a line break\.\n\n {2}indented\n {4}code/);
    // On a real page every paragraph of the article is a line of its own.
    const real = (await read('/lemonde-utf8', { format: 'text' })).text.split('\n').map((l) => l.trim());
    const paragraphs = [...parseHTML(`<!doctype html><html><body>${lemonde.truth}</body></html>`).document.querySelectorAll('p')].map((p) => (p.textContent ?? '').replace(/\s+/g, ' ').trim()).filter((t) => t.length > 40);
    assert.ok(paragraphs.length >= 5);
    for (const p of paragraphs) assert.ok(real.includes(p), `paragraph not on a line of its own: ${p.slice(0, 60)}…`);
  });

  test('a page is decoded by its HTTP charset, else its <meta>, else by sniffing', { skip: needs }, async () => {
    const reference = wordF1(truthText(lemonde), (await read('/lemonde-utf8', { format: 'text' })).text);
    for (const [path, charset] of [['/lemonde-header', 'windows-1252 (header)'], ['/lemonde-meta', 'windows-1252 (meta)'], ['/lemonde-sniffed', 'windows-1252 (sniffed)']] as const) {
      const { text, sc } = await read(path, { format: 'text' });
      assert.equal(sc.charset, charset, path);
      assert.doesNotMatch(text, /\ufffd|Ã©|Ã¨/, `${path} has mojibake`);
      assert.match(text, /[éèàç]/, path);
      // Same words as the UTF-8 original (characters windows-1252 lacks aside).
      assert.ok(wordF1(truthText(lemonde), text) >= reference - 0.01, `${path}: F1 ${wordF1(truthText(lemonde), text)} vs ${reference}`);
    }
  });

  test('the article wins over the boxes around it (Readability\'s default threshold)', { skip: needs }, async () => {
    const { text } = await read('/boxed', { format: 'text' });
    const f1 = wordF1(boxed.truth, text);
    assert.ok(f1 > 0.9, `word F1 ${f1.toFixed(3)} against the benchmark's ground truth`);
  });

  test('markdown keeps link text and lists each URL once at the end; links: "text" drops URLs, "inline" keeps them in place', { skip: needs }, async () => {
    const refs = (await read('/wikipedia')).text;
    const inline = (await read('/wikipedia', { links: 'inline' })).text;
    const plain = (await read('/wikipedia', { links: 'text' })).text;
    const body = (md: string) => md.split('\n').slice(2).join('\n');
    assert.match(inline, /\]\(https?:\/\//);
    assert.doesNotMatch(refs, /\]\(https?:\/\//);
    assert.match(refs, /\[[^\]]+\]\[1\]/);
    const list = [...refs.matchAll(/^\[(\d+)\]: (\S+)$/gm)];
    assert.ok(list.length > 20, `${list.length} references`);
    assert.deepEqual(list.map((m) => Number(m[1])), list.map((_, i) => i + 1));
    assert.equal(new Set(list.map((m) => m[2])).size, list.length, 'each URL once');
    // No link targets at all; a URL that is the visible text of a link stays, as on the page.
    assert.doesNotMatch(body(plain), /\]\(https?:|^\[\d+\]: |href=/m);
    assert.doesNotMatch(body(refs), /href=|src=/);
    assert.ok(body(refs).length < body(inline).length && body(plain).length < body(refs).length, `${body(plain).length} < ${body(refs).length} < ${body(inline).length}`);
    const bad = await client.callTool({ name: 'ReadDocs', arguments: { url: `${base}/wikipedia`, links: 'footnotes' } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /links must be references, text or inline/);
  });

  /** Every link and image target of a markdown answer: inline `(…)` targets and `[n]: …` references. */
  const targets = (md: string) => [...md.matchAll(/\]\((\S+?)(?: "[^"]*")?\)/g), ...md.matchAll(/^\[\d+\]: (\S+)$/gm)].map((m) => m[1]!);

  test('every URL shown is absolute, on a real page, in every link style', { skip: needs }, async () => {
    const origin = base;
    for (const links of ['references', 'inline'] as const) {
      const { text } = await read('/wikipedia', { links });
      const urls = targets(text.split('\n').slice(2).join('\n'));
      assert.ok(urls.length > 20, `${links}: ${urls.length} URLs`);
      for (const u of urls) assert.match(u, /^https?:\/\/[^/]/, `${links}: ${u} is not absolute`);
      // Tables markdown cannot hold stay HTML in inline style: their links are absolute too.
      for (const m of text.matchAll(/(?:href|src)="([^"]*)"/g)) assert.match(m[1]!, /^https?:\/\/[^/]/, `${links}: ${m[1]} in HTML`);
      // The page's root-relative links (/wiki/Netscape) resolve against where it was served; protocol-relative ones (//upload…) take its scheme.
      assert.ok(urls.includes(`${origin}/wiki/Netscape`), `${links}: /wiki/Netscape as ${origin}/wiki/Netscape`);
    }
    assert.match((await read('/wikipedia', { links: 'inline' })).text, /!\[[^\]]*\]\(http:\/\/upload\.wikimedia\.org\//);
  });

  for (const how of ['fetched', 'rendered'] as const) {
    test(`links resolve against <base href> and the URL after a redirect (${how})`, { skip: needs || (how === 'rendered' && skipUnless(chromiumProblem())) }, async () => {
      const c = how === 'rendered' ? rendering! : client;
      const page = how === 'rendered' ? 'base-relative-built' : 'base-relative';
      // Readability's own expectation for this page, with its fakehost standing for wherever the page is served.
      const expected = [...based.truth.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!.replace('http://fakehost', base));
      // The built paragraph goes before a heading of a complete article: nothing in the fetched page waits for it, so wait_ms asks for the browser.
      const asked = how === 'rendered' ? { wait_ms: 1 } : {};
      const inline = await read(how === 'rendered' ? '/moved/base-built' : '/moved/base', { links: 'inline', ...asked }, c);
      assert.equal(inline.sc.final_url, `${base}/test/${page}.html`);
      assert.equal(inline.sc.extracted_from, how);
      if (how === 'rendered') assert.match(inline.text, /Script-built marker/);
      assert.deepEqual(targets(inline.text.split('\n').slice(2).join('\n')), expected);
      const refs = (await read(how === 'rendered' ? '/moved/base-built' : '/moved/base', asked, c)).text;
      const listed = [...refs.matchAll(/^\[\d+\]: (\S+)$/gm)].map((m) => m[1]!);
      assert.deepEqual(listed, [...new Set(expected.filter((u) => !/\.png$/.test(u)))]);
    });
  }

  test('credits, trending and most-read boxes inside the article are left out; a section whose id is a heading slug stays', { skip: needs }, async () => {
    const { text } = await read('/boilerplate', { format: 'text' });
    for (const n of [1, 2, 3, 4, 5, 6]) assert.match(text, new RegExp(`Paragraph ${n} of the guide`));
    assert.match(text, /Sharing with a single developer/);
    assert.doesNotMatch(text, /Jane Doe|Trending now|another widget story|Most read|weekly widget digest/);
  });
});
