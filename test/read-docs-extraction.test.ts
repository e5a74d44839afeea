import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHtml } from '../main/tools/web/decode.js';
import { extract } from '../main/tools/web/extract.js';
import { articleBenchmarkPages, needsCorpora, readabilityPages, SOURCES, type ArticlePage } from './helpers/web-corpora.js';

/*
 * The extraction step (Readability, then the boilerplate pass) on real pages of the two corpora
 * ReadDocs is measured on (bench/readdocs-quality.ts): each rule removes what it is for, and the
 * article's own text stays.
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
  test('lines that are the site talking are left out: a lone "Sign In" or "Advert", "Skip to content", a tag list, a cookie notice, an affiliate notice, wire credits, "follow us", slideshow counters', async () => {
    const bike = await text(articleBenchmarkPages, '30b771a4');
    assert.match(bike, /If you want a book that makes you feel great about being a biker/);
    assert.doesNotMatch(bike, /^(Skip to content|Advert)$/m);
    assert.doesNotMatch(bike, /This website uses cookies/);
    const cars = await text(articleBenchmarkPages, 'cc03ddb5');
    assert.match(cars, /1a etapa: 10 de março – Interlagos/);
    assert.doesNotMatch(cars, /calendario stock car 2018, stock car brasil/);
    const shots = await text(articleBenchmarkPages, 'abd9d629');
    assert.match(shots, /A group of physicians, alarmed that the Trump administration is denying flu vaccines/);
    assert.doesNotMatch(shots, /may earn an Affiliate Commission/);
    const wework = await text(articleBenchmarkPages, '06e5123e');
    assert.match(wework, /The New York State Attorney General \(NYAG\) is investigating WeWork/);
    assert.doesNotMatch(wework, /Reporting by Greg Roumeliotis/);
    const moon = await text(articleBenchmarkPages, 'c50845a7');
    assert.match(moon, /Today \(Nov\. 18\), NASA announced the selection of SpaceX/);
    assert.doesNotMatch(moon, /Image \d of 5|follow him @tariqjmalik/);
    assert.doesNotMatch(await text(articleBenchmarkPages, '9ebb3af6'), /^Sign In$/m);
  });

  test("the same words inside a sentence or in a page's own byline stay", async () => {
    // A heading "SIGN UP FOR OUR NEWSLETTER" (the words in a span of it) and LWN's "By Nathan Willis March 25, 2015" are kept by Readability's authors.
    assert.match(await text(readabilityPages, 'breitbart'), /SIGN UP FOR OUR NEWSLETTER/);
    assert.match(await text(readabilityPages, 'lwn-1'), /By Nathan Willis\s+March 25, 2015/);
  });
  test("hover cards and tooltips go, the link they hang on stays in its sentence", async () => {
    // Each politician's name is a link with a hidden card (photo, full name, latest headlines) inside the sentence.
    const t = await text(articleBenchmarkPages, '6ebac05f');
    assert.match(t, /threatened to kill Rep\. Ilhan Omar \(D-Minn\.\)/);
    assert.match(t, /Rep\. Alexandria Ocasio-Cortez \(D-N\.Y\.\) shortly after the arrest/);
    assert.doesNotMatch(t, /Hillicon Valley/);
    assert.doesNotMatch(await text(articleBenchmarkPages, '432362af'), /View author archive/);
  });
});
