import type { z } from 'zod';
import type { CallToolResult, ToolAnnotations, LoggingLevel } from '@modelcontextprotocol/server';
import type { SettingsView } from '../core/settings/view.js';
import type { PincerPaths } from '../core/paths.js';
import type { Db } from '../store/db.js';
import type { JobManager } from './shell/job-manager.js';
import type { LiveRuns } from './shell/live-runs.js';
import type { EventChannel } from './events.js';
import type { TodosRepo } from '../store/todos.js';
import type { PlansRepo } from '../store/plans.js';
import type { CallbacksRepo } from '../store/callbacks.js';
import type { QuestionsRepo } from '../store/questions.js';
import type { McpTaskWork } from '../store/mcp-tasks.js';
import type { CallbackScheduler } from './workflow/scheduler.js';
import type { SkillCatalog } from './workflow/skills.js';
import type { Asker, AskOutcome } from './interaction/asker.js';
import type { Question } from './interaction/question-shapes.js';
import type { ClientRequests } from './client-asks.js';
import type { PageRenderer } from './web/browser.js';
import type { SearchService } from './search/search-service.js';

export type ToolResult = CallToolResult;

/** The groups of the hub's per-group endpoints (`/api/mcp/jsonrpc/:group`). */
export const TOOL_GROUPS = ['shell', 'filesystem', 'web', 'search', 'workflow', 'interaction', 'plugins'] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

/** Everything long-lived a tool may use; built once per process. */
export interface Services {
  paths: PincerPaths;
  settings: SettingsView;
  db: Db;
  readOnly: boolean;
  /** Why the database cannot be used any more (its file was deleted or replaced), as found before a write or by the check every second; or undefined. */
  storeProblem(): string | undefined;
  jobs: JobManager;
  /** Bash calls of clients of MCP Apps while they run here, for their job views (shell/live-runs.ts). */
  runs: LiveRuns;
  events: EventChannel;
  todos: TodosRepo;
  plans: PlansRepo;
  callbacks: CallbacksRepo;
  scheduler: CallbackScheduler;
  questions: QuestionsRepo;
  asker: Asker;
  skills: SkillCatalog;
  /** The browser ReadDocs renders with, or undefined when none is installed. */
  browser(): PageRenderer | undefined;
  search: SearchService;
}

/** What one tool call gets: services plus the per-call channel back to the client. */
export interface ToolContext {
  services: Services;
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for progress; a no-op otherwise. */
  progress(message: string, progress?: number, total?: number): Promise<void>;
  /** True when the client passed a progress token. */
  wantsProgress: boolean;
  /** Pincer's id for the caller, the client making the call (callbacks and questions are addressed to it). */
  callerId?: string;
  clientName?: string;
  /**
   * The client's own working folder: its first MCP root when it declares
   * roots, else the folder `pincer stdio` was started in. Undefined when the
   * client gave none (then BASH_CWD, then home).
   */
  workdir?: () => string | undefined | Promise<string | undefined>;
  /** A log message to the client (notifications/message, at the level it set), when its connection can carry one. */
  log?: (level: LoggingLevel, data: unknown) => Promise<void>;
  /** Which capabilities the client declared (for the call's era), so a tool asks only what it can answer. */
  clientCapabilities?: Record<string, unknown>;
  /**
   * Asks the client — a form, a model sample, its roots — and resolves to its answers by key: the one
   * way, on every generation and transport (calls/asking.ts picks how: the call's stream, a multi
   * round-trip, the task's input). Throws CapabilityMissing when the client did not declare what a
   * request needs, and InputNeeded on 2026-07-28 when the client must answer first (tools/client-asks.ts).
   */
  ask(requests: ClientRequests): Promise<Record<string, Record<string, unknown>>>;
  /**
   * Puts Pincer's own question to the person — in the client's form where the call can carry one,
   * and on the dashboard — and resolves to how it was settled (calls/asking.ts).
   */
  askUser(question: UserQuestion): Promise<AskOutcome>;
  /** True while the call may still become a task (a tool with `deferTask`, called by a client of the tasks extension). */
  readonly canStartTask: boolean;
  /**
   * Makes the call a task now, when it may become one (else nothing happens): the client has the task
   * from here, and what is asked after parks the task as input_required. With `work` (what outlives
   * the hub: Bash's job), the task is finished from that work by its keeper (calls/job-tasks.ts), not
   * from this call's result.
   */
  startTask(work?: McpTaskWork): Promise<void>;
}

/**
 * A question to the person: new `questions`, or `questionId` to collect one asked earlier. Who asks
 * decides how it may be settled: `ask` (AskUserQuestion) is asked in the client's form on every
 * generation, may reply that it is still open and be collected later, and is a task's work; `plugin`
 * (a plugin's ctx.askUser) and `plan` (PlanMode's approval) wait for the answer where the call is.
 */
export type UserQuestion = { purpose: 'ask' | 'plugin' | 'plan' } & ({ questions: Question[] } | { questionId: number });

/** `_meta` key of a result that is a protocol-level failure `{ code, message }` (a plugin threw an error with a JSON-RPC code). */
export const PROTOCOL_FAILURE = 'dev.pincer/protocol-failure';

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  group: ToolGroup;
  description: string | ((services: Services) => string);
  inputSchema: S;
  outputSchema?: z.ZodObject;
  annotations: ToolAnnotations;
  handler(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
  /**
   * A tool defined by the user's plugin: the JSON Schemas its author wrote, published as they are
   * (its `inputSchema` then only accepts an object; the handler validates against these).
   */
  jsonSchemas?: { input: { type: 'object'; [k: string]: unknown }; output?: { type: 'object'; [k: string]: unknown } };
  /**
   * Whether a client that negotiated the tasks extension gets this call as a task (it may take long):
   * `optional` runs it as a task when the client can follow one, else synchronously; `required` refuses
   * clients that cannot (-32021).
   */
  taskSupport?: 'optional' | 'required';
  /**
   * With taskSupport: for a client of the tasks extension the call first runs on its request (asking the
   * client in multi round-trips) and becomes a task only when the handler calls `ctx.startTask()` — the
   * MRTR → task composition of SEP-2663. Without it such a call is a task from the start.
   */
  deferTask?: boolean;
  /**
   * MCP Apps (`io.modelcontextprotocol/ui`, tools/views/): the chat view a client of the extension renders
   * this tool's calls in (`_meta.ui.resourceUri`). `appOnly`: a tool only that view calls (visibility
   * ["app"]): listed to, and callable by, a client of the extension alone.
   */
  view?: { uri: ViewUri; appOnly?: boolean };
  /**
   * The tool runs in the client's working folder (Bash, BackgroundBash, command tools): on 2026-07-28
   * a client that declares roots is asked for them before such a call runs (mcp/client-roots.ts);
   * other tools are not held up by a round trip they do not need.
   */
  usesFolder?: boolean;
}

/** The views Pincer serves as `ui://` resources (tools/views/links.ts). */
export type ViewUri = 'ui://pincer/job.html' | 'ui://pincer/question.html' | 'ui://pincer/task.html';

/** Keeps each tool's argument type tied to its own schema. */
export function defineTool<S extends z.ZodObject>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}

/** A type-erased tool, as the registry holds them. */
export type AnyTool = ToolDefinition<z.ZodObject>;

export function textResult(text: string, structured?: Record<string, unknown>): ToolResult {
  return structured ? { content: [{ type: 'text', text }], structuredContent: structured } : { content: [{ type: 'text', text }] };
}
