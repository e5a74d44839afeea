import type { PageRenderer } from './browser.js';
import type { Extracted } from './extract.js';
import type { LinkStyle } from './link-styles.js';
import { lazyModule } from '../../core/lazy-module.js';
import { blockText } from './block-text.js';

/** Where the text of an HTML page came from: the browser's DOM after scripts ran, or the bytes as fetched. */
const linkedom = lazyModule<typeof import('linkedom')>('linkedom');

/** Where the text of an HTML page came from: the browser's DOM after scripts ran, or the bytes as fetched. */
export type PageSource = 'rendered' | 'fetched';

export interface PageReading {
  html: string;
  finalUrl: string;
  extracted: Extracted;
  from: PageSource;
  /** The browser's name when the rendered page is shown, else "http". */
  renderedWith: string;
  /** Why the fetched page is shown although a browser was there, for the answer's notes. */
  note?: string;
}

export interface ReadingOptions {
  renderer?: PageRenderer;
  /** Time left for rendering (the rest of READDOCS_TIMEOUT_MS) and the caller's extra wait. */
  timeoutMs: number;
  waitMs: number;
  userAgent?: string;
  signal?: AbortSignal;
  links: LinkStyle;
  /** The fetched page's media type (text/html, application/xhtml+xml), for the browser that is given it. */
  mediaType?: string;
}

const TOKEN = /[\p{L}\p{N}_]+/gu;

/** A text's 4-token shingles in reading order. */
function shingleList(text: string): string[] {
  const t = text.match(TOKEN) ?? [];
  const out: string[] = [];
  for (let i = 0; i + 4 <= t.length; i++) out.push(t.slice(i, i + 4).join(' '));
  return out;
}

function shingles(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of shingleList(text)) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}

/** The text a page shows anywhere (not only its article), as shingles: what the fetched HTML already had. */
export function pageShingles(html: string): Map<string, number> {
  const { document } = linkedom().parseHTML(html);
  return shingles(blockText(document.body ?? document.documentElement));
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
const SHELL_SHINGLES = 50;
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

/** Whether readHtmlPage will have the browser render the page (a browser, and time left for it). */
export function willRender(renderer: PageRenderer | undefined, timeoutMs: number): renderer is PageRenderer {
  return renderer !== undefined && timeoutMs >= 1000;
}

/**
 * An HTML page's main content: rendered by the browser when there is one and rendering does not make it worse,
 * else as fetched. The fetched page is extracted first, so a browser that fails or runs out of time costs nothing.
 */
export async function readHtmlPage(html: string, finalUrl: string, o: ReadingOptions): Promise<PageReading> {
  const { extract } = await import('./extract.js');
  const fetched = extract(html, finalUrl, o.links);
  const asFetched = (note?: string): PageReading => ({ html, finalUrl, extracted: fetched, from: 'fetched', renderedWith: 'http', note });
  if (!o.renderer) return asFetched();
  if (!willRender(o.renderer, o.timeoutMs)) return asFetched(`fetching took most of READDOCS_TIMEOUT_MS, so the page was not rendered; scripts were not run`);
  let r;
  try {
    r = await o.renderer.render(finalUrl, { waitMs: o.waitMs, timeoutMs: o.timeoutMs, userAgent: o.userAgent, signal: o.signal, document: { html, mediaType: o.mediaType ?? 'text/html' } });
  } catch (err) {
    if (o.signal?.aborted) throw err;
    return asFetched(`the browser failed (${(err as Error).message.split('\n')[0]}); showing the page as fetched, scripts were not run`);
  }
  const rendered = extract(r.html, r.finalUrl, o.links);
  const judged = judgeRendering(rendered, fetched, () => pageShingles(html));
  if (judged.use === 'rendered') return { html: r.html, finalUrl: r.finalUrl, extracted: rendered, from: 'rendered', renderedWith: o.renderer.name };
  if (judged.why === 'lost-text') return asFetched(`after scripts ran the page kept only ${Math.round(judged.kept * 100)}% of its text as fetched, so it is shown as fetched`);
  if (judged.why === 'repicked') return asFetched(`after scripts ran, the article took in more of the page around it than the scripts added, so it is shown as fetched; format "html" shows the page after scripts ran`);
  // Scripts added nothing to speak of: the same article, as fetched.
  return asFetched();
}
