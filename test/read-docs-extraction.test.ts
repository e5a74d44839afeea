import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHtml } from '../main/tools/web/decode.js';
import { extract } from '../main/tools/web/extract.js';
import { articleBenchmarkPages, needsCorpora, readabilityPages, SOURCES, type ArticlePage } from './helpers/web-corpora.js';

/*
 * The extraction step (Readability, then the boilerplate pass) on real pages of the two corpora
 * ReadDocs is measured on (bench/readdocs-quality.ts): each rule removes what it is for, and the
 * article's own text stays. Issue 28.
 */

const needs = needsCorpora(SOURCES.readability, SOURCES.articleBenchmark);

async function text(pages: () => ArticlePage[], id: string, format: 'text' | 'markdown' = 'text'): Promise<string> {
  const page = pages().find((p) => p.id.startsWith(id));
  assert.ok(page, `page ${id} is in the corpus`);
  const html = (await decodeHtml(page.html, page.contentType)).text;
  const e = extract(html, page.url, 'inline');
  return format === 'text' ? e.text : e.markdown;
}

describe('ReadDocs extraction on real pages', { skip: needs }, () => {
  test("links within the page do not count as links when Readability weighs a block: a documentation page's table of contents stays, its links absolute", async () => {
    // Resolved before Readability ran, "#setting-up" weighed as an outside link and the contents were dropped.
    const md = await text(readabilityPages, 'mercurial', 'markdown');
    assert.match(md, /^Contents\n/);
    assert.match(md, /\[Sharing with a single developer\]\(http:\/\/fakehost\/test\/mercurial\.html#sharing-with-a-single-developer\)/);
    assert.match(md, /Once you have mastered the art of mutable history/);
  });

  test('HTML comments between pieces of text do not split them into paragraphs', async () => {
    // The page's framework writes "Page <!-- -->A<!-- -->22": Readability made three paragraphs of it.
    assert.match(await text(readabilityPages, 'nytimes-3'), /on Page A22 of the New York edition/);
  });

  test('teasers of other articles beside the article (<article> cards) are left out, the article stays', async () => {
    const t = await text(articleBenchmarkPages, '680c2848');
    assert.match(t, /Stadia is Google's attempt to make cloud gaming happen/);
    assert.match(t, /If you're on the fence about investing \$129/);
    assert.doesNotMatch(t, /Watching This Koala Get Rescued|Stain-Resistant Microfiber Sheets|My Fight With A Sidewalk Robot/);
  });

  test('items nested in a page of cards stay when no article holds most of the text', async () => {
    // A front page made of teasers (three sections of <article> cards): nothing is "the" article, so nothing goes.
    const t = await text(readabilityPages, 'nytimes-5');
    assert.match(t, /El día que renuncié a los Beatles/);
    assert.match(t, /Bebidas con beneficios/);
  });

  test('slideshow copies of captions and print-only blocks are left out, the article stays', async () => {
    const t = await text(articleBenchmarkPages, '9ebb3af6');
    assert.match(t, /New vehicle sales in the Houston area plunged 10 percent last month/);
    assert.doesNotMatch(t, /Image 1 of/);
    assert.doesNotMatch(t, /^https:\/\/www\.chron\.com\/business\/article/m);
    const g = await text(articleBenchmarkPages, 'e1c7023e');
    assert.doesNotMatch(g, /Once the preserve of science fiction|This document is subject to copyright/);
    assert.match(g, /hibernation/);
  });

  test("a list of pictures (an encyclopedia's gallery) is the page's own and stays", async () => {
    assert.match(await text(readabilityPages, 'wikipedia-2'), /Landscapes of New Zealand/);
  });
});
