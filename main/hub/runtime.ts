import path from 'node:path';
import fs from 'node:fs';
import { pincerPaths, ensureHome, type PincerPaths } from '../core/paths.js';
import { Settings, formatDiagnostic } from '../core/settings/settings.js';
import { openStore } from '../store/db.js';
import { StoreFileGuard } from '../store/file-guard.js';
import { JobManager } from '../tools/shell/jobs.js';
import { allTools } from '../tools/catalogue.js';
import { ToolRegistry } from './registry.js';
import { EventBus } from '../tools/events.js';
import type { Services } from '../tools/types.js';
import { logger } from '../core/log.js';
import { TasksRepo } from '../store/tasks.js';
import { PlansRepo } from '../store/plans.js';
import { CallbacksRepo } from '../store/callbacks.js';
import { QuestionsRepo } from '../store/questions.js';
import { CallbackScheduler } from '../tools/workflow/scheduler.js';
import { SkillCatalog } from '../tools/workflow/skills.js';
import { Asker } from '../tools/interaction/asker.js';
import { findBrowser, PlaywrightRenderer, type PageRenderer } from '../tools/web/browser.js';
import { SearchService } from '../tools/search/service.js';
import { Activity } from './activity.js';
import { ToolCalls } from './calls.js';
import { Notifier } from './notifier.js';

const log = logger('runtime');

export interface Runtime {
  activity: Activity;
  paths: PincerPaths;
  services: Services;
  registry: ToolRegistry;
  /** The one way every surface calls a tool. */
  calls: ToolCalls;
  /** The one place client notifications are fanned out from. */
  notifier: Notifier;
  events: EventBus;
  warnings: string[];
  close(): void;
}

/** Builds everything a Pincer process serves from: settings, database, jobs, tools. */
export function createRuntime(opts: { home: string; cwd?: string; env?: NodeJS.ProcessEnv; watch?: boolean; renderer?: PageRenderer }): Runtime {
  const paths = pincerPaths(opts.home);
  ensureHome(paths);
  const cwd = opts.cwd ?? process.cwd();
  const projectFile = path.join(cwd, '.pincer', 'pincer-env.txt');
  const settings = new Settings({ userFile: paths.settingsFile, projectFile: fs.existsSync(path.dirname(projectFile)) ? projectFile : undefined, env: opts.env });
  const warnings: string[] = settings.diagnostics().map(formatDiagnostic);
  for (const w of warnings) log.warn(w);
  const store = openStore(paths.database);
  if (store.warning) warnings.push(store.warning);
  const storeGuard = new StoreFileGuard(paths.database, store.db);
  storeGuard.watch();
  const jobs = new JobManager(store.db, settings, paths.jobsDir, store.readOnly);
  const events = new EventBus();
  const callbacks = new CallbacksRepo(store.db);
  const questions = new QuestionsRepo(store.db);
  const skills = new SkillCatalog(settings, paths.skillsDir, cwd);
  for (const p of skills.diagnostics()) log.warn(`skill ${p.file}:${p.line}: ${p.message}`);
  let playwright: { path: string; renderer: PlaywrightRenderer } | undefined;
  const browser = (): PageRenderer | undefined => {
    if (opts.renderer) return opts.renderer;
    const found = findBrowser(settings);
    if (!found) return undefined;
    if (playwright?.path !== found) {
      void playwright?.renderer.close();
      playwright = { path: found, renderer: new PlaywrightRenderer(found) };
    }
    return playwright.renderer;
  };
  const services: Services = {
    paths,
    settings,
    db: store.db,
    readOnly: store.readOnly,
    storeProblem: () => storeGuard.check(),
    jobs,
    events,
    tasks: new TasksRepo(store.db),
    plans: new PlansRepo(store.db),
    callbacks,
    scheduler: new CallbackScheduler(callbacks, events, store.readOnly),
    questions,
    asker: new Asker(questions, events, settings),
    skills,
    browser,
    search: new SearchService(settings),
  };
  const registry = new ToolRegistry(allTools(), services);
  const calls = new ToolCalls(services, registry);
  const notifier = new Notifier(events, callbacks);
  const activity = new Activity(events);
  skills.on('change', () => {
    for (const p of skills.diagnostics()) log.warn(`skill ${p.file}:${p.line}: ${p.message}`);
    events.publish({ type: 'skills_changed', at: Date.now() });
  });
  jobs.on('event', (e) => events.publish({ type: e.type, job: { id: e.job.id, command: e.job.command, status: e.job.status, exit_code: e.job.exit_code }, at: Date.now() }));
  settings.on('change', (c) => {
    for (const d of settings.diagnostics()) log.warn(formatDiagnostic(d));
    events.publish({ type: 'settings_changed', keys: c.changed, at: Date.now() });
    if (c.changed.some((k) => k === 'TOOLS' || k.startsWith('TOOL_'))) events.publish({ type: 'tools_changed', at: Date.now() });
    if (c.changed.some((k) => k.startsWith('SKILL_') || k === 'ADDITIONAL_SKILLS')) {
      skills.rescan();
      events.publish({ type: 'skills_changed', at: Date.now() });
    }
  });
  if (opts.watch !== false) {
    settings.watch();
    skills.watch();
  }
  jobs.startWatching();
  services.scheduler.start();
  let closed = false;
  return {
    activity,
    paths,
    services,
    registry,
    calls,
    notifier,
    events,
    warnings,
    close() {
      if (closed) return;
      closed = true;
      notifier.close();
      settings.close();
      skills.close();
      void playwright?.renderer.close();
      services.scheduler.stop();
      jobs.stopWatching();
      storeGuard.close();
      if (store.db.open) store.db.close();
    },
  };
}
