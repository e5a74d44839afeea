import fs from 'node:fs';
import path from 'node:path';
import { pincerPaths, ensureHome } from '../../main/core/paths.js';
import { openStore, type Db } from '../../main/store/db.js';
import { JobsRepo } from '../../main/store/jobs.js';
import { TodosRepo } from '../../main/store/todos.js';
import { ActivityRepo, type CallFinished, type CallStarted } from '../../main/store/activity.js';
import { McpTasksRepo } from '../../main/store/mcp-tasks.js';
import { QuestionsRepo } from '../../main/store/questions.js';
import { CallbacksRepo } from '../../main/store/callbacks.js';
import { PlansRepo } from '../../main/store/plans.js';
import { writeJsonAtomic, type ExitRecord } from '../../main/tools/shell/job-files.js';
import { rng } from './fuzz.js';

/**
 * A data folder as a heavy user has it after months of Pincer, seeded through Pincer's own store code
 * (the repositories in main/store/) in seconds: what the tests at scale and bench/year-of-use.ts start
 * hubs on. Every count is a parameter; `YEAR` is a year of daily use, `FRESH` a folder of the first days.
 */
export interface SeedCounts {
  jobs: number;
  activity: number;
  tasks: number;
  mcpTasks: number;
  questions: number;
  callbacks: number;
  plans: number;
}

export const YEAR: SeedCounts = { jobs: 10_000, activity: 100_000, tasks: 10_000, mcpTasks: 10_000, questions: 2_000, callbacks: 500, plans: 300 };
export const FRESH: SeedCounts = { jobs: 100, activity: 200, tasks: 10, mcpTasks: 10, questions: 5, callbacks: 3, plans: 2 };

export interface SeedOptions {
  counts: SeedCounts;
  /**
   * Scales every job's log (1: sizes drawn as real jobs write them, about 30 KB on average with a few of
   * megabytes; 0.05 for a test that needs real files but not hundreds of megabytes).
   */
  logScale?: number;
  /** Jobs and tasks spread over this many days before `now`; activity over `activityDays` (inside its retention). */
  spanDays?: number;
  activityDays?: number;
  /** Ended MCP tasks' time to live (the hub's is an hour; a small one makes them expired at once). */
  mcpTtlMs?: number;
  now?: number;
}

export interface SeedReport {
  ms: number;
  logBytes: number;
  counts: SeedCounts;
}

const DAY = 86_400_000;
const TOOLS = ['Bash', 'Bash', 'Bash', 'ReadDocs', 'WebSearch', 'TaskManager', 'TaskManager', 'ReadBgOutput', 'BackgroundBash', 'ListBgTasks', 'ReadImage', 'PlanMode', 'SetCallback', 'AskUserQuestion', 'InvokeSkill', 'KillBgTask'];
const CLIENTS = ['claude-code 2.1.280', 'claude-code 2.1.126', 'claude-ai 0.1.0', 'cursor-vscode 1.0.0', 'Visual Studio Code 1.104.0', 'gemini-cli-mcp-client 0.61.0', 'codex-mcp-client 0.40.0', 'windsurf 1.12.0', 'mcp-remote 0.15.1', 'ai-sdk-mcp-client 2.0.0', 'langchain-mcp-adapters 1.1.4', 'inspector-client 2.12.0'];
const COMMANDS = ['npm run build', 'npm test', 'npm run dev', 'cargo build --release', 'cargo test --workspace', 'make -j4', 'pytest -x tests/', 'python3 -m http.server 8000', 'docker compose up --build', 'go test ./...', 'tail -f logs/app.log', 'git log --oneline | head -50', './scripts/deploy.sh staging', 'npx tsc --watch', 'yarn lint'];
const PROJECTS = ['pincer', 'website', 'api-server', 'ml-pipeline', 'infra', 'mobile-app', 'docs', 'scratch'];

const pick = <T>(rnd: () => number, list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;

/** A block of output as builds and servers write it (some lines coloured with ANSI escapes), repeated to size. */
const LOG_BLOCK = (() => {
  const lines: string[] = [];
  for (let i = 0; i < 600; i++) {
    const t = `00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
    if (i % 50 === 49) lines.push(`\x1b[33mwarning\x1b[0m: unused variable \`x${i}\` at src/module_${i % 17}.rs:${i}:9`);
    else if (i % 97 === 96) lines.push(`\x1b[1;31merror\x1b[0m: test case_${i} failed: expected 200, got 500`);
    else if (i % 10 === 0) lines.push(`\x1b[32m✓\x1b[0m ${t} passed suite ${i / 10} (${(i * 7) % 900} ms)`);
    else lines.push(`[${t}] Compiling module_${i} v0.${i % 9}.${i % 5} (/home/user/projects/${PROJECTS[i % PROJECTS.length]}/crates/module_${i})`);
  }
  return Buffer.from(lines.join('\n') + '\n');
})();

/** Bytes of a job's log: most are small, a few are megabytes (servers and watchers left running). */
function logSizeOf(rnd: () => number, scale: number): number {
  const r = rnd();
  const bytes = r < 0.7 ? 200 + rnd() * 4_000 : r < 0.95 ? 4_000 + rnd() * 60_000 : r < 0.999 ? 64_000 + rnd() * 900_000 : 1_000_000 + rnd() * 8_000_000;
  return Math.max(1, Math.round(bytes * scale));
}

function writeLog(file: string, bytes: number): void {
  const fd = fs.openSync(file, 'w', 0o600);
  try {
    for (let left = bytes; left > 0; left -= LOG_BLOCK.length) fs.writeSync(fd, LOG_BLOCK, 0, Math.min(left, LOG_BLOCK.length));
  } finally {
    fs.closeSync(fd);
  }
}

/** Runs `fill` in one transaction without waiting for the disk on each commit (a seed, not user data). */
function bulk(db: Db, fill: () => void): void {
  db.pragma('synchronous = OFF');
  try {
    db.transaction(fill)();
  } finally {
    db.pragma('synchronous = FULL');
  }
}

function seedJobs(db: Db, jobsDir: string, n: number, o: Required<Omit<SeedOptions, 'counts'>>, rnd: () => number): number {
  const repo = new JobsRepo(db);
  fs.mkdirSync(jobsDir, { recursive: true, mode: 0o700 });
  let logBytes = 0;
  bulk(db, () => {
    for (let i = 0; i < n; i++) {
      const at = o.now - o.spanDays * DAY + Math.floor(((i + rnd()) / n) * o.spanDays * DAY);
      const project = pick(rnd, PROJECTS);
      const job = repo.insert({
        command: `${pick(rnd, COMMANDS)}${rnd() < 0.3 ? ` 2>&1 | tee build-${i}.log` : ''}`,
        cwd: `/home/user/projects/${project}`,
        session: `session-${Math.floor(rnd() * 2000)}`,
        logPath: (id) => path.join(jobsDir, `${id}.log`),
        exitPath: (id) => path.join(jobsDir, `${id}.exit`),
        at,
      });
      repo.markRunning(job.id, 4_000_000 + i);
      const bytes = logSizeOf(rnd, o.logScale);
      writeLog(job.log_path, bytes);
      logBytes += bytes;
      const endedAt = Math.min(o.now - 1000, at + Math.floor(rnd() * 600_000));
      const r = rnd();
      const end: ExitRecord = r < 0.8 ? { code: 0, signal: null, endedAt, dropped: 0 } : r < 0.9 ? { code: 1 + Math.floor(rnd() * 2), signal: null, endedAt, dropped: 0 } : { code: null, signal: 'SIGTERM', endedAt, dropped: 0, stopped: 'terminated', stopMs: 40 };
      if (r < 0.97) writeJsonAtomic(job.exit_path, end);
      if (r < 0.9) repo.finish(job.id, 'exited', end.code, endedAt, undefined, bytes);
      else if (r < 0.97) repo.finish(job.id, 'killed', null, endedAt, 'terminated by KillBgTask', bytes);
      else repo.finish(job.id, 'lost', null, endedAt, 'the process ended without recording an exit code', bytes);
    }
  });
  return logBytes;
}

function seedActivity(db: Db, n: number, o: Required<Omit<SeedOptions, 'counts'>>, rnd: () => number): void {
  const repo = new ActivityRepo(db);
  const start = o.now - o.activityDays * DAY;
  for (let done = 0; done < n; ) {
    const batch: Parameters<ActivityRepo['record']>[0] = [];
    for (let k = 0; k < 2000 && done < n; k++, done++) {
      const tool = pick(rnd, TOOLS);
      const at = start + Math.floor(((done + rnd()) / n) * o.activityDays * DAY);
      const ms = Math.floor(rnd() < 0.9 ? 2 + rnd() * 200 : 500 + rnd() * 20_000);
      const isError = rnd() < 0.03;
      const args = tool === 'Bash' ? { command: `${pick(rnd, COMMANDS)} --filter case_${done % 997}` } : tool === 'TaskManager' ? { action: 'add', text: `step ${done} of the ${pick(rnd, PROJECTS)} refactor` } : { task_id: done % 5000, query: `q${done}` };
      const started: CallStarted = { id: `call-${done}`, tool, session: `session-${Math.floor(rnd() * 2000)}`, client: pick(rnd, CLIENTS), args: JSON.stringify(args), at };
      const finished: CallFinished = { id: started.id, ms, isError, summary: isError ? `${tool}: exited 1 — error: test case_${done % 97} failed` : `ok: ${'output line '.repeat(1 + (done % 12))}${done}` };
      batch.push({ kind: 'started', ...started }, { kind: 'finished', ...finished });
    }
    repo.record(batch);
  }
}

function seedTasks(db: Db, n: number, o: Required<Omit<SeedOptions, 'counts'>>, rnd: () => number): void {
  const repo = new TodosRepo(db);
  bulk(db, () => {
    for (let i = 0; i < n; i++) {
      const at = o.now - o.spanDays * DAY + Math.floor(((i + rnd()) / n) * o.spanDays * DAY);
      const t = repo.create(`${pick(rnd, ['Fix', 'Refactor', 'Ship', 'Investigate', 'Document', 'Test'])} ${pick(rnd, PROJECTS)} #${i}: ${'detail '.repeat(Math.floor(rnd() * 6))}`.trim(), at);
      const steps = 1 + Math.floor(rnd() * 9);
      const ids = Array.from({ length: steps }, (_, k) => repo.addStep(t.id, `Step ${k + 1} of task ${i}: ${pick(rnd, COMMANDS)} and check the output`, at + k * 60_000).id);
      // The newest few per cent are still open; the rest were finished within a day or so.
      if (i < n * 0.97 || i < n - 30) {
        const doneAt = Math.min(o.now - 1000, at + Math.floor(rnd() * DAY));
        for (const id of ids) repo.completeStep(id, doneAt);
      } else if (rnd() < 0.5) {
        repo.completeStep(ids[0]!, at + 60_000);
      }
    }
  });
}

function seedMcpTasks(db: Db, n: number, o: Required<Omit<SeedOptions, 'counts'>>, rnd: () => number): void {
  const repo = new McpTasksRepo(db);
  bulk(db, () => {
    for (let i = 0; i < n; i++) {
      const id = `seed-task-${i}`;
      repo.create({ id, tool: pick(rnd, ['Bash', 'Bash', 'ReadDocs', 'AskUserQuestion']), client: pick(rnd, CLIENTS), requestor: `session-${i % 2000}`, owner: 'seed', ttlMs: o.mcpTtlMs });
      const result = { content: [{ type: 'text', text: `${'build output line\n'.repeat(20 + (i % 80))}exit code 0` }] };
      repo.settle(id, rnd() < 0.9 ? 'completed' : 'failed', { result });
    }
  });
}

function seedTheRest(db: Db, c: SeedCounts, o: Required<Omit<SeedOptions, 'counts'>>, rnd: () => number): void {
  const questions = new QuestionsRepo(db);
  const callbacks = new CallbacksRepo(db);
  const plans = new PlansRepo(db);
  const at = (i: number, n: number) => o.now - o.spanDays * DAY + Math.floor(((i + rnd()) / n) * o.spanDays * DAY);
  bulk(db, () => {
    for (let i = 0; i < c.questions; i++) {
      const t = at(i, c.questions);
      const q = questions.insert({ session: `session-${i % 2000}`, client: pick(rnd, CLIENTS), questions: [{ question: `Which approach for change ${i}?`, header: 'Approach', options: [{ label: 'A' }, { label: 'B' }], multiSelect: false }], purpose: 'ask', at: t });
      questions.settle(q.id, rnd() < 0.8 ? 'answered' : 'timeout', [{ question: `Which approach for change ${i}?`, selected: 'A' }], t + 30_000);
    }
    for (let i = 0; i < c.callbacks; i++) {
      const t = at(i, c.callbacks);
      const cb = callbacks.insert({ session: `session-${i % 2000}`, message: `check the build of ${pick(rnd, PROJECTS)}`, delayS: 60, repeatTotal: 10, max: 8, at: t });
      if (!cb) continue;
      let row = cb;
      for (let k = 0; k < 10; k++) {
        callbacks.claimFire(row, row.next_fire_at);
        row = callbacks.get(cb.id)!;
        if (row.status !== 'active') break;
      }
      callbacks.cancel(cb.id, t + 11 * 60_000);
    }
    for (let i = 0; i < c.plans; i++) {
      const t = at(i, c.plans);
      const p = plans.enter(`Plan ${i}: rework the ${pick(rnd, PROJECTS)} module`, t);
      plans.exit(p.id, `/home/user/plans/plan-${i}.md`, `# Plan ${i}\n\n${'- a step of the plan\n'.repeat(20)}`, 'approved', undefined, t + 3_600_000);
    }
  });
}

/** Seeds `home` (created if need be) and closes the database again, so that a hub can start on it. */
export function seedYear(home: string, opts: SeedOptions): SeedReport {
  const t0 = performance.now();
  const o: Required<Omit<SeedOptions, 'counts'>> = {
    logScale: opts.logScale ?? 1,
    spanDays: opts.spanDays ?? 365,
    activityDays: opts.activityDays ?? 29,
    mcpTtlMs: opts.mcpTtlMs ?? 3_600_000,
    now: opts.now ?? Date.now(),
  };
  const paths = pincerPaths(home);
  ensureHome(paths);
  const store = openStore(paths.database);
  try {
    // Seeded, so that two seeds of the same counts are the same folder.
    const rnd = rng(0x5eed);
    const logBytes = seedJobs(store.db, paths.jobsDir, opts.counts.jobs, o, rnd);
    seedActivity(store.db, opts.counts.activity, o, rnd);
    seedTasks(store.db, opts.counts.tasks, o, rnd);
    seedMcpTasks(store.db, opts.counts.mcpTasks, o, rnd);
    seedTheRest(store.db, opts.counts, o, rnd);
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    return { ms: performance.now() - t0, logBytes, counts: opts.counts };
  } finally {
    store.db.close();
  }
}
