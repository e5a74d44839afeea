import type { Runtime } from '../../calls/runtime.js';
import type { SessionTable } from '../../access/sessions.js';
import { PATTERN_SETTINGS, toolKey, skillKey } from '../../core/settings/schema.js';
import { taskData } from '../../tools/workflow/task-manager.js';
import { planJson } from '../../tools/workflow/plan-mode.js';
import { VERSION } from '../../core/version.js';
import { isActive } from '../../tools/shell/jobs.js';
import { settingViews, diagnosticViews, maskSecrets } from './settings.js';
import { workOf, type McpTaskRow } from '../../store/mcp-tasks.js';

/**
 * What each dashboard page reads, built in one place. The renderer imports the
 * types of these answers (`import type`), so the page and the hub cannot drift.
 */
export function overviewView(runtime: Runtime, sessions: SessionTable, url: string) {
  const s = runtime.services;
  return {
    version: VERSION,
    serving: !runtime.registry.servingPaused(),
    home: runtime.paths.home,
    settingsFile: runtime.settings.userFile,
    endpoints: { streamableHttp: `${url}/mcp`, sse: `${url}/sse`, jsonrpc: `${url}/api/mcp/jsonrpc`, websocket: `${url.replace(/^http/, 'ws')}/mcp/ws`, events: `${url}/api/mcp/connect`, health: `${url}/api/mcp/health` },
    sessions: sessions.list(),
    recent: runtime.activity.recent(15),
    askTimeoutS: runtime.settings.get('ASK_TIMEOUT_S'),
    counts: { tools: runtime.registry.visible().length, jobsRunning: s.jobs.repo.countRunning(), questionsPending: s.questions.pending().length, callbacks: s.callbacks.active().length },
  };
}

export function toolsView(runtime: Runtime) {
  return {
    serving: !runtime.registry.servingPaused(),
    tools: runtime.registry.tools.map((t) => ({ ...runtime.registry.describe(t), group: t.group, enabled: runtime.registry.isEnabled(t.name), key: toolKey(t.name), stats: runtime.activity.statsFor(t.name) })),
    /** The user's plugin files (PINCER_HOME/tools and /plugins): what each adds and its problems by line. */
    plugins: [...runtime.contributions.status()],
  };
}

export function settingsView(runtime: Runtime) {
  const settings = runtime.settings;
  return {
    file: settings.userFile,
    // Project files of the clients seen lately; their refused lines are among the diagnostics.
    projectFiles: settings.projectFiles(),
    text: maskSecrets(settings.userFileText()),
    keys: settingViews(settings),
    patterns: PATTERN_SETTINGS.map((p) => ({ pattern: p.pattern.source, description: p.description, default: p.default, trust: p.trust.level })),
    diagnostics: diagnosticViews([...settings.diagnostics(), ...settings.projectDiagnostics()]),
  };
}

export function tasksView(runtime: Runtime) {
  const s = runtime.services;
  const plan = s.plans.current();
  return { tasks: s.tasks.list().map(taskData), plan: { ...planJson(plan), text: plan?.plan_text ?? null } };
}

export function jobsView(runtime: Runtime, sessions: SessionTable) {
  const s = runtime.services;
  const clients = new Map(sessions.list().map((x) => [x.id, x.client ?? null]));
  return {
    jobs: s.jobs
      .list()
      .reverse()
      .map((j) => ({
        id: j.id,
        command: j.command,
        cwd: j.cwd,
        session: j.session,
        client: j.session ? (clients.get(j.session) ?? runtime.activity.clientOf(j.session) ?? null) : null,
        status: j.status === 'exited' ? `exited ${j.exit_code}` : j.status === 'starting' ? 'running' : j.status,
        running: isActive(j),
        exit_code: j.exit_code,
        pid: j.pid,
        started_at: j.started_at,
        ended_at: j.ended_at,
        note: j.note,
        log_bytes: s.jobs.logSize(j),
      })),
  };
}

function jobOf(t: McpTaskRow): number | null {
  const work = workOf(t);
  return work?.kind === 'job' ? work.id : null;
}

/** Tool calls answered as MCP tasks (the tasks extension), newest first; the Jobs page shows them beside the jobs. */
export function mcpTasksView(runtime: Runtime) {
  return {
    tasks: runtime.mcpTasks.repo.recent(100).map((t) => ({
      id: t.id,
      tool: t.tool,
      client: t.client,
      status: t.status,
      message: t.status_message,
      created_at: t.created_at,
      updated_at: t.updated_at,
      waiting_for: t.input_requests ? Object.keys(JSON.parse(t.input_requests) as Record<string, unknown>) : [],
      /** The background job that runs the task's work (a Bash call past BASH_TASK_AFTER_MS), shown on the same page. */
      job: jobOf(t),
    })),
  };
}

export function callbacksView(runtime: Runtime) {
  const s = runtime.services;
  return {
    callbacks: s.callbacks.active().map((c) => ({ id: c.slot, message: c.message, delay_seconds: c.delay_s, next_fire_at: c.next_fire_at, fires_done: c.fires_done, fires_left: c.repeat_total === -1 ? null : c.repeat_total - c.fires_done })),
    recent: s.callbacks.recentFires(30).map((f) => ({ id: f.id, message: f.message, fired_at: f.fired_at, late: Boolean(f.late), fire: f.fire_number })),
    now: Date.now(),
  };
}

export function skillsView(runtime: Runtime) {
  const s = runtime.services;
  s.skills.rescan();
  return {
    folders: s.skills.folders(),
    skills: s.skills.list().map((k) => ({ name: k.name, description: k.description, folder: k.dir, source: k.source, enabled: s.skills.isEnabled(k.name), key: skillKey(k.name) })),
    problems: s.skills.diagnostics(),
  };
}

export function activityView(runtime: Runtime, calls: ReturnType<Runtime['activity']['recent']>) {
  return { calls, ...runtime.activity.facets() };
}

export type OverviewView = ReturnType<typeof overviewView>;
export type ToolsView = ReturnType<typeof toolsView>;
export type ToolView = ToolsView['tools'][number];
export type SettingsPageView = ReturnType<typeof settingsView>;
export type TasksView = ReturnType<typeof tasksView>;
export type JobsView = ReturnType<typeof jobsView>;
export type McpTasksView = ReturnType<typeof mcpTasksView>;
export type JobView = JobsView['jobs'][number];
export type CallbacksView = ReturnType<typeof callbacksView>;
export type SkillsView = ReturnType<typeof skillsView>;
export type ActivityView = ReturnType<typeof activityView>;
export type MinutesView = { minutes: ReturnType<Runtime['activity']['perMinute']>; now: number };
