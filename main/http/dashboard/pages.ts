import { shellStatus } from '../../tools/shell/process.js';
import type { Runtime } from '../../calls/runtime.js';
import type { SessionTable } from '../../access/mcp-sessions.js';
import { PATTERN_SETTINGS, toolKey, skillKey } from '../../core/settings/schema.js';
import { todoData, LIST_STEPS, ONE_TODO_STEPS } from '../../tools/workflow/todo-views.js';
import type { TodoQuery } from '../../store/todos.js';
import type { CallRecord } from '../../calls/activity-recorder.js';
import type { JobQuery, JobRow } from '../../store/jobs.js';
import { planJson } from '../../tools/workflow/plan-mode.js';
import { VERSION } from '../../core/version.js';
import { isActive } from '../../tools/shell/job-manager.js';
import { settingViews, diagnosticViews, maskSecrets } from './setting-views.js';
import { workOf, type McpTaskListRow } from '../../store/mcp-tasks.js';

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
    shell: shellStatus(runtime.settings),
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

/** Steps a todo shows on the Todos page; the card's "all steps" asks for the todo alone (ONE_TODO_STEPS). */
const PAGE_STEPS = LIST_STEPS;

export function todosView(runtime: Runtime, query: TodoQuery) {
  const page = runtime.services.todos.page(query);
  return { tasks: page.rows.map((t) => todoData(t, PAGE_STEPS)), total: page.total, capped: page.capped, counts: runtime.services.todos.counts(), offset: query.offset ?? 0, limit: query.limit };
}

/** One todo (a live update of its card, or all its steps), with the counts that changed with it. */
export function todoView(runtime: Runtime, id: number, allSteps: boolean) {
  const t = runtime.services.todos.withSteps(id);
  return t && { task: todoData(t, allSteps ? ONE_TODO_STEPS : PAGE_STEPS), counts: runtime.services.todos.counts() };
}

export function planView(runtime: Runtime) {
  const plan = runtime.services.plans.current();
  return { plan: { ...planJson(plan), text: plan?.plan_text ?? null } };
}

function jobView(runtime: Runtime, clients: Map<string, string | null>, j: JobRow) {
  return {
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
    log_bytes: j.log_bytes ?? runtime.services.jobs.logSize(j),
  };
}

function sessionClients(sessions: SessionTable): Map<string, string | null> {
  return new Map(sessions.list().map((x) => [x.id, x.client ?? null]));
}

/**
 * One page of jobs (newest first) and every running job, whatever the history: the Jobs page lists the
 * running ones apart, so a running job is never lost past the first page.
 */
export function jobsView(runtime: Runtime, sessions: SessionTable, query: JobQuery) {
  const jobs = runtime.services.jobs;
  const clients = sessionClients(sessions);
  const page = jobs.page(query);
  return {
    jobs: page.rows.map((j) => jobView(runtime, clients, j)),
    running: jobs.running().reverse().map((j) => jobView(runtime, clients, j)),
    total: page.total,
    counts: jobs.repo.counts(),
    offset: query.offset ?? 0,
    limit: query.limit,
  };
}

export function oneJobView(runtime: Runtime, sessions: SessionTable, id: number) {
  const row = runtime.services.jobs.repo.get(id);
  const j = row && (isActive(row) ? runtime.services.jobs.reconcile(row) : row);
  return j && { job: jobView(runtime, sessionClients(sessions), j), counts: runtime.services.jobs.repo.counts() };
}

function jobOf(t: McpTaskListRow): number | null {
  const work = workOf(t);
  return work?.kind === 'job' ? work.id : null;
}

/** A page of the tool calls answered as MCP tasks (the tasks extension), newest first, with their total; the Jobs page shows them beside the jobs. */
export function mcpTasksView(runtime: Runtime, query: { offset: number; limit: number }) {
  const page = runtime.mcpTasks.repo.page(query.offset, query.limit);
  return {
    tasks: page.rows.map((t) => ({
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
    total: page.total,
    offset: query.offset,
    limit: query.limit,
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

export function activityView(_runtime: Runtime, page: { calls: (CallRecord & { cursor?: string })[]; next?: string }, total: { n: number; capped: boolean }) {
  return { calls: page.calls, next: page.next ?? null, total: total.n, capped: total.capped };
}

export function facetsView(runtime: Runtime) {
  return runtime.activity.facets();
}

export type OverviewView = ReturnType<typeof overviewView>;
export type ToolsView = ReturnType<typeof toolsView>;
export type ToolView = ToolsView['tools'][number];
export type SettingsPageView = ReturnType<typeof settingsView>;
export type TodosView = ReturnType<typeof todosView>;
export type TodoView = TodosView['tasks'][number];
export type OneTodoView = NonNullable<ReturnType<typeof todoView>>;
export type PlanView = ReturnType<typeof planView>;
export type OneJobView = NonNullable<ReturnType<typeof oneJobView>>;
export type FacetsView = ReturnType<typeof facetsView>;
export type KeptView = ReturnType<Runtime['retention']['kept']>;
export type JobsView = ReturnType<typeof jobsView>;
export type McpTasksView = ReturnType<typeof mcpTasksView>;
export type JobView = JobsView['jobs'][number];
export type CallbacksView = ReturnType<typeof callbacksView>;
export type SkillsView = ReturnType<typeof skillsView>;
export type ActivityView = ReturnType<typeof activityView>;
export type MinutesView = { minutes: ReturnType<Runtime['activity']['perMinute']>; now: number };
