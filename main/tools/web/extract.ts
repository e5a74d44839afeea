import type TurndownService from 'turndown';
import { lazyModule } from '../../core/lazy-module.js';
import { blockText } from './block-text.js';
import { cleanArticle, rulesOff } from './boilerplate.js';
import type { LinkStyle } from './link-styles.js';

// Loaded on the first page read: a process that reads none never parses them.
const linkedom = lazyModule<typeof import('linkedom')>('linkedom');
const readability = lazyModule<typeof import('@mozilla/readability')>('@mozilla/readability');
const turndownModule = lazyModule<typeof import('turndown')>('turndown');
const gfmPlugin = lazyModule<typeof import('@joplin/turndown-plugin-gfm')>('@joplin/turndown-plugin-gfm');
const parseHTML = (html: string) => linkedom().parseHTML(html);

export interface Extracted {
  title: string;
  markdown: string;
  text: string;
}

/**
 * The URL relative links of the page resolve against: its `<base href>` (itself relative to the page's final URL),
 * else the final URL. Browsers do the same; a model can only follow absolute links.
 */
export function documentBase(doc: Document, finalUrl: string): string {
  const declared = doc.querySelector('base[href]')?.getAttribute('href')?.trim();
  if (declared && URL.canParse(declared, finalUrl)) {
    const u = new URL(declared, finalUrl);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.href;
  }
  return finalUrl;
}

/**
 * Resolves links against the base. `keepAnchors` leaves links to a place on the page itself ("#notes") as they are:
 * Readability counts those at a third of their length when it judges link density (a table of contents, footnote
 * marks), so they are resolved only after it ran.
 */
function absolutize(doc: Pick<Document, 'querySelectorAll'>, base: string, keepAnchors = false): void {
  for (const [sel, attr] of [['a[href]', 'href'], ['img[src]', 'src'], ['source[src]', 'src'], ['link[href]', 'href']] as const) {
    for (const el of doc.querySelectorAll(sel)) {
      const v = el.getAttribute(attr)?.trim();
      if (!v || /^(javascript|data|mailto|tel):/i.test(v) || (keepAnchors && v.startsWith('#'))) continue;
      if (URL.canParse(v, base)) el.setAttribute(attr, new URL(v, base).href);
    }
  }
}

interface TreeNode {
  nodeType: number;
  childNodes: ArrayLike<TreeNode>;
  remove(): void;
}

/**
 * Drops HTML comments. Readability wraps runs of inline content in paragraphs and a comment ends a run, so
 * `Page <!-- -->A<!-- -->22` (a framework's text joints) came out as three paragraphs, "A" and "22" apart.
 */
function removeComments(node: TreeNode): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === 8) child.remove();
    else if (child.childNodes.length) removeComments(child);
  }
}

function turndown(links: LinkStyle, page: string): { td: TurndownService; references: string[] } {
  const td = new (turndownModule())({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  td.use(gfmPlugin().gfm);
  /** Link targets by placeholder id (see numberReferences). */
  const references: string[] = [];
  // Code blocks keep their language from the usual class names (language-x, lang-x, highlight-source-x).
  td.addRule('fencedWithLanguage', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const el = node as HTMLElement;
      const code = el.querySelector('code') ?? el;
      const cls = `${code.getAttribute('class') ?? ''} ${el.getAttribute('class') ?? ''} ${el.parentElement?.getAttribute('class') ?? ''}`;
      const lang = /(?:language|lang|highlight-source|brush:)-?\s*([A-Za-z0-9_+#-]+)/.exec(cls)?.[1] ?? el.getAttribute('data-lang') ?? '';
      const text = (code.textContent ?? '').replace(/\n$/, '');
      const fence = text.includes('```') ? '~~~~' : '```';
      return `\n\n${fence}${lang}\n${text}\n${fence}\n\n`;
    },
  });
  if (links !== 'inline') {
    // Links get a placeholder here and their numbers at the end, in reading order, so that links turndown drops
    // (or leaves inside a table it keeps as HTML) do not leave gaps in the numbering.
    const ids = new Map<string, number>();
    td.addRule('leanLinks', {
      filter: (node) => node.nodeName === 'A' && Boolean((node as HTMLElement).getAttribute('href')),
      replacement: (content, node) => {
        const href = (node as HTMLElement).getAttribute('href') ?? '';
        const text = content.trim();
        // Anchors within the page and links without text add nothing a model can use.
        if (links === 'text' || !text || !/^https?:/i.test(href) || samePage(href, page)) return content;
        let id = ids.get(href);
        if (id === undefined) {
          id = references.length;
          ids.set(href, id);
          references.push(href);
        }
        return `[${text}][\u0000${id}\u0000]`;
      },
    });
    td.addRule('leanImages', {
      filter: 'img',
      replacement: (_content, node) => {
        const alt = ((node as HTMLElement).getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim();
        return alt ? `[image: ${alt}]` : '';
      },
    });
  }
  td.remove(['script', 'style', 'noscript']);
  return { td, references };
}

/** Whether a link only moves within the page itself (an anchor). */
function samePage(href: string, page: string): boolean {
  if (!URL.canParse(href) || !URL.canParse(page)) return false;
  const a = new URL(href);
  const b = new URL(page);
  a.hash = '';
  b.hash = '';
  return a.href === b.href;
}

/** Numbers link placeholders in reading order and lists each URL once, at the end. */
function numberReferences(markdown: string, targets: string[]): string {
  const numbers = new Map<number, number>();
  const body = markdown.replace(/\u0000(\d+)\u0000/g, (_m, id: string) => {
    const key = Number(id);
    if (!numbers.has(key)) numbers.set(key, numbers.size + 1);
    return String(numbers.get(key));
  });
  if (numbers.size === 0) return body;
  return `${body}\n\n${[...numbers].map(([id, n]) => `[${n}]: ${targets[id]!}`).join('\n')}`;
}

/** The parsed page an extraction read, links resolved (Readability ran on a copy), for what else is asked of it. */
export type ParsedPage = ReturnType<typeof parseHTML>['document'];

/**
 * Main content as GitHub-flavoured markdown (Readability, then turndown) and
 * as plain text with one block a line. Readability runs with its default
 * threshold (500 characters): a lower one lets a cookie banner or newsletter
 * box beat the article.
 */
export function extract(html: string, baseUrl: string, links: LinkStyle = 'references'): Extracted {
  return extractPage(html, baseUrl, links).extracted;
}

/** `extract`, with the parsed page kept (parsing is a good part of the cost, and deciding about rendering reads it too). */
export function extractPage(html: string, baseUrl: string, links: LinkStyle = 'references'): { extracted: Extracted; page: ParsedPage } {
  return extractParsed(parseHTML(html).document, html, baseUrl, links);
}

/** `extractPage` on a page already parsed (`parsePage`). */
export function extractParsed(document: ParsedPage, html: string, baseUrl: string, links: LinkStyle = 'references'): { extracted: Extracted; page: ParsedPage } {
  const base = documentBase(document as unknown as Document, baseUrl);
  absolutize(document as unknown as Document, base, !rulesOff.has('anchors'));
  const title = (document.querySelector('title')?.textContent ?? '').trim();
  const clone = parseHTML(document.toString()).document;
  if (!rulesOff.has('comments')) removeComments(clone as unknown as TreeNode);
  absolutize(document as unknown as Document, base);
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new (readability().Readability)(clone as unknown as Document, { keepClasses: true }).parse();
  } catch {
    // Readability throws on some malformed documents: the whole body is used below instead.
    article = null;
  }
  let contentHtml = article?.content ?? document.querySelector('body')?.innerHTML ?? html;
  if (article?.content) {
    const content = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body;
    absolutize(content, base);
    cleanArticle(content);
    contentHtml = content.innerHTML;
  }
  const { td, references } = turndown(links, baseUrl);
  let converted = td.turndown(contentHtml);
  // Tables markdown cannot hold (spans, nesting) come back as HTML, URLs and all; lean output shows them as text rows.
  if (links !== 'inline') converted = converted.replace(/<div class="joplin-table-wrapper">([\s\S]*?<\/table>)<\/div>/g, (_m, table: string) => blockText(parseHTML(`<!doctype html><html><body>${table}</body></html>`).document.body));
  const markdown = numberReferences(converted.replace(/\n{3,}/g, '\n\n').trim(), references);
  const text = blockText(parseHTML(`<!doctype html><html><body>${contentHtml}</body></html>`).document.body);
  return { extracted: { title: article?.title?.trim() || title, markdown, text }, page: document };
}

export function parsePage(html: string): ParsedPage {
  return parseHTML(html).document;
}
