import { z } from 'zod';

/*
 * What a ReadDocs answer says about the browser: whether it rendered the page, why or why not, and what came of it, so
 * that a person (or a model) can tell a render that was skipped from one that failed. Zod only: the tool's output
 * schema is built from it at start, the reading code (loaded on first use) fills it in.
 */

/** Why the browser renders the page: next to no article; a short one on an app's page; something in the article waits for scripts; asked. */
export const RENDER_REASONS = ['shell', 'script-built', 'placeholder', 'wait_ms', 'setting'] as const;
/** Why it does not: the article is there and nothing in it waits for scripts; the page has no scripts; no browser; no time left. */
export const SKIP_REASONS = ['complete', 'no-scripts', 'no-browser', 'no-time'] as const;
/** What came of a render: the rendered article shown, the fetched one kept (the same text, text lost, the article re-picked), or the browser failed. */
export const RENDER_OUTCOMES = ['shown', 'same', 'lost-text', 'repicked', 'failed'] as const;

export type RenderReason = (typeof RENDER_REASONS)[number];
export type SkipReason = (typeof SKIP_REASONS)[number];
export type RenderOutcome = (typeof RENDER_OUTCOMES)[number];

export const renderReportSchema = z.object({
  ran: z.boolean().describe('Whether a browser rendered the page (ran its scripts) for this call'),
  reason: z
    .enum([...RENDER_REASONS, ...SKIP_REASONS])
    .describe(
      'Why it ran: shell (next to no text without scripts), script-built (a short article on an app\'s page), placeholder (something in the article waits for scripts), wait_ms or setting (asked for). ' +
        'Why not: complete (the article is there as fetched and nothing in it waits for scripts; pass wait_ms to render anyway), no-scripts, no-browser, no-time',
    ),
  outcome: z.enum(RENDER_OUTCOMES).nullable().describe('When it ran: shown (the rendered article is shown), same / lost-text / repicked (the fetched one is kept: scripts added nothing, took text away, or the article took in the page around it), failed'),
  ms: z.number().int().nullable().describe('How long rendering took, in ms; null when it did not run'),
  note: z.string().describe('The same in a sentence'),
});

export type RenderReport = z.infer<typeof renderReportSchema>;
