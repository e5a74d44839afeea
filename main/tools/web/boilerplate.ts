import { removeBoilerplateLines } from './boilerplate-lines.js';

/*
 * What Readability leaves around an article that a reader skips: share bars, "related" and
 * "popular" boxes, sign-ups, navigation, ad slots, credits, slideshows, print-only copies, hover
 * cards, and other articles' teasers. General rules only — the words of class names and ids, ARIA roles,
 * the HTML meaning of <article> — never a site's names. Tried and left out (they cost pages of
 * Readability's own test corpus more than they gained; bench/RESULTS.md has the figures):
 * link-dense lists, blocks repeated three times or more, captions, screen-reader-only text, a
 * heading equal to the page title, text outside an articleBody block, and the words byline,
 * comments, newsletter, promo, caption, author, header, meta, img, photo, media.
 */

interface El {
  tagName: string;
  textContent: string | null;
  parentElement: El | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): ArrayLike<El>;
  remove(): void;
}

/**
 * Rules switched off, by name, for measuring each one alone (bench/readdocs-quality.ts, BENCH_READDOCS_OFF); empty in
 * the tool: anchors, comments (extract.ts), articles, widgets, listok, or one widget word.
 */
export const rulesOff = new Set<string>();

/**
 * Class or id words that name boilerplate, as whole words of a class or id (share-bar, related_posts, ad-slot). Words a
 * page also uses for its own text (comments, byline, newsletter: Readability keeps those on purpose) are not here.
 */
const BOILERPLATE_WORDS = new Set(['share', 'sharing', 'social', 'related', 'recommended', 'recommendations', 'sponsored', 'advert', 'advertisement', 'ad', 'ads', 'breadcrumb', 'breadcrumbs', 'toolbar', 'outbrain', 'taboola', 'signup', 'tags', 'dateline', 'credit', 'credits', 'subscribe', 'subscription', 'sidebar', 'popular', 'trending', 'footer', 'nav', 'menu', 'email', 'copyright']);
/** Slideshows and galleries (their captions and "Image 1 of 9" counters repeat the pictures, not the text), print-only copies, side rails. */
const WIDGET_WORDS = new Set(['gallery', 'slideshow', 'slide', 'slides', 'swiper', 'carousel', 'print', 'rail']);
const POPUP_WORDS = new Set(['rollover', 'tooltip', 'tooltiptext', 'popover', 'flyout', 'hovercard']);
const BOILERPLATE_ROLES = new Set(['navigation', 'complementary', 'banner', 'contentinfo', 'menu', 'menubar', 'toolbar', 'search']);
/** Only whole blocks go: a name on an inline element (a link, a span in a sentence) says nothing about the block around it. */
const BLOCK_TAGS = new Set(['DIV', 'SECTION', 'ASIDE', 'NAV', 'UL', 'OL', 'P', 'FIGURE', 'HEADER', 'FOOTER', 'FORM', 'TABLE', 'DL']);

/**
 * Whether a class or id names boilerplate: one of its tokens, split at - and _, is a boilerplate word, and the token
 * is short — a long one is a slug of the page's own heading ("sharing-with-a-single-developer").
 */
function namesBoilerplate(names: string, words: Set<string>): boolean {
  return names
    .split(/\s+/)
    .filter(Boolean)
    .some((token) => {
      const parts = token.toLowerCase().split(/[-_]+/).filter(Boolean);
      return parts.length <= 3 && parts.some((p) => words.has(p));
    });
}

/** Whether `inner` is `outer` or inside it. */
function within(inner: El, outer: El): boolean {
  for (let e: El | null = inner; e; e = e.parentElement) if (e === outer) return true;
  return false;
}

const wordsOf = (s: string | null) => (s ?? '').match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;

/**
 * Other articles' teasers. An <article> is a self-contained item (HTML's own meaning); when one of them holds most of
 * the text, it is the page's article, and the other <article>s — cards beside it, or items nested in it (teasers,
 * more posts) — are not part of it. A page made only of cards (no article with most of the text) keeps them all.
 */
function removeOtherArticles(root: El, total: number): void {
  const articles = Array.from(root.querySelectorAll('article'));
  if (articles.length < 2) return;
  let main: El | undefined;
  let mainWords = 0;
  for (const a of articles) {
    const w = wordsOf(a.textContent);
    if (w > mainWords) [main, mainWords] = [a, w];
  }
  if (!main || mainWords < total * 0.5) return;
  const others = articles.filter((a) => !within(main!, a));
  const nestedWords = others.filter((a) => within(a, main!) && !others.some((o) => o !== a && within(a, o))).reduce((n, a) => n + wordsOf(a.textContent), 0);
  // The main article's own text must stay substantial, or the "main" one is only a wrapper around the items.
  if (mainWords - nestedWords < 50) return;
  for (const a of others) a.remove();
}

/** Removes boilerplate from Readability's article (in place). */
export function cleanArticle(root: El): void {
  const total = wordsOf(root.textContent);
  if (total === 0) return;
  if (!rulesOff.has('articles')) removeOtherArticles(root, total);
  const removeIfSmall = (el: El) => {
    // Never a large share of the article: a rule that would take most of it is wrong about this page.
    if (wordsOf(el.textContent) <= total * 0.25) el.remove();
  };
  const withWidgets = rulesOff.has('widgets') ? BOILERPLATE_WORDS : new Set([...BOILERPLATE_WORDS, ...[...WIDGET_WORDS].filter((w) => !rulesOff.has(w))]);
  for (const el of Array.from(root.querySelectorAll('[class], [id], [role]'))) {
    const tag = el.tagName.toUpperCase();
    if (el === root || !BLOCK_TAGS.has(tag)) continue;
    const role = (el.getAttribute('role') ?? '').toLowerCase();
    // A list of pictures is the page's own (an encyclopedia's gallery); a slideshow is a box of its own.
    const words = (tag === 'UL' || tag === 'OL') && !rulesOff.has('listok') ? BOILERPLATE_WORDS : withWidgets;
    if (BOILERPLATE_ROLES.has(role) || namesBoilerplate(`${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`, words)) removeIfSmall(el);
  }
  if (!rulesOff.has('popups')) {
    // Hover cards and tooltips: text a reader sees only on pointing at a link, inline in the sentence that holds the
    // link. Innermost first, and the link a card hangs on stays ("Rep. <span class=rollover><a>Jane Doe</a><span
    // class=rollover-block>…card…</span></span>" keeps "Jane Doe").
    for (const el of Array.from(root.querySelectorAll('[class]')).reverse()) {
      if (el === root || el.tagName.toUpperCase() === 'A' || !namesBoilerplate(el.getAttribute('class') ?? '', POPUP_WORDS)) continue;
      const links = Array.from(el.querySelectorAll('a'));
      const own = (el.textContent ?? '').replace(/\s+/g, '');
      if (links.length === 1 && links[0]!.textContent?.replace(/\s+/g, '') === own) continue;
      removeIfSmall(el);
    }
  }
  removeBoilerplateLines(root, rulesOff);
}
