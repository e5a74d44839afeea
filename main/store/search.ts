/**
 * Text search over the trigram indexes of migration 8 (`tool_calls_search`, `task_search`). An index
 * names candidate rows; the caller still checks the exact, case-insensitive match on each row, so the
 * index only has to never miss one. A query is every third trigram of the text and its last one: each
 * character is covered, and fewer terms cost less than all of them (bench/RESULTS.md, "A year of use").
 */

/** The MATCH expression for `text`, or undefined when it is shorter than a trigram (then the caller scans). */
export function trigramQuery(text: string): string | undefined {
  const s = text.toLowerCase();
  if ([...s].length < 3) return undefined;
  const chars = [...s];
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i += 3) grams.add(chars.slice(i, i + 3).join(''));
  grams.add(chars.slice(-3).join(''));
  // Each trigram is one token of the tokenizer; quoted, so that no character is read as FTS5 syntax.
  return [...grams].map((g) => `"${g.replaceAll('"', '""')}"`).join(' AND ');
}
