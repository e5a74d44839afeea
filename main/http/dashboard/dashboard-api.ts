import express from 'express';
import { z } from 'zod';
import type { Runtime } from '../../calls/runtime.js';
import type { SessionTable } from '../../access/mcp-sessions.js';
import type { SignIns } from './sign-ins.js';
import { toolKey, skillKey, specFor } from '../../core/settings/schema.js';
import { generateToken } from '../../access/security.js';
import { SettingsError } from '../../core/settings/settings-errors.js';
import type { SettingsErrorCode } from '../../core/wire-errors.js';
import { SECRET_KEYS } from '../../core/settings/secrets.js';
import { diagnosticViews, unmaskSecrets, widenedKeys, widens } from './setting-views.js';
import { accessOf, fullAccess } from './auth.js';
import { connectRoutes } from './connect-api.js';
import type { ConnectService } from '../../core/client-connect.js';
import { overviewView, toolsView, settingsView, callbacksView, skillsView, type MinutesView } from './pages.js';
import { body, fail } from './replies.js';
import { jobRoutes } from './jobs-api.js';
import { todoRoutes } from './todos-api.js';
import { activityRoutes } from './activity-api.js';

/** Settings errors whose message already says the file was left as it was. */
const SAYS_UNCHANGED: ReadonlySet<SettingsErrorCode> = new Set(['SETTINGS_FILE_UNUSABLE', 'SETTINGS_DISK_FULL', 'SETTINGS_FILE_UNWRITABLE']);

const Enabled = z.object({ enabled: z.boolean() });
const On = z.object({ on: z.boolean() });
const KeyValue = z.object({ key: z.string().min(1), value: z.string() });
const FileText = z.object({ text: z.string() });

interface Ctx {
  r: express.Router;
  runtime: Runtime;
  sessions: SessionTable;
  signIns: SignIns;
  hubUrl: () => string;
}

/** What the dashboard reads and changes. Behind the token or a dashboard sign-in like every other route. */
export function dashboardApi(runtime: Runtime, sessions: SessionTable, signIns: SignIns, hubUrl: () => string, connect?: ConnectService): express.Router {
  const ctx: Ctx = { r: express.Router(), runtime, sessions, signIns: signIns, hubUrl };
  overviewRoutes(ctx);
  tokenRoutes(ctx);
  toolRoutes(ctx);
  settingsRoutes(ctx);
  callbackRoutes(ctx);
  jobRoutes(ctx.r, runtime, sessions);
  todoRoutes(ctx.r, runtime);
  activityRoutes(ctx.r, runtime);
  connectRoutes(ctx.r, connect);
  // Any route that edits the settings file (a switch, the serving toggle, a key) answers its failure
  // — a full disk, a read-only file — as the settings error it is, never as an internal error.
  ctx.r.use((err: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!(err instanceof SettingsError)) return next(err);
    fail(res, err.code, err.message);
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

/**
 * The token: rotate it (which signs every dashboard out), show it. A browser's session may rotate it
 * but never read it (auth.ts fullAccess): the new token is in `pincer token`.
 */
function tokenRoutes({ r, runtime, signIns: signIns }: Ctx): void {
  const settings = runtime.settings;
  r.post('/api/token/rotate', (req, res) => {
    if (settings.source('AUTH_TOKEN') === 'env') return fail(res, 'TOKEN_FROM_ENV', 'AUTH_TOKEN comes from an environment variable; change it there.');
    const token = generateToken();
    // Rotation signs every dashboard out (hub.ts listens for the change); a dashboard that asked gets a sign-in code for a new session.
    try {
      settings.set('AUTH_TOKEN', token);
    } catch (err) {
      if (err instanceof SettingsError) return fail(res, err.code, err.message);
      throw err;
    }
    signIns.revokeAll();
    const access = accessOf(req);
    const kind = access?.kind === 'sign-in' ? access.signIn.kind : undefined;
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, ...(kind !== 'browser' ? { token } : {}), ...(kind ? { code: signIns.createCode(kind) } : {}) });
  });

  r.get('/api/token', (req, res) => {
    if (!fullAccess(req, res, 'read the token')) return;
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
    if (!tool) return fail(res, 'TOOL_NOT_FOUND', `No tool "${req.params.name}". GET /api/tools lists them.`);
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
    if (!skill) return fail(res, 'NOT_FOUND', `No skill "${req.params.name}".`);
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
    if (!SECRET_KEYS.includes(key)) return fail(res, 'NOT_FOUND', `${key.slice(0, 80)} is not a secret setting; its value is in GET /api/settings. Secrets: ${SECRET_KEYS.join(', ')}.`);
    if (key === 'AUTH_TOKEN' && !fullAccess(req, res, 'read the token')) return;
    res.setHeader('Cache-Control', 'no-store');
    res.json({ key, value: settings.raw(key) ?? '', source: settings.source(key) });
  });

  r.post('/api/settings/key', (req, res) => {
    const b = body(req, res, KeyValue, '{"key": "...", "value": "..."}');
    if (!b) return;
    const trust = specFor(b.key)?.trust;
    if (widens(b.key, b.value) && trust?.level === 'user' && !fullAccess(req, res, `change ${b.key}: ${trust.why}`)) return;
    try {
      settings.set(b.key, b.value);
      res.json({ success: true, value: SECRET_KEYS.includes(b.key) ? '' : settings.raw(b.key) });
    } catch (err) {
      if (err instanceof SettingsError) return fail(res, err.code, err.message, { key: b.key });
      throw err;
    }
  });

  r.put('/api/settings/file', (req, res) => {
    const b = body(req, res, FileText, '{"text": "<the whole file>"}');
    if (!b) return;
    const current = settings.userFileText();
    const text = unmaskSecrets(b.text, current);
    const widened = widenedKeys(current, text);
    if (widened.length && !fullAccess(req, res, `change ${widened.join(', ')} (they choose who can reach the hub, or a program, path or address Pincer uses); nothing was saved`)) return;
    try {
      const errors = settings.replaceUserFile(text);
      if (errors.length) return fail(res, 'SETTING_VALUE_INVALID', `${errors.length} line(s) need fixing; nothing was saved.`, { errors });
    } catch (err) {
      // A write that failed already says the file is unchanged; a refused edit says nothing was saved.
      if (err instanceof SettingsError) return fail(res, err.code, SAYS_UNCHANGED.has(err.code) ? err.message : `${err.message} Nothing was saved.`);
      throw err;
    }
    res.json({ success: true, diagnostics: diagnosticViews(settings.diagnostics()) });
  });
}

/** Callbacks: the active ones and the recent fires, and cancelling one. */
function callbackRoutes({ r, runtime }: Ctx): void {
  const s = runtime.services;
  r.get('/api/callbacks', (_req, res) => {
    res.json(callbacksView(runtime));
  });

  r.post('/api/callbacks/:slot/cancel', (req, res) => {
    // The same service as SetCallback's cancel: the scheduler re-plans and the dashboard hears of it.
    const c = s.scheduler.cancelSlot(Number(req.params.slot));
    if (!c) return fail(res, 'NOT_FOUND', `No active callback ${req.params.slot}.`);
    res.json({ success: true });
  });
}
