/*
 * The article-extraction benchmark's own scoring (its evaluate.py), so that
 * figures here sit beside the ones it publishes: each text is cut into
 * tokens (runs of word characters, case kept), tokens into overlapping
 * 4-token shingles; a page's true positives, false positives and false
 * negatives count shingles as multisets. Precision and recall are means
 * over pages (a page with nothing predicted counts for recall only, one
 * with no truth for precision only), and F1 is the harmonic mean of those
 * two means — not a mean of per-page F1s.
 */

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

/** Python's `\w+` on str: letters, numbers, underscore. */
const TOKEN = /[\p{L}\p{N}_]+/gu;

function shingles(text: string, n = 4): Map<string, number> {
  const tokens = text.match(TOKEN) ?? [];
  const out = new Map<string, number>();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last; i++) {
    const s = tokens.slice(i, i + n);
    if (s.length === 0) continue;
    const key = s.join('\u0000');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** One page's shingle counts (evaluate.py's string_shingle_matching; normalising by their sum changes no ratio). */
export function shingleCounts(truth: string, predicted: string): Counts {
  const t = shingles(truth);
  const p = shingles(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...t.keys(), ...p.keys()])) {
    const a = t.get(key) ?? 0;
    const b = p.get(key) ?? 0;
    tp += Math.min(a, b);
    fp += Math.max(0, b - a);
    fn += Math.max(0, a - b);
  }
  return { tp, fp, fn };
}

export function precisionOf({ tp, fp, fn }: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

export function recallOf({ tp, fp, fn }: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

/** A single page's F1, for comparing two extractors page by page. */
export function pageF1(c: Counts): number {
  const p = precisionOf(c);
  const r = recallOf(c);
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

export interface Scores {
  precision: number;
  recall: number;
  f1: number;
}

/** evaluate.py's metrics_from_tp_fp_fns. */
export function aggregate(pages: Counts[]): Scores {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const precision = mean(pages.filter((c) => c.tp + c.fp > 0).map(precisionOf));
  const recall = mean(pages.filter((c) => c.tp + c.fn > 0).map(recallOf));
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}
