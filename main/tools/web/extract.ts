import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';

export interface Extracted {
  title: string;
  markdown: string;
  text: string;
}

function absolutize(doc: Document, base: string): void {
  for (const [sel, attr] of [['a[href]', 'href'], ['img[src]', 'src'], ['source[src]', 'src'], ['link[href]', 'href']] as const) {
    for (const el of doc.querySelectorAll(sel)) {
      const v = el.getAttribute(attr);
      if (!v || v.startsWith('#') || /^(javascript|data|mailto):/i.test(v)) continue;
      try {
        el.setAttribute(attr, new URL(v, base).href);
      } catch {
        // Leave what cannot be parsed.
      }
    }
  }
}

function turndown(): TurndownService {
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  td.use(gfm);
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
  td.remove(['script', 'style', 'noscript']);
  return td;
}

/** Main content as GitHub-flavoured markdown (readability, then turndown), plus readable text. */
export function extract(html: string, baseUrl: string): Extracted {
  const { document } = parseHTML(html);
  absolutize(document as unknown as Document, baseUrl);
  const title = (document.querySelector('title')?.textContent ?? '').trim();
  const clone = parseHTML(document.toString()).document;
  let article: { title?: string | null; content?: string | null; textContent?: string | null } | null = null;
  try {
    article = new Readability(clone as unknown as Document, { charThreshold: 100, keepClasses: true }).parse();
  } catch {
    article = null;
  }
  const contentHtml = article?.content ?? document.querySelector('body')?.innerHTML ?? html;
  const markdown = turndown()
    .turndown(contentHtml)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const textSource = article?.textContent ?? document.querySelector('body')?.textContent ?? '';
  const text = textSource
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title: article?.title?.trim() || title, markdown, text };
}
