import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { closeStdioClient, connectV2, textOf } from './helpers/clients.js';
import { tempHome, waitFor } from './helpers/env.js';
import { chromiumProblem, findChromium } from './helpers/browser.js';
import { skipUnless } from './helpers/prerequisites.js';
import { articleBenchmarkPages, needsCorpora, SOURCES, type ArticlePage } from './helpers/web-corpora.js';
import { decodeHtml } from '../main/tools/web/decode.js';
import { PlaywrightRenderer } from '../main/tools/web/browser.js';

/*
 * The browser runs only where it can change the answer: a real `pincer stdio --standalone`, whose BROWSER_PATH is
 * Chromium behind a script that counts its launches, reads a real article (never starting the browser) and the same
 * article rebuilt as an app (starting it once).
 */

const skip = (process.platform === 'win32' && 'a POSIX shell script stands in front of the browser to count its launches') || needsCorpora(SOURCES.articleBenchmark) || skipUnless(chromiumProblem());

interface Render {
  ran: boolean;
  reason: string;
  outcome: string | null;
}

/** A shell script that notes each launch in `count` and runs Chromium with the arguments it was given. */
function countingBrowser(dir: string): { exe: string; launches(): number } {
  const exe = path.join(dir, 'counting-chromium.sh');
  const count = path.join(dir, 'launches');
  fs.writeFileSync(exe, `#!/bin/sh\necho launch >> '${count}'\nexec '${findChromium()}' "$@"\n`, { mode: 0o755 });
  return { exe, launches: () => (fs.existsSync(count) ? fs.readFileSync(count, 'utf8').split('\n').filter(Boolean).length : 0) };
}

describe('ReadDocs starts the browser only for pages it can change', { skip }, () => {
  const h = tempHome();
  let server: http.Server;
  let base = '';
  let page: ArticlePage;
  let browser: ReturnType<typeof countingBrowser>;
  /** A sentence from the middle of the article, as the corpus's truth has it. */
  let sentence = '';

  before(async () => {
    if (skip) return;
    browser = countingBrowser(h.home);
    page = articleBenchmarkPages().find((p) => p.id.startsWith('06e5123e4ef7'))!;
    const html = (await decodeHtml(page.html, page.contentType)).text;
    const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)![1]!;
    // The article as a client-rendered site ships it: its body in a data island, written into an empty mount point by a script.
    const app = html.replace(body, `<div id="app"></div><script id="data" type="application/json">${JSON.stringify(body).replace(/</g, '\\u003c')}</script><script>document.getElementById('app').innerHTML = JSON.parse(document.getElementById('data').textContent);</script>`);
    const lines = page.truth.split('\n').filter((l) => l.trim().length > 80);
    sentence = lines[Math.floor(lines.length / 2)]!.trim().slice(0, 60);
    server = http.createServer((req, res) => {
      if (req.url === '/article.html') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(page.html);
      if (req.url === '/app.html') return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(app);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => {
    server?.close();
    h.cleanup();
  });

  const read = async (client: Client, p: string, args: Record<string, unknown> = {}) => {
    const r = await client.callTool({ name: 'ReadDocs', arguments: { url: `${base}${p}`, format: 'text', ...args } });
    assert.notEqual(r.isError, true, textOf(r));
    const sc = r.structuredContent as { extracted_from: string; render: Render };
    return { text: textOf(r), from: sc.extracted_from, render: [sc.render.ran, sc.render.reason, sc.render.outcome] };
  };

  test('a complete article never starts the browser; a page its scripts build starts it once, and it is reused when wait_ms asks for it', async () => {
    const c = await connectV2({ home: h.home, env: { BROWSER_PATH: browser.exe, READDOCS_MAX_CHARS: '1000000' } });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await read(c.client, '/article.html');
        assert.deepEqual([r.from, r.render], ['fetched', [false, 'complete', null]]);
        assert.ok(r.text.includes(sentence), 'the article is there as fetched');
      }
      assert.equal(browser.launches(), 0, 'no browser for complete articles');

      const app = await read(c.client, '/app.html');
      assert.deepEqual([app.from, app.render], ['rendered', [true, 'shell', 'shown']]);
      assert.ok(app.text.includes(sentence), 'the rendered page has the article its script wrote');
      assert.equal(browser.launches(), 1);

      assert.deepEqual((await read(c.client, '/article.html')).render, [false, 'complete', null]);
      assert.deepEqual((await read(c.client, '/article.html', { wait_ms: 1 })).render, [true, 'wait_ms', 'same']);
      assert.equal(browser.launches(), 1, 'one browser, launched once, for both renders');
    } finally {
      await closeStdioClient(c);
    }
  });

  test('READDOCS_RENDER=always renders every HTML page', async () => {
    const before = browser.launches();
    const c = await connectV2({ home: h.home, env: { BROWSER_PATH: browser.exe, READDOCS_RENDER: 'always' } });
    try {
      assert.deepEqual((await read(c.client, '/article.html')).render, [true, 'setting', 'same']);
      assert.equal(browser.launches(), before + 1);
    } finally {
      await closeStdioClient(c);
    }
  });

  test('the browser is started ahead of a call only once a call has needed it', async () => {
    const renderer = new PlaywrightRenderer(browser.exe, { onlyHosts: [] });
    try {
      renderer.prepare(undefined);
      assert.equal(renderer['browser'], undefined, 'nothing has needed the browser yet: it is not started ahead');
      const launched = browser.launches();
      await renderer.render('https://example.com/', { waitMs: 0, timeoutMs: 20_000, document: { html: '<p>Hello from the page.</p>', mediaType: 'text/html' } });
      assert.equal(browser.launches(), launched + 1);
      await renderer.close();
      renderer.prepare(undefined);
      assert.notEqual(renderer['browser'], undefined, 'a call needed it a moment ago: the next call starts it ahead');
      await waitFor(() => browser.launches() === launched + 2, 'the browser to be started ahead');
    } finally {
      await renderer.close();
    }
  });
});
