import type express from 'express';
import { z } from 'zod';
import type { Runtime } from '../../calls/runtime.js';
import { fail, query } from './replies.js';
import { activityView, facetsView } from './pages.js';

const optionalNumber = z.preprocess((v) => (v === undefined || v === '' ? undefined : Number(v)), z.number().finite().optional());
/** `<started_at>.<row>`: where the previous page ended. */
const Cursor = z.string().regex(/^\d+\.\d+$/).transform((v) => {
  const [at, seq] = v.split('.').map(Number) as [number, number];
  return { at, seq };
});
const ActivityQuery = z.object({
  limit: z.preprocess((v) => (v === undefined ? 50 : Number(v)), z.number().int().min(1).max(1000)),
  before: Cursor.optional(),
  tool: z.string().optional(),
  client: z.string().optional(),
  q: z.string().max(500).optional(),
  errors: z.enum(['1', '0']).optional(),
  from: optionalNumber,
  to: optionalNumber,
});
const ACTIVITY_USAGE = 'Activity takes limit (1-1000), before (the next of the page before), tool, client, q, errors=1, from and to (milliseconds since 1970).';
/** A filtered total is counted up to this many calls; past it the page says "at least". */
const COUNT_CAP = 10_000;

/** Tool-call activity: a page, its total, the choices of its filters, one call; and what the data folder keeps. */
export function activityRoutes(r: express.Router, runtime: Runtime): void {
  r.get('/api/activity', (req, res) => {
    const q = query(req, res, ActivityQuery, ACTIVITY_USAGE);
    if (!q) return;
    const { limit, errors, before, ...rest } = q;
    const filter = { ...rest, errors: errors === '1' };
    const page = runtime.activity.page(limit, filter, before);
    // A first page with room to spare holds every match: no count to make (a rare text is a whole scan already).
    const total = !before && !page.next ? { n: page.calls.length, capped: false } : runtime.activity.countMatching(filter, COUNT_CAP);
    res.json(activityView(runtime, { calls: page.calls, ...(page.next ? { next: `${page.next.at}.${page.next.seq}` } : {}) }, total));
  });

  r.get('/api/activity/facets', (_req, res) => {
    res.json(facetsView(runtime));
  });

  r.get('/api/activity/:id', (req, res) => {
    const call = runtime.activity.get(String(req.params.id));
    if (!call) return fail(res, 'NOT_FOUND', `No tool call ${String(req.params.id).slice(0, 80)} (older calls are deleted after ACTIVITY_RETENTION_DAYS).`);
    res.json({ call });
  });

  /** What the data folder keeps of each kind, under which limits, and the disk pincer.db uses. */
  r.get('/api/kept', (_req, res) => {
    res.json(runtime.retention.kept());
  });
}
