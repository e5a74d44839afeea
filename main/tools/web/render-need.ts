import type { Extracted, ParsedPage } from './extract.js';
import { shingleCount, TOKEN } from './shingles.js';
import type { RenderReason } from './render-report.js';
import { ELEMENT_NODE, TEXT_NODE, type DomNode } from './block-text.js';

/*
 * Whether a browser can change what ReadDocs answers, decided from the page as fetched before any browser runs. The
 * rendered article is only ever shown when the fetched one is a shell or when scripts add text within it
 * (page-reading.ts judgeRendering); a complete article that nothing in the page fills in is answered as fetched, at the
 * fetched path's speed. Signs of a page built by scripts are read from its HTML: no guessing by site names.
 */

/** A reason to render, with the sentence that says it (the answer's notes). */
export type RenderDecision = { render: true; why: RenderReason; detail: string };
export type RenderNeed = RenderDecision | { render: false; why: 'complete' | 'no-scripts'; detail: string };

const SHELL: RenderDecision = { render: true, why: 'shell', detail: 'the fetched page had next to no text without its scripts' };

/** Fewer shingles than this and the fetched article is a shell: whatever scripts build is all there is (judgeRendering shows it). */
export const SHELL_SHINGLES = 50;
/** An article this short on a page that carries an app's mount point or asks for JavaScript is taken for what the server sent before the app. */
const THIN_SHINGLES = 300;
/** Words on each side of a placeholder that must be the article's own for it to count as within the article. */
const CONTEXT_WORDS = 4;

/** Ids single-page-app frameworks mount into (React's and Vue's usual ones, Next, Nuxt, Gatsby, Svelte, Angular's root). */
const MOUNT_SELECTOR = '#root, #app, #__next, #__nuxt, #___gatsby, #svelte, #react-root, #main-app, app-root, [ng-app], [data-reactroot]';
/** A <noscript> that tells the reader the page needs JavaScript. */
const ASKS_FOR_JS = /\b(enable|turn on|activate|allow|switch on)\b.{0,40}\bjava\s?script\b|\bjava\s?script\b.{0,40}\b(required|disabled|needed|necessary|must be enabled|is off)\b|\b(requires?|needs?)\b.{0,20}\bjava\s?script\b/i;
/** A block whose whole text says it is waiting for something to load. */
const LOADING = /^(loading|please wait|one moment|chargement|cargando|wird geladen|caricamento)\b[\s.…]*$/i;
/** Template markup left for a script to fill in (Vue, Angular, Handlebars placeholders) and the attributes that hide it until then. */
const TEMPLATE = /\{\{[^{}]{1,80}\}\}/;
const CLOAK = ['v-cloak', 'ng-cloak', 'x-cloak'];
/** Embeds that write their content in place with document.write (a GitHub gist is code a technical post shows). */
const WRITING_EMBED = /^https?:\/\/gist\.github\.com\//i;
/** Ids a page's own inline scripts look up (getElementById, querySelector('#…'), jQuery's $('#…'))… */
const ID_LOOKUPS = [/getElementById\(\s*(['"`])([^'"`\s]{1,80})\1/g, /querySelector(?:All)?\(\s*(['"`])#([\w-]{1,80})/g, /\$\(\s*(['"`])#([\w-]{1,80})/g];
/** …in a script that writes content (not one that only sets an attribute or a class on what it found). */
const WRITES_CONTENT = /\.(innerHTML|outerHTML|textContent|innerText|insertAdjacentHTML|insertAdjacentText|appendChild|append|prepend|replaceChildren|html|text)\s*(=[^=]|\()/;
/** What a script would write with document.write must be more than markup (an ad tag writes only a script): a few sentences, as judgeRendering asks of built text. */
const WRITTEN_WORDS = 13;

const JS_TYPES = new Set(['', 'module', 'text/javascript', 'application/javascript', 'text/ecmascript', 'application/ecmascript', 'application/x-javascript', 'text/jscript']);

/** A node as the placeholder walk reads it: its text, and an element's attributes. */
interface ScannedNode extends DomNode {
  childNodes: ArrayLike<ScannedNode>;
  getAttribute?(name: string): string | null;
  hasAttribute?(name: string): boolean;
  querySelector?(selector: string): ScannedNode | null;
}

/** Rendering asked for by the caller (wait_ms) or the settings (READDOCS_RENDER=always). */
export type RenderAsked = 'wait_ms' | 'setting';

/** Asked for: rendered whatever the page looks like. */
export function askedToRender(asked: RenderAsked | undefined): RenderDecision | undefined {
  if (asked === 'wait_ms') return { render: true, why: 'wait_ms', detail: 'wait_ms asked for it' };
  if (asked === 'setting') return { render: true, why: 'setting', detail: 'READDOCS_RENDER is always' };
  return undefined;
}

function isScript(el: ScannedNode): boolean {
  const type = (el.getAttribute?.('type') ?? '').split(';')[0]!.trim().toLowerCase();
  return JS_TYPES.has(type);
}

/** The page's scripts: inline ones' text and the addresses of the others. */
function scriptsOf(page: ParsedPage): { inline: string[]; src: string[] } {
  const inline: string[] = [];
  const src: string[] = [];
  for (const s of Array.from(page.querySelectorAll('script'))) {
    if (!isScript(s)) continue;
    const at = s.getAttribute?.('src');
    if (at) src.push(at);
    else if ((s.textContent ?? '').trim()) inline.push(s.textContent ?? '');
  }
  return { inline, src };
}

/**
 * A shell known before Readability is asked: the whole page (`pageText`, its block text) has less text than a shell's
 * article, and scripts. The article is part of the page, so renderNeed would say the same after extraction.
 */
export function shellBeforeExtraction(page: ParsedPage, pageText: string): RenderDecision | undefined {
  if (shingleCount(pageText) >= SHELL_SHINGLES) return undefined;
  const scripts = scriptsOf(page);
  return scripts.inline.length + scripts.src.length > 0 ? SHELL : undefined;
}

/**
 * Whether to render, from the fetched page and its article: a shell, a thin article on a page with an app's empty mount
 * point or a <noscript> asking for JavaScript, or a placeholder within the article (a "Loading…" block, template markup,
 * an empty element the page's own script fills in, a script that writes where it stands).
 */
export function renderNeed(page: ParsedPage, fetched: Extracted): RenderNeed {
  const scripts = scriptsOf(page);
  if (scripts.inline.length + scripts.src.length === 0) return { render: false, why: 'no-scripts', detail: 'the page has no scripts' };
  const size = shingleCount(fetched.text);
  if (size < SHELL_SHINGLES) return SHELL;
  if (size < THIN_SHINGLES) {
    const layout = appLayout(page);
    if (layout) return { render: true, why: 'script-built', detail: `the fetched article was short and the page ${layout}` };
  }
  const waiting = placeholderWithin(page, fetched.text, scripts.inline);
  if (waiting) return { render: true, why: 'placeholder', detail: `the article holds ${waiting}` };
  return { render: false, why: 'complete', detail: 'the fetched page holds the article and nothing in it waits for scripts' };
}

/** What shows that an app builds the page: an empty mount point, or a <noscript> asking for JavaScript. */
function appLayout(page: ParsedPage): string | undefined {
  for (const el of Array.from(page.querySelectorAll(MOUNT_SELECTOR))) {
    const text = (el.textContent ?? '').trim();
    if (!text || LOADING.test(text)) return 'has an empty app mount point';
  }
  for (const el of Array.from(page.querySelectorAll('noscript'))) {
    // linkedom keeps a <noscript>'s content as markup text (scripting is on): its words are what a reader without scripts sees.
    const text = (el.textContent ?? '').replace(/<[^>]*>/g, ' ');
    if (ASKS_FOR_JS.test(text)) return 'asks for JavaScript';
  }
  return undefined;
}

/** The ids the page's inline scripts look up to write content into. */
function lookedUp(inline: string[]): Set<string> {
  const ids = new Set<string>();
  for (const code of inline) if (WRITES_CONTENT.test(code)) for (const re of ID_LOOKUPS) for (const m of code.matchAll(re)) ids.add(m[2]!);
  return ids;
}

/** Whether a script's document.write calls would write text a reader sees: its string literals joined, less the markup. */
function writesText(code: string): boolean {
  if (!/document\.write(ln)?\s*\(/.test(code)) return false;
  const literals = [...code.matchAll(/(['"])((?:\\.|(?!\1)[^\\\n])*)\1/g)].map((m) => m[2]!.replace(/\\(.)/g, '$1')).join('');
  // Markup, and the addresses and parameters ad tags are made of, are not text a reader sees.
  const text = literals.replace(/<script[\s\S]*?(<\/script>|$)/gi, ' ').replace(/<[^>]*(>|$)/g, ' ').replace(/\S*(:\/\/|[=?&/]|\.\w)\S*/g, ' ');
  return words(text).length >= WRITTEN_WORDS;
}

function words(text: string): string[] {
  return (text.match(TOKEN) ?? []).map((w) => w.toLowerCase());
}

/**
 * The first placeholder that stands within the article: its words before and after (CONTEXT_WORDS each) are the
 * article's own. Placeholders before or after the article (a comment widget, a "Loading comments…") change nothing
 * judgeRendering would show.
 */
function placeholderWithin(page: ParsedPage, article: string, inline: string[]): string | undefined {
  // The whole document (see page-reading.ts: the body linkedom reports can be empty while the page has text).
  const root: ScannedNode | null = page.documentElement;
  if (!root) return undefined;
  const ids = lookedUp(inline);
  const seen: string[] = [];
  const found: { what: string; start: number; end: number }[] = [];
  const walk = (node: ScannedNode, inCode: boolean): void => {
    if (node.nodeType === TEXT_NODE) {
      const t = node.textContent ?? '';
      if (!inCode && TEMPLATE.test(t)) found.push({ what: 'template markup', start: seen.length, end: seen.length + words(t).length });
      // One at a time: a text node can hold more words than a call may take arguments.
      for (const w of words(t)) seen.push(w);
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const name = node.nodeName.toUpperCase();
    if (name === 'SCRIPT') {
      const src = node.getAttribute?.('src') ?? '';
      if (isScript(node) && (WRITING_EMBED.test(src) || (!src && writesText(node.textContent ?? '')))) found.push({ what: src ? 'a script embed that writes in place' : 'a script that writes in place', start: seen.length, end: seen.length });
      return;
    }
    if (name === 'STYLE' || name === 'NOSCRIPT' || name === 'TEMPLATE' || name === 'HEAD') return;
    const start = seen.length;
    const id = node.getAttribute?.('id');
    const children = Array.from(node.childNodes);
    // Text is read only where it is asked about (an element an inline script fills, a leaf block): every element's
    // textContent would cost the walk its subtree each time.
    let what: string | undefined;
    if (id && ids.has(id) && !(node.textContent ?? '').trim() && !node.querySelector?.('img, picture, video, svg, canvas, iframe')) what = `an empty element its script fills in (#${id})`;
    else if (CLOAK.some((a) => node.hasAttribute?.(a))) what = 'template markup';
    else if (children.length && children.every((c) => c.nodeType === TEXT_NODE)) {
      const text = (node.textContent ?? '').trim();
      if (text.length < 40 && LOADING.test(text)) what = `a "${text}" placeholder`;
    }
    for (const c of children) walk(c, inCode || name === 'PRE' || name === 'CODE');
    if (what) found.push({ what, start, end: seen.length });
  };
  walk(root, false);
  if (!found.length) return undefined;
  const own = ` ${words(article).join(' ')} `;
  const inArticle = (ws: string[]) => ws.length === CONTEXT_WORDS && own.includes(` ${ws.join(' ')} `);
  return found.find((f) => inArticle(seen.slice(Math.max(0, f.start - CONTEXT_WORDS), f.start)) && inArticle(seen.slice(f.end, f.end + CONTEXT_WORDS)))?.what;
}
