import MarkdownIt from 'markdown-it';

/** html: false escapes any HTML in the source; markdown-it also refuses javascript: and data: links. */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

export function renderMarkdown(text: string): string {
  return md.render(text);
}
