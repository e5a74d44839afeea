import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';
import { decodeHtml } from '../main/tools/web/decode.js';
import { blockText } from '../main/tools/web/block-text.js';
import { browserCandidates, PlaywrightRenderer, type PageRenderer, type RenderOptions } from '../main/tools/web/browser.js';
import { readHtmlPage } from '../main/tools/web/page-reading.js';
import { extract } from '../main/tools/web/extract.js';
import { rulesOff } from '../main/tools/web/boilerplate.js';
import { percentile } from './lib.js';
import { aggregate, pageF1, shingleCounts, type Counts, type Scores } from './article-score.js';
import { articleBenchmarkPages, missing, readabilityPages, SOURCES, type ArticlePage } from '../test/helpers/web-corpora.js';
import fs from 'node:fs';

/*
 * ReadDocs' extraction quality on real pages with a known main text, on both of its paths:
 * - fetched: the page's bytes decoded and extracted as ReadDocs does without a browser;
 * - rendered: the page rendered in Chromium at its own URL as ReadDocs renders it, the browser given
 *   the fetched document (RenderOptions.document) and every other request refused (every host,
 *   third-party or the page's own, is unreachable), then ReadDocs' own choice between the
 *   rendered and the fetched article (page-reading.ts). "Rendered as is" scores the rendered
 *   article before that choice.
 * Scored with the article-extraction benchmark's own rules (article-score.ts = its evaluate.py),
 * next to plain Readability run here on the same decoded page, and to the figures the
 * benchmark publishes for trafilatura and Readability.js.
 */

/** Figures the benchmark's README publishes (commit 4a3bc97, the one the corpus is read at). */
const PUBLISHED: { name: string; scores: Scores }[] = [
  { name: 'trafilatura 2.0.0 (published)', scores: { precision: 0.938, recall: 0.978, f1: 0.958 } },
  { name: 'Readability.js 0.6.0 (published)', scores: { precision: 0.914, recall: 0.982, f1: 0.947 } },
];

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Word-level F1 over the multiset of lower-cased words (kept for tests that compare two decodings of one page). */
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

function readability(html: string): string {
  const { document } = parseHTML(html);
  try {
    return new Readability(document as unknown as Document).parse()?.textContent ?? '';
  } catch {
    return '';
  }
}

function truthText(page: ArticlePage): string {
  // Readability's expected output is HTML; the benchmark's ground truth is already text.
  return page.corpus === 'readability-test-pages' ? blockText(parseHTML(`<!doctype html><html><body>${page.truth}</body></html>`).document.body) : page.truth;
}

interface PageResult {
  id: string;
  fetched: Counts;
  plain: Counts;
  rendered?: Counts;
  renderedAsIs?: Counts;
  from?: string;
  /** ReadDocs as shipped (READDOCS_RENDER=auto), and whether the browser ran for it. */
  auto?: Counts;
  autoRan?: boolean;
  renderMs?: number;
}

/** A renderer that remembers what it rendered and how long it took, for the report. */
class Timed implements PageRenderer {
  last?: { html: string; finalUrl: string; ms: number };
  constructor(private inner: PageRenderer) {}
  get name() {
    return this.inner.name;
  }
  async render(url: string, opts: RenderOptions) {
    const t0 = performance.now();
    this.last = undefined;
    const r = await this.inner.render(url, opts);
    this.last = { html: r.html, finalUrl: r.finalUrl, ms: performance.now() - t0 };
    return r;
  }
  close() {
    return this.inner.close();
  }
}

async function scoreCorpus(pages: ArticlePage[], renderer: Timed | undefined): Promise<PageResult[]> {
  const out: PageResult[] = [];
  for (const page of pages) {
    const truth = truthText(page);
    const decoded = (await decodeHtml(page.html, page.contentType)).text;
    const fetched = extract(decoded, page.url).text;
    const r: PageResult = { id: page.id, fetched: shingleCounts(truth, fetched), plain: shingleCounts(truth, readability(decoded)) };
    if (renderer) {
      const t0 = performance.now();
      // Every page rendered (READDOCS_RENDER=always), to score the rendered path on all of them.
      const reading = await readHtmlPage(decoded, page.url, { renderer, deadline: Date.now() + 30_000, waitMs: 0, asked: 'setting', links: 'references', mediaType: 'text/html' });
      r.renderMs = renderer.last?.ms ?? performance.now() - t0;
      r.from = reading.from;
      r.rendered = shingleCounts(truth, reading.extracted.text);
      r.renderedAsIs = renderer.last ? shingleCounts(truth, extract(renderer.last.html, renderer.last.finalUrl).text) : shingleCounts(truth, '');
      // As shipped (READDOCS_RENDER=auto): the browser only where the fetched page says it can change the answer.
      const auto = await readHtmlPage(decoded, page.url, { renderer, deadline: Date.now() + 30_000, waitMs: 0, links: 'references', mediaType: 'text/html' });
      r.auto = shingleCounts(truth, auto.extracted.text);
      r.autoRan = auto.render.ran;
      if (process.env.BENCH_READDOCS_SAVE && renderer.last) {
        fs.mkdirSync(process.env.BENCH_READDOCS_SAVE, { recursive: true });
        fs.writeFileSync(`${process.env.BENCH_READDOCS_SAVE}/${page.corpus}--${page.id}.html`, renderer.last.html);
      }
    }
    out.push(r);
  }
  return out;
}

const fmt = (s: Scores) => `${s.precision.toFixed(3)} | ${s.recall.toFixed(3)} | **${s.f1.toFixed(3)}**`;

function losses(results: PageResult[], pick: (r: PageResult) => Counts | undefined): string {
  const worse = results.filter((r) => pick(r) && pageF1(pick(r)!) < pageF1(r.plain) - 1e-9);
  return `${worse.length}${worse.length ? ` — ${worse.map((r) => `${r.id.slice(0, 12)} (${pageF1(pick(r)!).toFixed(3)} vs ${pageF1(r.plain).toFixed(3)})`).join(', ')}` : ''}`;
}

export function report(corpus: string, results: PageResult[]): string {
  const rendered = results.filter((r) => r.rendered);
  const rows: [string, Scores][] = [
    ['Pincer ReadDocs, fetched (no browser)', aggregate(results.map((r) => r.fetched))],
    ...(rendered.length
      ? ([
          ['Pincer ReadDocs with Chromium, as shipped (`READDOCS_RENDER=auto`)', aggregate(rendered.map((r) => r.auto!))],
          ['Pincer ReadDocs, every page rendered in Chromium (`always`, as the tool picks)', aggregate(rendered.map((r) => r.rendered!))],
          ['rendered article as is (before the pick)', aggregate(rendered.map((r) => r.renderedAsIs!))],
        ] as [string, Scores][])
      : []),
    ['plain Readability (same decoding, `textContent`)', aggregate(results.map((r) => r.plain))],
    ...(corpus === 'article-extraction-benchmark' ? PUBLISHED.map((p) => [p.name, p.scores] as [string, Scores]) : []),
  ];
  const lines = [`\n### ${corpus} (${results.length} pages)\n`, '| subject | precision | recall | F1 |', '| --- | ---: | ---: | ---: |', ...rows.map(([n, s]) => `| ${n} | ${fmt(s)} |`), ''];
  lines.push(`Pages scoring below plain Readability (page F1): fetched ${losses(results, (r) => r.fetched)}.`);
  if (rendered.length) {
    const ms = rendered.map((r) => r.renderMs!);
    const fell = rendered.filter((r) => r.from === 'fetched');
    lines.push(`Rendered, as the tool picks: ${losses(rendered, (r) => r.rendered)}.`);
    const ran = rendered.filter((r) => r.autoRan);
    lines.push(`As shipped, the browser ran on ${ran.length} of ${rendered.length} pages${ran.length ? ` (${ran.map((r) => r.id.slice(0, 12)).join(', ')})` : ''}.`);
    lines.push(`Every page rendered, the tool kept the fetched article on ${fell.length} of ${rendered.length} pages${fell.length ? ` (${fell.map((r) => r.id.slice(0, 12)).join(', ')})` : ''}.`);
    lines.push(`Render time per page (Chromium, third-party hosts unreachable): median ${(percentile(ms, 50) / 1000).toFixed(2)} s, p90 ${(percentile(ms, 90) / 1000).toFixed(2)} s, max ${(Math.max(...ms) / 1000).toFixed(2)} s; ${ms.filter((m) => m > 1500).length} pages over 1.5 s.`);
  }
  const text = lines.join('\n');
  process.stdout.write(text + '\n');
  return text;
}

/**
 * `BENCH_ONLY=readdocs npm run bench`. BENCH_READDOCS_PAGES limits the pages per corpus;
 * BENCH_READDOCS_RENDER=0 scores the fetched path only; BENCH_READDOCS_JSON=file writes per-page scores;
 * BENCH_READDOCS_CORPORA=readability or =article scores one corpus; BENCH_READDOCS_OFF=articles,widgets,…
 * switches extraction rules off by name (boilerplate.ts rulesOff), to measure each rule alone;
 * BENCH_READDOCS_SAVE=folder keeps each rendered DOM.
 */
export async function benchReadDocsQuality(): Promise<string> {
  const limit = Number(process.env.BENCH_READDOCS_PAGES ?? Infinity);
  const pick = process.env.BENCH_READDOCS_CORPORA;
  for (const rule of (process.env.BENCH_READDOCS_OFF ?? '').split(',').filter(Boolean)) rulesOff.add(rule);
  const corpora = ([
    [SOURCES.readability, readabilityPages],
    [SOURCES.articleBenchmark, articleBenchmarkPages],
  ] as [string, () => ArticlePage[]][]).filter(([repo]) => !pick || repo.includes(pick));
  const chromium = process.env.BENCH_READDOCS_RENDER === '0' ? undefined : (process.env.CHROMIUM_PATH ?? browserCandidates().find((c) => fs.existsSync(c)));
  const renderer = chromium ? new Timed(new PlaywrightRenderer(chromium, { onlyHosts: [] })) : undefined;
  if (!chromium) process.stdout.write('\nNo Chromium (or BENCH_READDOCS_RENDER=0): the rendered path is not scored.\n');
  const out: string[] = [];
  const perPage: Record<string, PageResult[]> = {};
  try {
    for (const [repo, load] of corpora) {
      const why = missing(repo);
      if (why) {
        process.stdout.write(`\nSkipped: ${why}\n`);
        out.push(`\nSkipped: ${why}`);
        continue;
      }
      const pages = load().slice(0, limit);
      const results = await scoreCorpus(pages, renderer);
      perPage[pages[0]?.corpus ?? repo] = results;
      out.push(report(pages[0]?.corpus ?? repo, results));
    }
  } finally {
    await renderer?.close();
  }
  if (process.env.BENCH_READDOCS_JSON) fs.writeFileSync(process.env.BENCH_READDOCS_JSON, JSON.stringify(perPage));
  return out.join('\n');
}
