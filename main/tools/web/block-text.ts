/**
 * Plain text of a DOM subtree with the line structure a reader sees: block
 * elements (headings, paragraphs, list items, table rows…) on lines of their
 * own, paragraphs and headings set apart by a blank line, `<pre>` kept as is,
 * table cells separated by a tab. `textContent` would run them all together
 * ("Heading OneHello bold…").
 */

const BLOCK = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'CAPTION', 'DD', 'DETAILS', 'DIALOG', 'DIV', 'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE',
  'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HGROUP', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'SUMMARY',
  'TABLE', 'TBODY', 'TFOOT', 'THEAD', 'TR', 'UL',
]);
/** Blocks a reader sees set apart from their neighbours by space, not just a line break. */
const SPACED = new Set(['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'PRE', 'BLOCKQUOTE', 'TABLE', 'FIGURE', 'UL', 'OL', 'DL', 'HR']);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD']);

export const TEXT_NODE = 3;
export const ELEMENT_NODE = 1;

/** What of a DOM node (linkedom's or the browser's) reading its text needs. */
export interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

export function blockText(root: DomNode): string {
  // Break markers: \u0001 = line break, \u0002 = blank line; collapsed at the end so nesting never stacks them.
  const out: string[] = [];
  const walk = (node: DomNode, inPre: boolean): void => {
    if (node.nodeType === TEXT_NODE) {
      const t = node.textContent ?? '';
      // Inside <pre> every character counts: park its line breaks, spaces and tabs where the clean-up cannot touch them.
      out.push(inPre ? t.replace(/\n/g, '\u0003').replace(/ /g, '\u0004').replace(/\t/g, '\u0005') : t.replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) {
      for (const c of Array.from(node.childNodes)) walk(c, inPre);
      return;
    }
    const name = node.nodeName.toUpperCase();
    if (SKIP.has(name)) return;
    if (name === 'BR') return void out.push(inPre ? '\u0003' : '\u0001');
    if (name === 'TD' || name === 'TH') out.push('\t');
    const block = BLOCK.has(name);
    const mark = SPACED.has(name) ? '\u0002' : '\u0001';
    if (block) out.push(mark);
    for (const c of Array.from(node.childNodes)) walk(c, inPre || name === 'PRE');
    if (block) out.push(mark);
  };
  walk(root, false);
  return out
    .join('')
    .replace(/[ \t]*([\u0001\u0002]+)[ \t]*/g, (_m, marks: string) => (marks.includes('\u0002') ? '\n\n' : '\n'))
    .replace(/\n\t+/g, '\n')
    .replace(/\u00a0/g, ' ')
    .replace(/[ ]{2,}/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .replace(/\u0003/g, '\n')
    .replace(/\u0004/g, ' ')
    .replace(/\u0005/g, '\t');
}
