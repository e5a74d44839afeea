/*
 * What Readability leaves around an article that a reader skips: share bars, "related" and
 * "popular" boxes, sign-ups, navigation, ad slots, credits. General rules only — the words of
 * class names and ids, ARIA roles — never a site's names. Tried and left out (they cost pages of
 * Readability's own test corpus more than they gained): link-dense lists, blocks repeated three
 * times or more, and the words byline, comments, newsletter, promo, caption, author, header.
 */

interface El {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<El>;
  remove(): void;
}

/**
 * Class or id words that name boilerplate, as whole words of a class or id (share-bar, related_posts, ad-slot). Words a
 * page also uses for its own text (comments, byline, newsletter: Readability keeps those on purpose) are not here.
 */
const BOILERPLATE_WORDS = new Set(['share', 'sharing', 'social', 'related', 'recommended', 'recommendations', 'sponsored', 'advert', 'advertisement', 'ad', 'ads', 'breadcrumb', 'breadcrumbs', 'toolbar', 'outbrain', 'taboola', 'signup', 'tags', 'dateline', 'credit', 'credits', 'subscribe', 'subscription', 'sidebar', 'popular', 'trending', 'footer', 'nav', 'menu', 'email', 'copyright']);
const BOILERPLATE_ROLES = new Set(['navigation', 'complementary', 'banner', 'contentinfo', 'menu', 'menubar', 'toolbar', 'search']);
/** Only whole blocks go: a name on an inline element (a link, a span in a sentence) says nothing about the block around it. */
const BLOCK_TAGS = new Set(['DIV', 'SECTION', 'ASIDE', 'NAV', 'UL', 'OL', 'P', 'FIGURE', 'HEADER', 'FOOTER', 'FORM', 'TABLE', 'DL']);

/**
 * Whether a class or id names boilerplate: one of its tokens, split at - and _, is a boilerplate word, and the token
 * is short — a long one is a slug of the page's own heading ("sharing-with-a-single-developer").
 */
function namesBoilerplate(names: string): boolean {
  return names
    .split(/\s+/)
    .filter(Boolean)
    .some((token) => {
      const parts = token.toLowerCase().split(/[-_]+/).filter(Boolean);
      return parts.length <= 3 && parts.some((p) => BOILERPLATE_WORDS.has(p));
    });
}

const wordsOf = (s: string | null) => (s ?? '').match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;

/** Removes boilerplate from Readability's article (in place). */
export function cleanArticle(root: El): void {
  const total = wordsOf(root.textContent);
  if (total === 0) return;
  const removeIfSmall = (el: El) => {
    // Never a large share of the article: a rule that would take most of it is wrong about this page.
    if (wordsOf(el.textContent) <= total * 0.25) el.remove();
  };
  for (const el of Array.from(root.querySelectorAll('[class], [id], [role]'))) {
    if (el === root || !BLOCK_TAGS.has(el.tagName.toUpperCase())) continue;
    const role = (el.getAttribute('role') ?? '').toLowerCase();
    if (BOILERPLATE_ROLES.has(role) || namesBoilerplate(`${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`)) removeIfSmall(el);
  }
}
