import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';
import { extract } from '../main/tools/web/extract.js';
import { decodeHtml } from '../main/tools/web/decode.js';
import { blockText } from '../main/tools/web/block-text.js';
import { percentile } from './lib.js';
import { articleBenchmarkPages, missing, readabilityPages, SOURCES, type ArticlePage } from '../test/helpers/web-corpora.js';

/*
 * ReadDocs' extraction quality on real article pages with known main text,
 * scored by word-level F1 against the ground truth, next to plain
 * Readability run in this same process on the same pages:
 * - "plain Readability" gets the page decoded exactly as Pincer decodes it,
 *   and its textContent is scored: the difference is Pincer's own work;
 * - "plain Readability, UTF-8" gets the bytes decoded as UTF-8, as
 *   `await response.text()` does: what a naive pipeline sees;
 * - "Pincer before" is what ReadDocs did before issue 15 (charThreshold 100,
 *   every page read as UTF-8, textContent as text).
 */

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Word-level F1: precision and recall over the multiset of words. */
export function wordF1(truth: string, predicted: string): number {
  const t = words(truth);
  const p = words(predicted);
  if (t.length === 0 && p.length === 0) return 1;
  if (t.length === 0 || p.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const w of t) counts.set(w, (counts.get(w) ?? 0) + 1);
  let overlap = 0;
  for (const w of p) {
    const c = counts.get(w) ?? 0;
    if (c > 0) {
      overlap++;
      counts.set(w, c - 1);
    }
  }
  if (overlap === 0) return 0;
  const precision = overlap / p.length;
  const recall = overlap / t.length;
  return (2 * precision * recall) / (precision + recall);
}

function readability(html: string, opts: { charThreshold?: number } = {}): string {
  const { document } = parseHTML(html);
  try {
    return new Readability(document as unknown as Document, opts).parse()?.textContent ?? '';
  } catch {
    return '';
  }
}

function truthText(page: ArticlePage): string {
  // Readability's expected output is HTML; the benchmark's ground truth is already text.
  return page.corpus === 'readability-test-pages' ? blockText(parseHTML(`<!doctype html><html><body>${page.truth}</body></html>`).document.body) : page.truth;
}

export interface PageScore {
  id: string;
  pincer: number;
  plain: number;
  plainUtf8: number;
  before: number;
  /** Characters of markdown: links inline, as references, as text only. */
  inlineChars: number;
  referenceChars: number;
  textLinkChars: number;
  /** Characters of inline markdown inside link and image targets `(…)`. */
  urlChars: number;
}

export async function scorePage(page: ArticlePage): Promise<PageScore> {
  const truth = truthText(page);
  const decoded = (await decodeHtml(page.html, page.contentType)).text;
  const utf8 = page.html.toString('utf8');
  const ex = extract(decoded, page.url);
  const inline = extract(decoded, page.url, 'inline').markdown;
  const beforeArticle = (() => {
    const { document } = parseHTML(utf8);
    try {
      return new Readability(document as unknown as Document, { charThreshold: 100 }).parse()?.textContent ?? '';
    } catch {
      return '';
    }
  })();
  return {
    id: page.id,
    pincer: wordF1(truth, ex.text),
    plain: wordF1(truth, readability(decoded)),
    plainUtf8: wordF1(truth, readability(utf8)),
    before: wordF1(truth, beforeArticle),
    inlineChars: inline.length,
    referenceChars: ex.markdown.length,
    textLinkChars: extract(decoded, page.url, 'text').markdown.length,
    urlChars: [...inline.matchAll(/\]\((<?[a-z]+:[^)\s]*)/gi)].reduce((n, m) => n + m[1]!.length + 2, 0),
  };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

export function report(corpus: string, scores: PageScore[]): { text: string; losses: PageScore[] } {
  const row = (name: string, xs: number[]) => `| ${name} | ${xs.length} | ${mean(xs).toFixed(4)} | ${percentile(xs, 50).toFixed(4)} |`;
  const losses = scores.filter((s) => s.pincer < s.plain - 1e-9);
  const lossesUtf8 = scores.filter((s) => s.pincer < s.plainUtf8 - 1e-9);
  const urlShare = mean(scores.map((s) => (s.inlineChars ? s.urlChars / s.inlineChars : 0)));
  const lines = [
    `\n### ReadDocs extraction quality: ${corpus}\n`,
    '| subject | pages | mean word F1 | median word F1 |',
    '| --- | ---: | ---: | ---: |',
    row('Pincer ReadDocs (text)', scores.map((s) => s.pincer)),
    row('plain Readability (same decoding)', scores.map((s) => s.plain)),
    row('plain Readability, UTF-8', scores.map((s) => s.plainUtf8)),
    row('Pincer before (charThreshold 100, UTF-8)', scores.map((s) => s.before)),
    '',
    `Pages where Pincer scores below plain Readability (same decoding): ${losses.length}${losses.length ? ` — ${losses.map((s) => `${s.id} (${s.pincer.toFixed(3)} vs ${s.plain.toFixed(3)})`).join(', ')}` : ''}.`,
    `Pages where Pincer scores below plain Readability on UTF-8: ${lossesUtf8.length}${lossesUtf8.length ? ` — ${lossesUtf8.map((s) => `${s.id} (${s.pincer.toFixed(3)} vs ${s.plainUtf8.toFixed(3)})`).join(', ')}` : ''}.`,
    `Markdown size: link and image URLs are ${(urlShare * 100).toFixed(1)}% of inline markdown (mean per page); ` +
      `references (the default) is ${((1 - mean(scores.map((s) => s.referenceChars / Math.max(1, s.inlineChars)))) * 100).toFixed(1)}% shorter, ` +
      `text-only links ${((1 - mean(scores.map((s) => s.textLinkChars / Math.max(1, s.inlineChars)))) * 100).toFixed(1)}% shorter.`,
  ];
  const text = lines.join('\n');
  process.stdout.write(text + '\n');
  return { text, losses };
}

/** `npm run bench` with BENCH_ONLY=readdocs. BENCH_READDOCS_PAGES limits the pages per corpus. */
export async function benchReadDocsQuality(): Promise<string> {
  const limit = Number(process.env.BENCH_READDOCS_PAGES ?? Infinity);
  const corpora: [string, () => ArticlePage[]][] = [
    [SOURCES.readability, readabilityPages],
    [SOURCES.articleBenchmark, articleBenchmarkPages],
  ];
  const out: string[] = [];
  let worse = 0;
  for (const [repo, load] of corpora) {
    const why = missing(repo);
    if (why) {
      process.stdout.write(`\nSkipped: ${why}\n`);
      out.push(`\nSkipped: ${why}`);
      continue;
    }
    const pages = load().slice(0, limit);
    const scores = await Promise.all(pages.map(scorePage));
    const r = report(pages[0]?.corpus ?? repo, scores);
    if (mean(scores.map((s) => s.pincer)) < mean(scores.map((s) => s.plain))) worse++;
    out.push(r.text);
  }
  if (worse) throw new Error(`ReadDocs scores below plain Readability on ${worse} corpus/corpora`);
  return out.join('\n');
}
