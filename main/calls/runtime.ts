import { DisposableStore } from '../core/disposables.js';
import os from 'node:os';
import { pincerPaths, ensureHome, type PincerPaths } from '../core/paths.js';
import { outsideProfileWarning } from '../core/ownership.js';
import { Settings, formatDiagnostic, type SettingsChange, type SettingsView } from '../core/settings/settings.js';
import { openStore } from '../store/db.js';
import { StoreFileGuard } from '../store/file-guard.js';
import { JobManager, type JobEvent } from '../tools/shell/job-manager.js';
import { LiveRuns } from '../tools/shell/live-runs.js';
import { allTools } from '../tools/catalogue.js';
import { ToolRegistry } from './registry.js';
import { EventBus } from './event-bus.js';
import type { Services } from '../tools/types.js';
import { ignoreFailure, logger } from '../core/log.js';
import { shellsReady } from '../tools/shell/shells.js';
import { shownProvisionally } from '../tools/shell/process.js';
import { TodosRepo } from '../store/todos.js';
import { PlansRepo } from '../store/plans.js';
import { CallbacksRepo } from '../store/callbacks.js';
import { QuestionsRepo } from '../store/questions.js';
import { CallbackScheduler } from '../tools/workflow/scheduler.js';
import { SkillCatalog } from '../tools/workflow/skills.js';
import { Asker } from '../tools/interaction/asker.js';
import { findBrowser, PlaywrightRenderer, type PageRenderer } from '../tools/web/browser.js';
import { SearchService } from '../tools/search/search-service.js';
import { Activity } from './activity-recorder.js';
import { ToolCalls } from './calls.js';
import { Notifier } from './notifier.js';
import { ActivityRepo } from '../store/activity.js';
import { Contributions } from './contributions.js';
import { jobKeeper } from './job-tasks.js';
import type { TaskOwnerRole } from './task-owner.js';
import { TaskRunner } from './task-runner.js';
import { Retention } from './retention.js';
import { questionTaskWork } from '../tools/interaction/ask-user-question.js';

const log = logger('runtime');

/**
 * V8's default heuristics let a process that moves megabytes per call (ReadBgOutput of a big log,
 * through the SDK's web-stream transport) pile up ~200 MB of dead strings and buffers before a full
 * collection; --optimize-for-size collects sooner and keeps the heap tight. Measured
 * (bench/RESULTS.md): idle hub ~104 → ~90 MB, 1 GB log read peak ~320 → ~175 MB. Set here, before the
 * runtime allocates, because a hub is not always started by our own command line (the tray app runs it in
 * Electron's main process); hubs we start get it, and the flags that only work there, from HUB_NODE_FLAGS.
 */
let heapTuned = false;
function tuneHeapForSize(): void {
  if (heapTuned || process.env.PINCER_V8_DEFAULT_HEAP === '1') return;
  heapTuned = true;
  process.getBuiltinModule('node:v8').setFlagsFromString('--optimize-for-size');
}

export interface Runtime {
  activity: Activity;
  /** The hub's own settings, the one writer (dashboard, token rotation). Tools read `services.settings`. */
  settings: Settings;
  paths: PincerPaths;
  services: Services;
  registry: ToolRegistry;
  /** The one way every surface calls a tool. */
  calls: ToolCalls;
  /** The one place client notifications are fanned out from. */
  notifier: Notifier;
  /** What the user's plugins add (main/plugins/ fills it; empty where none are loaded). */
  contributions: Contributions;
  /** Tool calls answered as MCP tasks (the tasks extension), durable in pincer.db. */
  mcpTasks: TaskRunner;
  /** Prunes what accumulates while the process runs, and says what is kept. */
  retention: Retention;
  events: EventBus;
  warnings: string[];
  close(): void;
}

export interface RuntimeOptions {
  home: string;
  env?: NodeJS.ProcessEnv;
  watch?: boolean;
  renderer?: PageRenderer;
  /**
   * The one client's project folder, for a process that serves a single client
   * (`pincer stdio --standalone`): its `.pincer/pincer-env.txt` narrows what the
   * tools see. A hub never gets one: it serves many clients and never reads the
   * folder it happens to run in; per-client views come from `settings.forProject`.
   */
  projectDir?: string;
  /**
   * false: keep V8's default heap heuristics. `pincer stdio --standalone` serves one client and lives as
   * long as its window; --optimize-for-size cost it 20–37 µs of CPU per cheap call (7× the young-generation
   * collections, bench/RESULTS.md "hotpath"), while the long-lived hub keeps it for its memory targets.
   */
  leanHeap?: boolean;
  /** 'hub' only for the process holding the hub lock: it takes over tasks other hubs left (task-owner.ts). */
  role?: TaskOwnerRole;
}

/** Builds everything a Pincer process serves from: settings, database, jobs, tools. */
export function createRuntime(opts: RuntimeOptions): Runtime {
  if (opts.leanHeap !== false) tuneHeapForSize();
  const paths = pincerPaths(opts.home);
  ensureHome(paths);
  // Everything this runtime opens is released by one store, newest first; a start that fails part-way releases what it had opened.
  const lifetime = new DisposableStore('the runtime', log);
  try {
    return build(opts, paths, lifetime);
  } catch (err) {
    lifetime.dispose();
    throw err;
  }
}

/** The build, step by step: each step registers in `lifetime` what it opens, as it opens it. */
function build(opts: RuntimeOptions, paths: PincerPaths, lifetime: DisposableStore): Runtime {
  const { settings, view, warnings } = openSettings(opts, paths, lifetime);
  const { store, storeGuard } = openDatabase(paths, lifetime, warnings);
  const events = new EventBus();
  const services = buildServices(opts, paths, view, { store, storeGuard, events }, lifetime);
  const core = buildCallCore(opts, settings, services, { store, events }, lifetime);
  wireEvents(settings, view, services, core.mcpTasks, core.contributions, lifetime);
  const retention = new Retention(services, core.mcpTasks.repo, core.activity);
  startBackground(opts, settings, services, core.mcpTasks, retention, lifetime);
  return { ...core, settings, paths, services, retention, events, warnings, close: () => lifetime.dispose() };
}

/** The settings file (and the single client's project view of it, which logs its own warnings), with what is wrong in them. */
function openSettings(opts: RuntimeOptions, paths: PincerPaths, lifetime: DisposableStore): { settings: Settings; view: SettingsView; warnings: string[] } {
  const settings = new Settings({ userFile: paths.settingsFile, env: opts.env });
  lifetime.add(() => settings.close());
  const warnings: string[] = settings.diagnostics().map(formatDiagnostic);
  const profileWarning = outsideProfileWarning(paths.home, os.homedir());
  if (profileWarning) warnings.push(profileWarning);
  for (const w of warnings) log.warn(w);
  // What tools read: the hub's settings, or the single client's project view of them.
  const project = opts.projectDir !== undefined ? settings.forProject(opts.projectDir) : undefined;
  if (project) warnings.push(...project.projectDiagnostics().map(formatDiagnostic));
  return { settings, view: project ?? settings, warnings };
}

type Store = ReturnType<typeof openStore>;

/** pincer.db, guarded: every statement that writes checks first that the file is still the one opened. */
function openDatabase(paths: PincerPaths, lifetime: DisposableStore, warnings: string[]): { store: Store; storeGuard: StoreFileGuard } {
  const store = openStore(paths.database);
  lifetime.add(() => {
    if (store.db.open) store.db.close();
  });
  if (store.warning) warnings.push(store.warning);
  const storeGuard = new StoreFileGuard(paths.database, store.db);
  lifetime.add(() => storeGuard.close());
  // Before any statement is prepared: every one that writes checks the file first.
  storeGuard.guardWrites();
  storeGuard.watch();
  return { store, storeGuard };
}

/** What tools are given: the store's repositories, jobs, the scheduler, the asker, skills, a browser, search. */
function buildServices(opts: RuntimeOptions, paths: PincerPaths, view: SettingsView, { store, storeGuard, events }: { store: Store; storeGuard: StoreFileGuard; events: EventBus }, lifetime: DisposableStore): Services {
  const jobs = new JobManager(store.db, view, paths.jobsDir, store.readOnly);
  const callbacks = new CallbacksRepo(store.db);
  const questions = new QuestionsRepo(store.db);
  const skills = new SkillCatalog(view, paths.skillsDir, opts.projectDir);
  lifetime.add(() => skills.close());
  for (const p of skills.diagnostics()) log.warn(`skill ${p.file}:${p.line}: ${p.message}`);
  return {
    paths,
    settings: view,
    db: store.db,
    readOnly: store.readOnly,
    storeProblem: () => storeGuard.known(),
    jobs,
    runs: new LiveRuns(),
    events,
    todos: new TodosRepo(store.db),
    plans: new PlansRepo(store.db),
    callbacks,
    scheduler: new CallbackScheduler(callbacks, events, store.readOnly),
    questions,
    asker: new Asker(questions, events, view),
    skills,
    browser: pageRenderer(opts, view, lifetime),
    search: new SearchService(view),
  };
}

/** ReadDocs' renderer: the one the process was given (the tray's Electron window), else a Chromium found now, swapped when the setting names another. */
function pageRenderer(opts: RuntimeOptions, view: SettingsView, lifetime: DisposableStore): () => PageRenderer | undefined {
  let playwright: { path: string; renderer: PlaywrightRenderer } | undefined;
  lifetime.add(() => void playwright?.renderer.close());
  return () => {
    if (opts.renderer) return opts.renderer;
    const found = findBrowser(view);
    if (!found) return undefined;
    if (playwright?.path !== found) {
      void playwright?.renderer.close();
      playwright = { path: found, renderer: new PlaywrightRenderer(found) };
    }
    return playwright.renderer;
  };
}

type CallCore = Pick<Runtime, 'contributions' | 'mcpTasks' | 'registry' | 'calls' | 'notifier' | 'activity'>;

/** The call core over the services: the registry with plugins' contributions, calls, MCP tasks, notifications, activity. */
function buildCallCore(opts: RuntimeOptions, settings: Settings, services: Services, { store, events }: { store: Store; events: EventBus }, lifetime: DisposableStore): CallCore {
  const { jobs, paths } = services;
  const contributions = new Contributions();
  // AskUserQuestion's tasks wait on their question in SQLite, a Bash task's work is a job whose files
  // outlive the hub: a hub carries on those another left; every other kind of task died with its hub.
  const mcpTasks = new TaskRunner(store.db, events, { readOnly: store.readOnly, role: opts.role ?? 'standalone', questions: questionTaskWork(services.asker, services.settings), resultsDir: paths.taskResultsDir });
  mcpTasks.keep('job', jobKeeper(jobs));
  // Before the database closes: work still running stops without recording anything (a question task's
  // question stays pending for the next hub).
  lifetime.add(() => mcpTasks.close());
  const registry = new ToolRegistry(allTools(), services, contributions);
  const calls = new ToolCalls(services, registry, settings);
  lifetime.add(() => contributions.close());
  const notifier = new Notifier(events, services.callbacks);
  lifetime.add(() => notifier.close());
  const activity = new Activity(events, new ActivityRepo(store.db), settings, store.readOnly);
  lifetime.add(() => {
    if (store.db.open) activity.close();
  });
  return { contributions, mcpTasks, registry, calls, notifier, activity };
}

/** What turns changes (settings, skills, jobs, plugins) into events: every listener registered in `lifetime`, released on close. */
function wireEvents(settings: Settings, view: SettingsView, services: Services, mcpTasks: TaskRunner, contributions: Contributions, lifetime: DisposableStore): void {
  const { events, skills, jobs } = services;
  lifetime.add(contributions.onChange((kinds) => events.publish({ type: 'plugins_changed', kinds, at: Date.now() })));
  lifetime.listen(skills, 'change', () => {
    for (const p of skills.diagnostics()) log.warn(`skill ${p.file}:${p.line}: ${p.message}`);
    events.publish({ type: 'skills_changed', at: Date.now() });
  });
  lifetime.listen(jobs, 'event', (e: JobEvent) => {
    events.publish({ type: e.type, job: { id: e.job.id, command: e.job.command, status: e.job.status, exit_code: e.job.exit_code }, at: Date.now() });
    if (e.type === 'job_ended') mcpTasks.workChanged('job', e.job.id);
  });
  lifetime.listen(settings, 'change', () => {
    for (const d of settings.diagnostics()) log.warn(formatDiagnostic(d));
  });
  // A project's warnings appeared or went: the dashboard's settings page shows them.
  lifetime.listen(settings, 'diagnostics', () => events.publish({ type: 'settings_changed', keys: [], at: Date.now() }));
  lifetime.listen(view, 'change', (c: SettingsChange) => {
    events.publish({ type: 'settings_changed', keys: c.changed, at: Date.now() });
    if (c.changed.some((k) => k === 'TOOLS' || k.startsWith('TOOL_'))) events.publish({ type: 'tools_changed', at: Date.now() });
    if (c.changed.some((k) => k.startsWith('SKILL_') || k === 'ADDITIONAL_SKILLS')) {
      skills.rescan();
      events.publish({ type: 'skills_changed', at: Date.now() });
    }
  });
}

/** What runs beside the calls: file watches, job watching, retention, task reconciling, the scheduler, the shell probe. */
function startBackground(opts: RuntimeOptions, settings: Settings, services: Services, mcpTasks: TaskRunner, retention: Retention, lifetime: DisposableStore): void {
  const { jobs, events } = services;
  if (opts.watch !== false) {
    settings.watch();
    services.skills.watch();
  }
  jobs.startWatching();
  lifetime.add(() => jobs.stopWatching());
  retention.start(lifetime);
  mcpTasks.reconcile();
  services.scheduler.start();
  // Which shells answer, found out beside the start rather than in the first tool list's path.
  // A description that named a shell before the probes answered may have named the wrong one: tell clients to list again.
  void shellsReady(services.settings.get('BASH_SHELL'))
    .then(() => {
      if (shownProvisionally()) events.publish({ type: 'tools_changed', at: Date.now() });
    })
    .catch(ignoreFailure(log, 'probing the shells'));
  lifetime.add(() => services.scheduler.stop());
}
