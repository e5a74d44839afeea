import type { PageRenderer, RenderResult } from './browser.js';
import type { Extracted } from './extract.js';
import type { LinkStyle } from './link-styles.js';
import { blockText } from './block-text.js';
import { shingleList, shingles } from './shingles.js';
import { askedToRender, renderNeed, shellBeforeExtraction, SHELL_SHINGLES, type RenderAsked, type RenderDecision } from './render-need.js';
import type { RenderOutcome, RenderReason, RenderReport } from './render-report.js';

/** Where the text of an HTML page came from: the browser's DOM after scripts ran, or the bytes as fetched. */
export type PageSource = 'rendered' | 'fetched';

export interface PageReading {
  /** The page's HTML for format "html": the DOM after scripts ran when the browser rendered it, else as fetched. */
  html: string;
  finalUrl: string;
  extracted: Extracted;
  from: PageSource;
  /** The browser's name when the rendered page is shown, else "http". */
  renderedWith: string;
  render: RenderReport;
}

export interface ReadingOptions {
  renderer?: PageRenderer;
  /** When the call's time (READDOCS_TIMEOUT_MS, fetching included) is up: what is left of it is the render's budget. */
  deadline: number;
  /** The caller's extra wait after the page settled (wait_ms, capped by READDOCS_WAIT_MAX_MS). */
  waitMs: number;
  /** Rendering asked for whatever the page looks like: by the caller (any wait_ms) or READDOCS_RENDER=always. */
  asked?: RenderAsked;
  userAgent?: string;
  signal?: AbortSignal;
  links: LinkStyle;
  /** The fetched page's media type (text/html, application/xhtml+xml), for the browser that is given it. */
  mediaType?: string;
  /** Called once rendering is decided, before it starts (ReadDocs becomes a task then). */
  onRender?: () => Promise<unknown>;
}

export interface Judgement {
  use: PageSource;
  /** Share of the fetched article's shingles the rendered article keeps. */
  kept: number;
  /** Shingles of the rendered article, within the article as fetched, that the fetched page had nowhere: what scripts built. */
  built: number;
  /** Shingles of the rendered article that the fetched page had outside its article: text Readability left out there. */
  repicked: number;
  fetchedSize: number;
  why: 'shell' | 'lost-text' | 'adds-nothing' | 'repicked' | 'adds-text';
}

/**
 * Which article to show, judged without knowing the truth. Rendering is there for what scripts build, so the rendered
 * article is shown when the fetched page is a shell (next to no article), or when it keeps (nearly) all of the fetched
 * article and adds, within it, text the fetched page did not have anywhere. Otherwise the fetched article is shown: scripts took text
 * away (a consent wall, a paywall, an app that replaced the page), added nothing (the two are the same page), or the
 * rendered article grew mostly by text the fetched page had but its extraction left out (Readability picked a larger block
 * with the comments, widgets or link lists around the article). Being longer is no evidence: on the article-extraction
 * benchmark, a rule that took a rendered article 1.5 times longer picked junk.
 */
export function judgeRendering(rendered: Extracted, fetched: Extracted, fetchedPage: () => Map<string, number>): Judgement {
  const f = shingles(fetched.text);
  const r = shingleList(rendered.text);
  const total = [...f.values()].reduce((a, b) => a + b, 0);
  // In reading order: each rendered shingle is the fetched article's (while its count lasts), else new to it.
  const left = new Map(f);
  const fromFetched = r.map((k) => {
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    return n > 0;
  });
  const kept = total - [...left.values()].reduce((a, b) => a + b, 0);
  const share = total === 0 ? 1 : kept / total;
  const none = { kept: share, built: 0, repicked: 0, fetchedSize: total };
  if (total < SHELL_SHINGLES) return { ...none, use: 'rendered', why: 'shell' };
  if (share < KEEP_SHARE) return { ...none, use: 'fetched', why: 'lost-text' };
  // Text scripts add before or after the article as fetched is what pages put around articles (comments, reviews,
  // "more stories", banners); only what they add within it (a table filled in, a section built) counts as built.
  // "Within" leaves out the article's first and last few words (a button label under a comment thread, a dateline).
  const positions = fromFetched.flatMap((own, i) => (own ? [i] : []));
  const trim = Math.floor(positions.length * EDGE_SHARE);
  const first = positions[trim] ?? 0;
  const last = positions[positions.length - 1 - trim] ?? 0;
  const page = fetchedPage();
  const onPage = new Map<string, number>();
  for (const [k, n] of page) onPage.set(k, Math.max(0, n - (f.get(k) ?? 0)));
  let built = 0;
  let repicked = 0;
  r.forEach((k, i) => {
    if (fromFetched[i]) return;
    const n = onPage.get(k) ?? 0;
    if (n > 0) {
      onPage.set(k, n - 1);
      repicked++;
    } else if (i > first && i < last) built++;
  });
  const base = { kept: share, built, repicked, fetchedSize: total };
  if (built < Math.max(MIN_BUILT, total * MIN_BUILT_SHARE)) return { ...base, use: 'fetched', why: 'adds-nothing' };
  if (repicked > built) return { ...base, use: 'fetched', why: 'repicked' };
  return { ...base, use: 'rendered', why: 'adds-text' };
}
/** The share of the fetched article at either end that does not count as its inside (see judgeRendering). */
const EDGE_SHARE = 0.03;
const KEEP_SHARE = 0.9;
/**
 * What scripts must add to a full fetched article to count: a few sentences, and a tenth of the article. What scripts put
 * around an article that its HTML already holds (a date, a counter, a widget's caption, text a script writes out) is more
 * often noise than content; a page whose scripts build the content adds far more.
 */
const MIN_BUILT = 10;
const MIN_BUILT_SHARE = 0.1;

/** Less time than this left and the page is not rendered. */
const MIN_RENDER_MS = 1000;
/**
 * How long extraction waits for the browser to take the document before it runs: the browser is handed the page by
 * this process, which cannot answer it while it extracts; past this (the browser still starting) extraction goes first.
 */
const HANDOVER_WAIT_MS = 250;

/**
 * An HTML page's main content. The fetched page is parsed and judged first (render-need.ts): the browser runs only
 * where it can change the answer, and then its result is shown only where rendering does not make it worse
 * (judgeRendering). Where rendering is known before the article is extracted (asked for, or the page is a shell), the
 * browser starts first and the extraction runs while it loads the page.
 */
export async function readHtmlPage(html: string, finalUrl: string, o: ReadingOptions): Promise<PageReading> {
  const { extractParsed, parsePage } = await import('./extract.js');
  const page = parsePage(html);
  // The whole document, not `body`: linkedom can leave a page's text outside the body it reports (Readability's yahoo-3).
  const pageText = blockText(page.documentElement);
  const early = askedToRender(o.asked) ?? shellBeforeExtraction(page, pageText);
  let rendering = early ? await startRender(html, finalUrl, early, o) : undefined;
  if (rendering && 'promise' in rendering) await Promise.race([rendering.handedOver, rendering.promise.then(ignore, ignore), delay(HANDOVER_WAIT_MS)]);
  const fetched = extractParsed(page, html, finalUrl, o.links).extracted;
  const asFetched = (render: RenderReport, shownHtml = html): PageReading => ({ html: shownHtml, finalUrl, extracted: fetched, from: 'fetched', renderedWith: 'http', render });
  if (!rendering) {
    const need = renderNeed(page, fetched);
    if (!need.render) return asFetched({ ran: false, reason: need.why, outcome: null, ms: null, note: notRendered(need, o.renderer) });
    rendering = await startRender(html, finalUrl, need, o);
  }
  if (!('promise' in rendering)) return asFetched(rendering);
  const { reason, detail: why } = rendering;
  const name = o.renderer!.name;
  let r: RenderResult;
  try {
    r = await rendering.promise;
  } catch (err) {
    if (o.signal?.aborted) throw err;
    const report: RenderReport = { ran: true, reason, outcome: 'failed', ms: rendering.ms(), note: `the browser failed (${(err as Error).message.split('\n')[0]}); showing the page as fetched, scripts were not run` };
    return asFetched(report);
  }
  const ms = rendering.ms();
  const { extract } = await import('./extract.js');
  const rendered = extract(r.html, r.finalUrl, o.links);
  const judged = judgeRendering(rendered, fetched, () => shingles(pageText));
  const ran = (outcome: RenderOutcome, note: string): RenderReport => ({ ran: true, reason, outcome, ms, note });
  if (judged.use === 'rendered') return { html: r.html, finalUrl: r.finalUrl, extracted: rendered, from: 'rendered', renderedWith: name, render: ran('shown', `rendered in ${name} (${why}); showing the page after its scripts ran`) };
  if (judged.why === 'lost-text') return asFetched(ran('lost-text', `rendered in ${name} (${why}); after scripts ran the page kept only ${Math.round(judged.kept * 100)}% of its text as fetched, so it is shown as fetched`), r.html);
  if (judged.why === 'repicked') return asFetched(ran('repicked', `rendered in ${name} (${why}); after scripts ran, the article took in more of the page around it than the scripts added, so it is shown as fetched; format "html" shows the page after scripts ran`), r.html);
  return asFetched(ran('same', `rendered in ${name} (${why}); its scripts added nothing to the article, so it is shown as fetched`), r.html);
}

interface Rendering {
  reason: RenderReason;
  /** The reason in a sentence. */
  detail: string;
  promise: Promise<RenderResult>;
  /** Resolves once the browser has been handed the document. */
  handedOver: Promise<void>;
  ms(): number;
}

/** Starts the browser on the page, or says why it cannot (none, or no time left). */
async function startRender(html: string, finalUrl: string, need: RenderDecision, o: ReadingOptions): Promise<Rendering | RenderReport> {
  const { why: reason, detail } = need;
  if (!o.renderer) return { ran: false, reason: 'no-browser', outcome: null, ms: null, note: `no browser found, so scripts were not run (they would have been: ${detail}): install Chrome, Chromium or Edge, or set BROWSER_PATH` };
  const budget = o.deadline - Date.now();
  if (budget < MIN_RENDER_MS) return { ran: false, reason: 'no-time', outcome: null, ms: null, note: `fetching took most of READDOCS_TIMEOUT_MS, so the page was not rendered (${detail}); scripts were not run` };
  await o.onRender?.();
  const t0 = performance.now();
  let handed = (): void => undefined;
  const handedOver = new Promise<void>((resolve) => (handed = resolve));
  const promise = o.renderer.render(finalUrl, { waitMs: o.waitMs, timeoutMs: budget, userAgent: o.userAgent, signal: o.signal, document: { html, mediaType: o.mediaType ?? 'text/html' }, onHandedOver: () => handed() });
  // Awaited by readHtmlPage; until then a failure must not count as unhandled.
  promise.catch(ignore);
  return { reason, detail, promise, handedOver, ms: () => Math.round(performance.now() - t0) };
}

function notRendered(need: { why: 'complete' | 'no-scripts'; detail: string }, renderer: PageRenderer | undefined): string {
  // Scripts could add to a complete article in ways no reading of its HTML foresees: the way to ask for them is said.
  return renderer && need.why === 'complete' ? `not rendered: ${need.detail}; wait_ms renders it in ${renderer.name}` : `not rendered: ${need.detail}`;
}

function ignore(): void {
  // A render's failure is reported where it is awaited.
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
