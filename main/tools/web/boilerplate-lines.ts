/*
 * Single lines around an article that are the site talking, not the article: a lone "Advertisement" or "Sign in", a
 * tag list, wire credits ("Reporting by …"), "follow us", cookie and affiliate notices, a
 * slideshow counter. Each is a short block (a paragraph, list item or heading with no blocks inside) whose text has
 * one of these shapes; a longer block that merely mentions the words is the article's own. Measured one by one on
 * both corpora (bench/readdocs-quality.ts, BENCH_READDOCS_OFF=line-<name>): none changes a page of Readability's test
 * corpus. Other shapes tried and left out there (they are the same on the pages Readability's authors keep them):
 * "Updated/Posted <date>" lines, "By <name> <date>" bylines, "Related: …" / "Read more: …" links, newsletter sign-ups, captions with a credit.
 */

interface Node {
  tagName: string;
  textContent: string | null;
  querySelector(selector: string): Node | null;
  querySelectorAll(selector: string): ArrayLike<Node>;
  getAttribute(name: string): string | null;
  remove(): void;
}

/** Blocks only: a phrase inside a sentence (a span, a link) is the sentence's. */
const LEAF_BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, div, dt, dd';
const INNER_BLOCKS = 'p, li, div, section, article, ul, ol, table, h1, h2, h3, h4, h5, h6, figure, blockquote, pre';

const words = (s: string) => s.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;

interface Line {
  text: string;
  words: number;
  linkWords: number;
  /** Links marked as tags (rel="tag", the microformat blogs use). */
  tagLinks: number;
}

/** Shapes of boilerplate lines, by name (the name switches one off for measuring: rulesOff "line-<name>"). */
const LINE_RULES: Record<string, (l: Line) => boolean> = {
  // The whole block is one interface word.
  ui: (l) => /^(sign in|log in|login|sign up|register|subscribe|advertisement|advert|anzeige|werbung|publicidad|publicité|pubblicità|reklama|iklan|广告|広告|skip to (main )?content)$/i.test(l.text),
  // "Tags: a, b, c" with the items linked (the label often runs into the first tag: "Tags<br>a"), or links marked rel=tag.
  tags: (l) => (/^(tags?|tagged( with)?|topics?|categories|filed under|keywords)/i.test(l.text) || l.tagLinks > 0) && l.linkWords > 0 && l.linkWords >= (l.words - 3) / 2,
  credits: (l) => l.words <= 40 && /^\(?(reporting|additional reporting|editing|writing) by\b/i.test(l.text),
  follow: (l) => l.words <= 30 && /\bfollow (us|@)/i.test(l.text),
  cookies: (l) => l.words <= 60 && /\b(uses|use) cookies\b/i.test(l.text),
  affiliate: (l) => l.words <= 40 && /\baffiliate (links?|commissions?)\b/i.test(l.text),
  counter: (l) => l.words <= 8 && /\b(image|photo|slide|picture)\s*\d+\s*(of|\/)\s*\/?\s*\d+\b/i.test(l.text),
};

/** Removes boilerplate lines from an article (in place); `off` names rules not to apply. */
export function removeBoilerplateLines(root: Node, off: ReadonlySet<string>): void {
  const rules = Object.entries(LINE_RULES).filter(([name]) => !off.has(`line-${name}`) && !off.has('lines'));
  if (rules.length === 0) return;
  for (const el of Array.from(root.querySelectorAll(LEAF_BLOCKS))) {
    if (el.querySelector(INNER_BLOCKS)) continue;
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (!text) continue;
    const links = Array.from(el.querySelectorAll('a'));
    const line: Line = { text, words: words(text), linkWords: links.reduce((n, a) => n + words(a.textContent ?? ''), 0), tagLinks: links.filter((a) => /(^|\s)tag(\s|$)/i.test(a.getAttribute('rel') ?? '')).length };
    if (rules.some(([, rule]) => rule(line))) el.remove();
  }
}
