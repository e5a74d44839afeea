/**
 * Every answer to the model is bounded whatever the data (a year of jobs, tasks, calls): about 64 KB in
 * all. A list answer carries its text and a structured copy of about the same size, so its text gets
 * about a third of that; a list stops there and says what it left out and how to get it.
 */
export const ANSWER_BYTES = 64 * 1024;
export const LIST_TEXT_BUDGET = 20_000;

/** The items whose rendered blocks fit in the budget (at least one), their blocks, and how many did not fit. */
export function withinBudget<T>(items: T[], render: (item: T) => string, budget = LIST_TEXT_BUDGET): { shown: T[]; text: string[]; cut: number } {
  const text: string[] = [];
  let used = 0;
  for (const item of items) {
    const block = render(item);
    if (used + block.length > budget && text.length > 0) break;
    text.push(block);
    used += block.length + 2;
  }
  return { shown: items.slice(0, text.length), text, cut: items.length - text.length };
}
