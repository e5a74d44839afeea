import express from 'express';
import type { Runtime } from '../calls/runtime.js';
import { objectBody } from './express-body.js';
import type { SessionTable } from '../access/mcp-sessions.js';
import { UserError } from '../core/errors.js';
import { sendError } from '../access/respond.js';
import { Question } from '../tools/interaction/question-shapes.js';
import type { QuestionRow } from '../store/questions.js';
import type { EngineHealth } from '../tools/search/engine-health.js';

function questionView(q: QuestionRow) {
  return {
    id: q.id,
    status: q.status,
    purpose: q.purpose,
    client: q.client,
    created_at: q.created_at,
    answered_at: q.answered_at,
    questions: Question.array().parse(JSON.parse(q.questions)),
    answer: q.answer ? JSON.parse(q.answer) : null,
  };
}

/** `GET /api/search/engines`: each engine's state, last error and when a resting one is asked again (the dashboard's Tools page shows it). */
export interface EnginesView {
  engines: (EngineHealth & { configured: boolean; enabled: boolean })[];
  unknown: string[];
}

/** The hub's own API, used by the dashboard and scripts (behind the token like everything else). */
export function hubApi(runtime: Runtime, _sessions: SessionTable): express.Router {
  const r = express.Router();
  const s = runtime.services;

  r.get('/api/questions', (_req, res) => {
    res.json({ pending: s.questions.pending().map(questionView), history: s.questions.history().map(questionView) });
  });

  r.post('/api/questions/:id/answer', (req, res) => {
    const id = Number(req.params.id);
    const body = objectBody(req, res);
    if (!body) return;
    try {
      const row = s.asker.answer(id, body);
      res.json({ success: true, question: questionView(row) });
    } catch (err) {
      if (err instanceof UserError) {
        sendError(res, err.code, err.message);
        return;
      }
      throw err;
    }
  });

  /** The hub's memory; collects garbage first when Node runs with --expose-gc (the soak test does). */
  r.get('/api/hub/memory', (_req, res) => {
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    res.json({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, collected: typeof (globalThis as { gc?: unknown }).gc === 'function' });
  });

  r.get('/api/search/engines', async (_req, res) => {
    await s.search.load();
    const enabled = new Set(s.search.engines().map((e) => e.name));
    const view: EnginesView = { engines: s.search.healthReport().map((h) => ({ ...h, enabled: enabled.has(h.name) })), unknown: s.search.unknownEngines() };
    res.json(view);
  });

  return r;
}
