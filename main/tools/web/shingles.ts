/*
 * 4-token shingles, the unit the article-extraction benchmark scores text by (bench/article-score.ts): what ReadDocs
 * counts when it asks how much article a page has, and what rendering added to it.
 */

/** A token: a run of letters, digits and underscores (the benchmark's `\w+`, Unicode-aware). */
export const TOKEN = /[\p{L}\p{N}_]+/gu;

/** A text's 4-token shingles in reading order. */
export function shingleList(text: string): string[] {
  const t = text.match(TOKEN) ?? [];
  const out: string[] = [];
  for (let i = 0; i + 4 <= t.length; i++) out.push(t.slice(i, i + 4).join(' '));
  return out;
}

/** How many shingles a text has (without building them). */
export function shingleCount(text: string): number {
  return Math.max(0, (text.match(TOKEN)?.length ?? 0) - 3);
}

export function shingles(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of shingleList(text)) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}
