import express, { type Request, type Response } from 'express';
import fs from 'node:fs';
import type { Runtime } from '../hub/runtime.js';
import { objectBody } from './body.js';
import type { SessionTable } from './sessions.js';
import { SETTINGS, PATTERN_SETTINGS, toolKey, skillKey } from '../core/settings/schema.js';
import { SettingsError } from '../core/settings/errors.js';
import { generateToken, SESSION_COOKIE } from './security.js';
import { taskData } from '../tools/workflow/task-manager.js';
import { planJson } from '../tools/workflow/plan-mode.js';
import { VERSION } from '../core/version.js';
import { isActive } from '../tools/shell/jobs.js';

function fail(res: Response, status: number, message: string, extra: Record<string, unknown> = {}): void {
  res.status(status).json({ success: false, error: { message }, ...extra });
}

export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
}

/** What the dashboard reads and changes. Behind the token (or its cookie) like every other route. */
export function dashboardApi(runtime: Runtime, sessions: SessionTable, hubUrl: () => string): express.Router {
  const r = express.Router();
  const s = runtime.services;
  const settings = runtime.settings;

  r.get('/api/overview', (_req, res) => {
    const url = hubUrl();
    res.json({
      version: VERSION,
      serving: !runtime.registry.servingPaused(),
      home: runtime.paths.home,
      settingsFile: settings.userFile,
      endpoints: { streamableHttp: `${url}/mcp`, sse: `${url}/sse`, jsonrpc: `${url}/api/mcp/jsonrpc`, websocket: `${url.replace(/^http/, 'ws')}/mcp/ws`, events: `${url}/api/mcp/connect`, health: `${url}/api/mcp/health` },
      sessions: sessions.list(),
      recent: runtime.activity.recent(15),
      counts: { tools: runtime.registry.visible().length, jobsRunning: s.jobs.repo.countRunning(), questionsPending: s.questions.pending().length, callbacks: s.callbacks.active().length },
    });
  });

  r.post('/api/serving', (req, res) => {
    const b = objectBody(req, res);
    if (!b) return;
    if (typeof b.on !== 'boolean') return fail(res, 400, 'Send {"on": true} to serve or {"on": false} to pause.');
    settings.set('TOOLS', b.on ? 'true' : 'false');
    res.json({ success: true, serving: !runtime.registry.servingPaused() });
  });

  r.post('/api/token/rotate', (_req, res) => {
    if (settings.source('AUTH_TOKEN') === 'env') return fail(res, 409, 'AUTH_TOKEN comes from an environment variable; change it there.');
    const token = generateToken();
    settings.set('AUTH_TOKEN', token);
    res.setHeader('Set-Cookie', sessionCookie(token));
    res.json({ success: true, token });
  });

  r.get('/api/token', (_req, res) => {
    res.json({ token: settings.get('AUTH_TOKEN') });
  });

  r.get('/api/tools', (_req, res) => {
    res.json({
      serving: !runtime.registry.servingPaused(),
      tools: runtime.registry.tools.map((t) => ({ ...runtime.registry.describe(t), group: t.group, enabled: runtime.registry.isEnabled(t.name), key: toolKey(t.name), stats: runtime.activity.statsFor(t.name) })),
    });
  });

  r.post('/api/tools/:name', (req, res) => {
    const tool = runtime.registry.byName.get(String(req.params.name));
    if (!tool) return fail(res, 404, `No tool "${req.params.name}".`);
    const b = objectBody(req, res);
    if (!b) return;
    if (typeof b.enabled !== 'boolean') return fail(res, 400, 'Send {"enabled": true} or {"enabled": false}.');
    settings.set(toolKey(tool.name), b.enabled ? 'true' : 'false');
    res.json({ success: true, enabled: runtime.registry.isEnabled(tool.name) });
  });

  r.get('/api/settings', (_req, res) => {
    res.json({
      file: settings.userFile,
      // Project files of the clients seen lately; their refused lines are among the diagnostics.
      projectFiles: settings.projectFiles(),
      text: settings.userFileText(),
      keys: Object.entries(SETTINGS).map(([key, spec]) => ({ key, description: spec.description, default: spec.default, group: spec.group, secret: spec.secret === true, trust: spec.trust.level, value: settings.raw(key) ?? spec.default, source: settings.source(key) })),
      patterns: PATTERN_SETTINGS.map((p) => ({ pattern: p.pattern.source, description: p.description, default: p.default, trust: p.trust.level })),
      diagnostics: [...settings.diagnostics(), ...settings.projectDiagnostics()],
    });
  });

  r.post('/api/settings/key', (req, res) => {
    const b = objectBody(req, res);
    if (!b) return;
    if (typeof b.key !== 'string' || typeof b.value !== 'string') return fail(res, 400, 'Send {"key": "...", "value": "..."}.');
    try {
      settings.set(b.key, b.value);
      res.json({ success: true, value: settings.raw(b.key) });
    } catch (err) {
      if (err instanceof SettingsError) return fail(res, 400, err.message, { code: err.code });
      throw err;
    }
  });

  r.put('/api/settings/file', (req, res) => {
    const b = objectBody(req, res);
    if (!b) return;
    if (typeof b.text !== 'string') return fail(res, 400, 'Send {"text": "<the whole file>"}.');
    try {
      const errors = settings.replaceUserFile(b.text);
      if (errors.length) return fail(res, 400, `${errors.length} line(s) need fixing; nothing was saved.`, { code: 'SETTING_VALUE_INVALID', errors });
    } catch (err) {
      if (err instanceof SettingsError) return fail(res, 400, `${err.message} Nothing was saved.`, { code: err.code });
      throw err;
    }
    res.json({ success: true, diagnostics: settings.diagnostics() });
  });

  r.get('/api/tasks', (_req, res) => {
    res.json({ tasks: s.tasks.list().map(taskData), plan: { ...planJson(s.plans.current()), text: s.plans.current()?.plan_text ?? null } });
  });

  r.get('/api/jobs', (_req, res) => {
    res.json({
      jobs: s.jobs.list().reverse().map((j) => ({ id: j.id, command: j.command, status: j.status === 'exited' ? `exited ${j.exit_code}` : j.status === 'starting' ? 'running' : j.status, running: isActive(j), exit_code: j.exit_code, pid: j.pid, started_at: j.started_at, ended_at: j.ended_at, note: j.note, log_bytes: s.jobs.logSize(j) })),
    });
  });

  /** A window of a job's log for the dashboard; it never moves the model's read position. */
  r.get('/api/jobs/:id/output', (req, res) => {
    const job = s.jobs.repo.get(Number(req.params.id));
    if (!job) return fail(res, 404, `No job ${req.params.id}.`);
    const size = s.jobs.logSize(job);
    const max = 64 * 1024;
    const from = req.query.from !== undefined ? Math.max(0, Math.min(size, Number(req.query.from))) : Math.max(0, size - max);
    const len = Math.min(max, size - from);
    let text = '';
    if (len > 0) {
      const fd = fs.openSync(job.log_path, 'r');
      try {
        const buf = Buffer.alloc(len);
        fs.readSync(fd, buf, 0, len, from);
        text = buf.toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    }
    res.json({ id: job.id, from, to: from + len, size, text });
  });

  r.post('/api/jobs/:id/kill', async (req, res) => {
    try {
      const r2 = await s.jobs.kill(Number(req.params.id));
      res.json({ success: true, status: r2.job.status, forced: r2.forced });
    } catch (err) {
      fail(res, 400, (err as Error).message);
    }
  });

  r.get('/api/callbacks', (_req, res) => {
    res.json({
      callbacks: s.callbacks.active().map((c) => ({ id: c.slot, message: c.message, delay_seconds: c.delay_s, next_fire_at: c.next_fire_at, fires_done: c.fires_done, fires_left: c.repeat_total === -1 ? null : c.repeat_total - c.fires_done })),
      recent: s.callbacks.recentFires(30).map((f) => ({ id: f.id, message: f.message, fired_at: f.fired_at, late: Boolean(f.late), fire: f.fire_number })),
      now: Date.now(),
    });
  });

  r.post('/api/callbacks/:slot/cancel', (req, res) => {
    const c = s.callbacks.bySlot(Number(req.params.slot));
    if (!c) return fail(res, 404, `No active callback ${req.params.slot}.`);
    s.callbacks.cancel(c.id);
    s.events.publish({ type: 'callbacks_changed', at: Date.now() });
    res.json({ success: true });
  });

  r.get('/api/activity', (req, res) => {
    res.json({ calls: runtime.activity.recent(Number(req.query.limit ?? 300), { tool: req.query.tool ? String(req.query.tool) : undefined, q: req.query.q ? String(req.query.q) : undefined, errors: req.query.errors === '1' }) });
  });

  r.get('/api/skills', (_req, res) => {
    s.skills.rescan();
    res.json({
      folders: s.skills.folders(),
      skills: s.skills.list().map((k) => ({ name: k.name, description: k.description, folder: k.dir, source: k.source, enabled: s.skills.isEnabled(k.name), key: skillKey(k.name) })),
      problems: s.skills.diagnostics(),
    });
  });

  r.post('/api/skills/:name', (req, res) => {
    const skill = s.skills.get(String(req.params.name));
    if (!skill) return fail(res, 404, `No skill "${req.params.name}".`);
    const b = objectBody(req, res);
    if (!b) return;
    if (typeof b.enabled !== 'boolean') return fail(res, 400, 'Send {"enabled": true} or {"enabled": false}.');
    settings.set(skillKey(skill.name), b.enabled ? 'true' : 'false');
    res.json({ success: true });
  });

  return r;
}
