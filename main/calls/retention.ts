import type { Services } from '../tools/types.js';
import type { McpTasksRepo } from '../store/mcp-tasks.js';
import type { Activity } from './activity-recorder.js';
import type { DisposableStore } from '../core/disposables.js';
import { reclaim, storeSpace, type StoreSpace } from '../store/space.js';
import { pruneJobs, sweepOrphanFiles } from '../tools/shell/job-retention.js';
import { guarded, logger } from '../core/log.js';

const log = logger('retention');

const DAY = 86_400_000;
/** A light pass (MCP tasks past their time to live) every minute; everything else every tenth pass. */
const PASS_EVERY_MS = 60_000;
const FULL_EVERY = 10;
/** The first full pass, shortly after the hub starts serving (never on its start path). */
const FIRST_PASS_AFTER_MS = 5_000;
/**
 * Rows of one kind deleted per pass (a todo takes its steps and their index entries along, ~0.2 ms each
 * on a quiet machine); a pass that hits it is followed by another a second later, so that a year's
 * backlog goes in short steps between the hub's other work.
 */
const PER_PASS = 500;
const AGAIN_AFTER_MS = 1_000;

/** What one pass deleted. */
export interface PruneReport {
  at: number;
  ms: number;
  jobs: number;
  jobBytes: number;
  tasks: number;
  questions: number;
  callbacks: number;
  plans: number;
  mcpTasks: number;
  activity: number;
  reclaimedBytes: number;
}

/** What is kept now, and the limits it is kept under: the dashboard's "Kept" panels. */
export interface KeptView {
  jobs: { running: number; ended: number; logBytes: number; days: number; max: number; maxBytes: number };
  tasks: { open: number; done: number; archived: number; days: number };
  /** `unindexed`: calls text search has not indexed yet (it scans them; indexed while the hub is quiet). */
  activity: { calls: number; unindexed: number; days: number; max: number };
  questions: { pending: number; settled: number; days: number };
  callbacks: { active: number; ended: number; fires: number; days: number };
  plans: { count: number; days: number };
  mcpTasks: { running: number; ended: number };
  store: StoreSpace;
  lastPass?: PruneReport;
}

/**
 * Retention of everything that accumulates (ARCHITECTURE §4): ended jobs and their files, finished todos,
 * settled questions, callback fires, finished plans, MCP tasks past their time to live — pruned while the
 * hub runs, by the limits of the settings beside ACTIVITY_RETENTION_DAYS (activity prunes itself, calls/
 * activity-recorder.ts). Running jobs, open todos, waiting questions and active callbacks are never deleted. Each
 * pass deletes a bounded number of rows, so it never holds the hub's thread long, and gives the space back.
 */
export class Retention {
  private passes = 0;
  private last?: PruneReport;

  constructor(
    private services: Services,
    private mcpTasks: McpTasksRepo,
    private activity: Activity,
  ) {}

  /** Passes on a timer owned by `lifetime` (the runtime's): the first a few seconds after start. */
  start(lifetime: DisposableStore): void {
    if (this.services.readOnly) return;
    let timer: NodeJS.Timeout | undefined;
    const schedule = (ms: number) => {
      timer = setTimeout(guarded(log, 'retention pass', tick), ms);
      timer.unref();
    };
    const tick = () => {
      const full = this.passes++ % FULL_EVERY === 0;
      const r = this.run(Date.now(), full);
      // A pass that hit its bound leaves more to do: the next comes at once-ish, not in a minute.
      schedule(r.more ? AGAIN_AFTER_MS : PASS_EVERY_MS);
    };
    schedule(FIRST_PASS_AFTER_MS);
    lifetime.add(() => clearTimeout(timer));
  }

  /** One pass; `full` includes the kinds that change slowly (all but MCP tasks). */
  run(now = Date.now(), full = true): PruneReport & { more: boolean } {
    const t0 = performance.now();
    const s = this.services;
    const settings = s.settings;
    const days = (key: 'JOB_RETENTION_DAYS' | 'TASK_RETENTION_DAYS' | 'QUESTION_RETENTION_DAYS' | 'CALLBACK_RETENTION_DAYS' | 'PLAN_RETENTION_DAYS') => now - settings.get(key) * DAY;
    const r: PruneReport & { more: boolean } = { at: now, ms: 0, jobs: 0, jobBytes: 0, tasks: 0, questions: 0, callbacks: 0, plans: 0, mcpTasks: 0, activity: 0, reclaimedBytes: 0, more: false };
    r.mcpTasks = this.mcpTasks.expire(now, PER_PASS);
    let more = r.mcpTasks === PER_PASS;
    if (full) {
      const jobs = pruneJobs(s.jobs, { endedBefore: days('JOB_RETENTION_DAYS'), keep: settings.get('JOB_MAX_KEPT'), maxBytes: settings.get('JOB_MAX_KEPT_BYTES') });
      r.jobs = jobs.jobs;
      r.jobBytes = jobs.bytes + (jobs.more ? 0 : sweepOrphanFiles(s.jobs, s.paths.jobsDir, now));
      r.tasks = s.todos.deleteFinishedBefore(days('TASK_RETENTION_DAYS'), PER_PASS);
      r.questions = s.questions.deleteSettledBefore(days('QUESTION_RETENTION_DAYS'), PER_PASS);
      r.callbacks = s.callbacks.deleteFiredBefore(days('CALLBACK_RETENTION_DAYS'), PER_PASS);
      r.plans = s.plans.deleteFinishedBefore(days('PLAN_RETENTION_DAYS'), PER_PASS);
      r.activity = this.activity.prune();
      more ||= jobs.more || [r.tasks, r.questions, r.plans].includes(PER_PASS) || r.callbacks >= PER_PASS;
    }
    r.reclaimedBytes = reclaim(s.db);
    more ||= r.reclaimedBytes > 0 && storeSpace(s.db, s.paths.database).freeBytes > 0;
    r.ms = performance.now() - t0;
    r.more = more;
    const deleted = r.jobs + r.tasks + r.questions + r.callbacks + r.plans + r.mcpTasks + r.activity;
    if (deleted > 0 || r.reclaimedBytes > 0) {
      log.info(`retention: deleted ${deleted} record(s) (jobs ${r.jobs}, tasks ${r.tasks}, questions ${r.questions}, callbacks ${r.callbacks}, plans ${r.plans}, MCP tasks ${r.mcpTasks}, activity ${r.activity}), ${r.jobBytes} bytes of job files, gave back ${r.reclaimedBytes} bytes, in ${Math.round(r.ms)} ms`);
      s.events.publish({ type: 'records_pruned', jobs: r.jobs, tasks: r.tasks, questions: r.questions, callbacks: r.callbacks, plans: r.plans, mcpTasks: r.mcpTasks, activity: r.activity, at: now });
    }
    if (deleted > 0 || r.reclaimedBytes > 0 || !this.last) this.last = r;
    return r;
  }

  kept(): KeptView {
    const s = this.services;
    const settings = s.settings;
    const jobs = s.jobs.repo.keptBytes();
    const tasks = s.todos.counts();
    const questions = s.questions.count();
    const callbacks = s.callbacks.count();
    return {
      jobs: { running: s.jobs.repo.countRunning(), ended: jobs.jobs, logBytes: jobs.bytes, days: settings.get('JOB_RETENTION_DAYS'), max: settings.get('JOB_MAX_KEPT'), maxBytes: settings.get('JOB_MAX_KEPT_BYTES') },
      tasks: { ...tasks, days: settings.get('TASK_RETENTION_DAYS') },
      activity: { calls: this.activity.count(), unindexed: this.activity.unindexed(), days: settings.get('ACTIVITY_RETENTION_DAYS'), max: settings.get('ACTIVITY_MAX_CALLS') },
      questions: { ...questions, days: settings.get('QUESTION_RETENTION_DAYS') },
      callbacks: { ...callbacks, days: settings.get('CALLBACK_RETENTION_DAYS') },
      plans: { count: s.plans.count(), days: settings.get('PLAN_RETENTION_DAYS') },
      mcpTasks: this.mcpTasks.count(),
      store: storeSpace(s.db, s.paths.database),
      ...(this.last ? { lastPass: this.last } : {}),
    };
  }
}
