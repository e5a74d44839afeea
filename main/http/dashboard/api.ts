import express, { type Request, type Response } from 'express';
import { readLogWindow } from '../../tools/shell/job-log.js';
import { isActive } from '../../tools/shell/jobs.js';
import { z } from 'zod';
import type { Runtime } from '../../calls/runtime.js';
import { objectBody } from '../express-body.js';
import type { SessionTable } from '../../access/sessions.js';
import type { DashboardSessions } from './sessions.js';
import { toolKey, skillKey } from '../../core/settings/schema.js';
import { generateToken } from '../../access/security.js';
import { SettingsError, settingsErrorStatus } from '../../core/settings/errors.js';
import { ERROR_HTTP_STATUS, UserError } from '../../core/errors.js';
import { SECRET_KEYS } from '../../core/settings/secrets.js';
import { diagnosticViews, unmaskSecrets } from './settings.js';
import { connectRoutes } from './connect.js';
import type { ConnectService } from '../../core/client-connect.js';
import { overviewView, toolsView, settingsView, tasksView, jobsView, mcpTasksView, callbacksView, skillsView, activityView, type MinutesView } from './views.js';

/**
 * The body checked against a schema, or undefined after answering 400: not
 * JSON (the hub's one body parser says why), or JSON of the wrong shape.
 */
function body<T extends z.ZodType>(req: Request, res: Response, schema: T, expected: string): z.infer<T> | undefined {
  const value = objectBody(req, res);
  if (!value) return undefined;
  const r = schema.safeParse(value);
  if (!r.success) {
    fail(res, 400, 'BAD_BODY', `Send ${expected}.`);
    return undefined;
  }
  return r.data;
}

function fail(res: Response, status: number, code: string, message: string, extra: Record<string, unknown> = {}): void {
  // The code also sits at the top level, where scripts of the settings API already read it.
  res.status(status).json({ success: false, code, error: { code, message }, ...extra });
}

const Enabled = z.object({ enabled: z.boolean() });
const On = z.object({ on: z.boolean() });
const KeyValue = z.object({ key: z.string().min(1), value: z.string() });
const FileText = z.object({ text: z.string() });

const optionalNumber = z.preprocess((v) => (v === undefined || v === '' ? undefined : Number(v)), z.number().finite().optional());
const ActivityQuery = z.object({
  limit: z.preprocess((v) => (v === undefined ? 300 : Number(v)), z.number().int().min(1).max(1000)).catch(300),
  tool: z.string().optional(),
  client: z.string().optional(),
  q: z.string().optional(),
  errors: z.enum(['1', '0']).optional(),
  from: optionalNumber,
  to: optionalNumber,
});

interface Ctx {
  r: express.Router;
  runtime: Runtime;
  sessions: SessionTable;
  dashboard: DashboardSessions;
  hubUrl: () => string;
}

/** What the dashboard reads and changes. Behind the token or a dashboard session like every other route. */
export function dashboardApi(runtime: Runtime, sessions: SessionTable, dashboard: DashboardSessions, hubUrl: () => string, connect?: ConnectService): express.Router {
  const ctx: Ctx = { r: express.Router(), runtime, sessions, dashboard, hubUrl };
  overviewRoutes(ctx);
  tokenRoutes(ctx);
  toolRoutes(ctx);
  settingsRoutes(ctx);
  workRoutes(ctx);
  activityRoutes(ctx);
  connectRoutes(ctx.r, connect);
  // Any route that edits the settings file (a switch, the serving toggle, a key) answers its failure
  // — a full disk, a read-only file — as the settings error it is, never as an internal error.
  ctx.r.use((err: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!(err instanceof SettingsError)) return next(err);
    fail(res, settingsErrorStatus(err.code), err.code, err.message);
  });
  return ctx.r;
}

/** The overview, the charts and the serving switch. */
function overviewRoutes({ r, runtime, sessions, hubUrl }: Ctx): void {
  const settings = runtime.settings;
  r.get('/api/overview', (_req, res) => {
    res.json(overviewView(runtime, sessions, hubUrl()));
  });

  /** Calls per minute and per-tool latency over the last hour, for the charts. */
  r.get('/api/stats/minutes', (_req, res) => {
    const view: MinutesView = { minutes: runtime.activity.perMinute(60), now: Date.now() };
    res.json(view);
  });

  r.post('/api/serving', (req, res) => {
    const b = body(req, res, On, '{"on": true} to serve or {"on": false} to pause');
    if (!b) return;
    settings.set('TOOLS', b.on ? 'true' : 'false');
    res.json({ success: true, serving: !runtime.registry.servingPaused() });
  });
}

/** The token: show it, rotate it (which signs every dashboard out). */
function tokenRoutes({ r, runtime, dashboard }: Ctx): void {
  const settings = runtime.settings;
  r.post('/api/token/rotate', (_req, res) => {
    if (settings.source('AUTH_TOKEN') === 'env') return fail(res, 409, 'TOKEN_FROM_ENV', 'AUTH_TOKEN comes from an environment variable; change it there.');
    const token = generateToken();
    // Rotation signs every dashboard out (hub.ts listens for the change); the one that asked gets a fresh session.
    try {
      settings.set('AUTH_TOKEN', token);
    } catch (err) {
      if (err instanceof SettingsError) return fail(res, settingsErrorStatus(err.code) === 400 ? 409 : settingsErrorStatus(err.code), err.code, err.message);
      throw err;
    }
    dashboard.revokeAll();
    const session = dashboard.create();
    res.setHeader('Set-Cookie', dashboard.setCookie(session));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, token, key: session.key });
  });

  r.get('/api/token', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ token: settings.get('AUTH_TOKEN') });
  });
}

/** Tools and skills on and off. */
function toolRoutes({ r, runtime }: Ctx): void {
  const s = runtime.services;
  const settings = runtime.settings;
  r.get('/api/tools', (_req, res) => {
    res.json(toolsView(runtime));
  });

  r.post('/api/tools/:name', (req, res) => {
    const tool = runtime.registry.byName.get(String(req.params.name));
    if (!tool) return fail(res, 404, 'NO_TOOL', `No tool "${req.params.name}". GET /api/tools lists them.`);
    const b = body(req, res, Enabled, '{"enabled": true} or {"enabled": false}');
    if (!b) return;
    settings.set(toolKey(tool.name), b.enabled ? 'true' : 'false');
    res.json({ success: true, enabled: runtime.registry.isEnabled(tool.name) });
  });

  r.get('/api/skills', (_req, res) => {
    res.json(skillsView(runtime));
  });

  r.post('/api/skills/:name', (req, res) => {
    const skill = s.skills.get(String(req.params.name));
    if (!skill) return fail(res, 404, 'NO_SKILL', `No skill "${req.params.name}".`);
    const b = body(req, res, Enabled, '{"enabled": true} or {"enabled": false}');
    if (!b) return;
    settings.set(skillKey(skill.name), b.enabled ? 'true' : 'false');
    res.json({ success: true });
  });
}

/** Settings: read, one key, the whole file, one secret on request. */
function settingsRoutes({ r, runtime }: Ctx): void {
  const settings = runtime.settings;
  r.get('/api/settings', (_req, res) => {
    res.json(settingsView(runtime));
  });

  /** One secret's value, on an explicit request for that key (the Show button): GET /api/settings never carries it. */
  r.get('/api/settings/secret/:key', (req, res) => {
    const key = String(req.params.key);
    if (!SECRET_KEYS.includes(key)) return fail(res, 404, 'NOT_SECRET', `${key.slice(0, 80)} is not a secret setting; its value is in GET /api/settings. Secrets: ${SECRET_KEYS.join(', ')}.`);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ key, value: settings.raw(key) ?? '', source: settings.source(key) });
  });

  r.post('/api/settings/key', (req, res) => {
    const b = body(req, res, KeyValue, '{"key": "...", "value": "..."}');
    if (!b) return;
    try {
      settings.set(b.key, b.value);
      res.json({ success: true, value: SECRET_KEYS.includes(b.key) ? '' : settings.raw(b.key) });
    } catch (err) {
      if (err instanceof SettingsError) return fail(res, settingsErrorStatus(err.code), err.code, err.message, { key: b.key });
      throw err;
    }
  });

  r.put('/api/settings/file', (req, res) => {
    const b = body(req, res, FileText, '{"text": "<the whole file>"}');
    if (!b) return;
    try {
      const errors = settings.replaceUserFile(unmaskSecrets(b.text, settings.userFileText()));
      if (errors.length) return fail(res, 400, 'SETTING_VALUE_INVALID', `${errors.length} line(s) need fixing; nothing was saved.`, { errors });
    } catch (err) {
      // A write that failed already says the file is unchanged; a refused edit says nothing was saved.
      if (err instanceof SettingsError) return fail(res, settingsErrorStatus(err.code), err.code, settingsErrorStatus(err.code) === 400 ? `${err.message} Nothing was saved.` : err.message);
      throw err;
    }
    res.json({ success: true, diagnostics: diagnosticViews(settings.diagnostics()) });
  });
}

/** Tasks, jobs and callbacks: what runs and what is due. */
function workRoutes({ r, runtime, sessions }: Ctx): void {
  const s = runtime.services;
  r.get('/api/tasks', (_req, res) => {
    res.json(tasksView(runtime));
  });

  r.get('/api/jobs', (_req, res) => {
    res.json(jobsView(runtime, sessions));
  });

  r.get('/api/mcp-tasks', (_req, res) => {
    res.json(mcpTasksView(runtime));
  });

  /** A window of a job's log for the dashboard; it never moves the model's read position. */
  r.get('/api/jobs/:id/output', (req, res) => {
    const job = s.jobs.repo.get(Number(req.params.id));
    if (!job) return fail(res, 404, 'NO_JOB', `No job ${req.params.id}.`);
    const size = s.jobs.logSize(job);
    const max = 64 * 1024;
    const asked = Number(req.query.from);
    const from = req.query.from !== undefined && Number.isFinite(asked) ? Math.max(0, Math.min(size, asked)) : Math.max(0, size - max);
    const w = readLogWindow(job.log_path, from, Math.min(max, size - from), !isActive(job));
    res.json({ id: job.id, from: w.from, to: w.to, size, text: w.text });
  });

  r.post('/api/jobs/:id/kill', async (req, res) => {
    try {
      const r2 = await s.jobs.kill(Number(req.params.id));
      res.json({ success: true, status: r2.job.status, forced: r2.forced });
    } catch (err) {
      // The same refusals as KillBgTask's (no such job 404, already ended 409); anything else is a bug, answered 500 and logged by the app.
      if (!(err instanceof UserError)) throw err;
      fail(res, ERROR_HTTP_STATUS[err.code], err.code, err.message);
    }
  });

  r.get('/api/callbacks', (_req, res) => {
    res.json(callbacksView(runtime));
  });

  r.post('/api/callbacks/:slot/cancel', (req, res) => {
    // The same service as SetCallback's cancel: the scheduler re-plans and the dashboard hears of it.
    const c = s.scheduler.cancelSlot(Number(req.params.slot));
    if (!c) return fail(res, 404, 'NO_CALLBACK', `No active callback ${req.params.slot}.`);
    res.json({ success: true });
  });
}

/** Tool-call activity: the list and one call. */
function activityRoutes({ r, runtime }: Ctx): void {
  r.get('/api/activity', (req, res) => {
    const q = ActivityQuery.safeParse(req.query);
    if (!q.success) return fail(res, 400, 'BAD_QUERY', 'Activity takes limit (1-1000), tool, client, q, errors=1, from and to (milliseconds since 1970).');
    const { limit, errors, ...filter } = q.data;
    res.json(activityView(runtime, runtime.activity.recent(limit, { ...filter, errors: errors === '1' })));
  });

  r.get('/api/activity/:id', (req, res) => {
    const call = runtime.activity.get(String(req.params.id));
    if (!call) return fail(res, 404, 'NO_CALL', `No tool call ${req.params.id} (older calls are deleted after ACTIVITY_RETENTION_DAYS).`);
    res.json({ call });
  });
}
