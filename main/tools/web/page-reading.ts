import type { PageRenderer } from './browser.js';
import type { Extracted } from './extract.js';
import type { LinkStyle } from './link-styles.js';

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
}

const TOKEN = /[\p{L}\p{N}_]+/gu;

function shingles(text: string): Map<string, number> {
  const t = text.match(TOKEN) ?? [];
  const out = new Map<string, number>();
  for (let i = 0; i + 4 <= t.length; i++) {
    const k = t.slice(i, i + 4).join(' ');
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

/**
 * Whether the rendered page's article is at least as good as the fetched page's, judged without knowing the truth:
 * rendering is there to add what scripts build, so the rendered article wins when it keeps (nearly) all of the fetched
 * article's text, or when the fetched page had next to none (a script-built page whose HTML is a shell). Otherwise
 * scripts took text away or Readability picked another block (a consent wall, a paywall, a lazy page that unloaded its
 * article, comments or a widget that outgrew the article) and the fetched page is shown. Being longer is no evidence:
 * on the article-extraction benchmark, a rule that also took a rendered article 1.5 times longer picked junk.
 */
export function renderedIsBetter(rendered: Extracted, fetched: Extracted): { better: boolean; kept: number } {
  const f = shingles(fetched.text);
  const r = shingles(rendered.text);
  let total = 0;
  let kept = 0;
  for (const [k, n] of f) {
    total += n;
    kept += Math.min(n, r.get(k) ?? 0);
  }
  const share = total === 0 ? 1 : kept / total;
  return { better: total < 50 || share >= 0.9, kept: share };
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
  if (o.timeoutMs < 1000) return asFetched(`fetching took most of READDOCS_TIMEOUT_MS, so the page was not rendered; scripts were not run`);
  let r;
  try {
    r = await o.renderer.render(finalUrl, { waitMs: o.waitMs, timeoutMs: o.timeoutMs, userAgent: o.userAgent, signal: o.signal });
  } catch (err) {
    if (o.signal?.aborted) throw err;
    return asFetched(`the browser failed (${(err as Error).message.split('\n')[0]}); showing the page as fetched, scripts were not run`);
  }
  const rendered = extract(r.html, r.finalUrl, o.links);
  const judged = renderedIsBetter(rendered, fetched);
  if (judged.better) return { html: r.html, finalUrl: r.finalUrl, extracted: rendered, from: 'rendered', renderedWith: o.renderer.name };
  return asFetched(`after scripts ran the page kept only ${Math.round(judged.kept * 100)}% of its text as fetched, so it is shown as fetched`);
}
