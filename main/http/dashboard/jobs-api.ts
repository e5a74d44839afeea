import fs from 'node:fs';
import type express from 'express';
import { z } from 'zod';
import type { Runtime } from '../../calls/runtime.js';
import type { SessionTable } from '../../access/mcp-sessions.js';
import { JOB_FILTERS } from '../../store/jobs.js';
import { readLogBefore, readLogWindow } from '../../tools/shell/job-log.js';
import { isActive } from '../../tools/shell/job-manager.js';
import { fail, failWith, query, queryCount } from './replies.js';
import { jobsView, oneJobView, mcpTasksView } from './pages.js';
import { logger } from '../../core/log.js';

const log = logger('dashboard');

const JobsQuery = z.object({
  status: z.enum(JOB_FILTERS).optional(),
  q: z.string().max(500).optional(),
  offset: queryCount(10_000_000, 0),
  limit: queryCount(200, 50).pipe(z.number().min(1)),
});
const JOBS_USAGE = `Jobs take status (${JOB_FILTERS.join(', ')}), q (text in the command or folder), offset and limit (1-200).`;

const McpTasksQuery = z.object({ offset: queryCount(10_000_000, 0), limit: queryCount(200, 20).pipe(z.number().min(1)) });
const MCP_TASKS_USAGE = 'MCP tasks take offset and limit (1-200).';

const offset = z.preprocess((v) => (v === undefined || v === '' ? undefined : Number(v)), z.number().int().min(0).optional());
const OutputQuery = z.object({ from: offset, before: offset, max: queryCount(1024 * 1024, 64 * 1024).pipe(z.number().min(1)) });
const OUTPUT_USAGE = 'A window of output takes from (read on from that byte) or before (the part that ends there, from a line start), and max (bytes, at most 1048576).';

/** Jobs: a page of them and every running one, one job, windows of its output, its whole log, Kill; and the MCP tasks beside them. */
export function jobRoutes(r: express.Router, runtime: Runtime, sessions: SessionTable): void {
  const s = runtime.services;
  r.get('/api/jobs', (req, res) => {
    const q = query(req, res, JobsQuery, JOBS_USAGE);
    if (q) res.json(jobsView(runtime, sessions, q));
  });

  r.get('/api/jobs/:id', (req, res) => {
    const view = oneJobView(runtime, sessions, Number(req.params.id));
    if (!view) return fail(res, 'NOT_FOUND', `No job ${String(req.params.id).slice(0, 40)} (ended jobs are deleted after JOB_RETENTION_DAYS).`);
    res.json(view);
  });

  r.get('/api/mcp-tasks', (req, res) => {
    const q = query(req, res, McpTasksQuery, MCP_TASKS_USAGE);
    if (q) res.json(mcpTasksView(runtime, q));
  });

  /**
   * A window of a job's log for the dashboard; it never moves the model's read position. `from`: on from
   * there (the live tail); `before`: the part just earlier, from a line start; neither: the last window.
   */
  r.get('/api/jobs/:id/output', (req, res) => {
    const job = s.jobs.repo.get(Number(req.params.id));
    if (!job) return fail(res, 'NOT_FOUND', `No job ${String(req.params.id).slice(0, 40)}.`);
    const q = query(req, res, OutputQuery, OUTPUT_USAGE);
    if (!q) return;
    const size = s.jobs.logSize(job);
    const running = isActive(job);
    const w = q.from !== undefined
      ? readLogWindow(job.log_path, Math.min(size, q.from), Math.min(q.max, size - Math.min(size, q.from)), !running)
      : readLogBefore(job.log_path, Math.min(size, q.before ?? size), q.max);
    res.json({ id: job.id, from: w.from, to: w.to, size, running, text: w.text });
  });

  /** The whole log as a file (as far as it is written now: a running job's log is read up to its size at the request). */
  r.get('/api/jobs/:id/log', (req, res) => {
    const job = s.jobs.repo.get(Number(req.params.id));
    if (!job) return fail(res, 'NOT_FOUND', `No job ${String(req.params.id).slice(0, 40)}.`);
    const size = s.jobs.logSize(job);
    res.attachment(`pincer-job-${job.id}.log`);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Content-Length', String(size));
    res.setHeader('Cache-Control', 'no-store');
    if (size === 0) return void res.end();
    const stream = fs.createReadStream(job.log_path, { start: 0, end: size - 1 });
    stream.on('error', (err) => {
      // Deleted or unreadable after the size was taken: the download ends short, the hub goes on.
      log.warn(`job ${job.id}'s log could not be read for a download: ${err.message}`, { err });
      res.destroy(err);
    });
    res.on('close', () => stream.destroy());
    stream.pipe(res);
  });

  r.post('/api/jobs/:id/kill', async (req, res) => {
    try {
      const r2 = await s.jobs.kill(Number(req.params.id));
      res.json({ success: true, status: r2.job.status, forced: r2.forced });
    } catch (err) {
      // The same refusals as KillBgTask's (no such job 404, already ended 409); anything else is a bug, answered 500 and logged by the app.
      failWith(res, err);
    }
  });
}
