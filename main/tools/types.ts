import type { z } from 'zod';
import type { CallToolResult, ToolAnnotations, ElicitRequestFormParams, ElicitResult, LoggingLevel } from '@modelcontextprotocol/server';
import type { SettingsView } from '../core/settings/view.js';
import type { PincerPaths } from '../core/paths.js';
import type { Db } from '../store/db.js';
import type { JobManager } from './shell/jobs.js';
import type { EventChannel } from './events.js';
import type { TasksRepo } from '../store/tasks.js';
import type { PlansRepo } from '../store/plans.js';
import type { CallbacksRepo } from '../store/callbacks.js';
import type { QuestionsRepo } from '../store/questions.js';
import type { McpTaskWork } from '../store/mcp-tasks.js';
import type { CallbackScheduler } from './workflow/scheduler.js';
import type { SkillCatalog } from './workflow/skills.js';
import type { Asker } from './interaction/asker.js';
import type { PageRenderer } from './web/browser.js';
import type { SearchService } from './search/service.js';

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
  events: EventChannel;
  tasks: TasksRepo;
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
  /** Pincer's id for the session making the call (callbacks and questions are addressed to it). */
  sessionId?: string;
  clientName?: string;
  /**
   * The client's own working folder: its first MCP root when it declares
   * roots, else the folder `pincer stdio` was started in. Undefined when the
   * client gave none (then BASH_CWD, then home).
   */
  workdir?: () => string | undefined | Promise<string | undefined>;
  /**
   * Present when the client asks in multi round-trips (2026-07-28) and can
   * show a form: a tool may then answer with `askInClient` and is called
   * again with the person's `answer`.
   */
  roundTrip?: RoundTrip;
  /** Present when the client can show a form (it declared elicitation). */
  elicit?: (params: ElicitRequestFormParams, signal?: AbortSignal) => Promise<ElicitResult>;
  /** A log message to the client (notifications/message, at the level it set), when its connection can carry one. */
  log?: (level: LoggingLevel, data: unknown) => Promise<void>;
  /**
   * A request to the client on this call's stream (2025-era connections): sampling, roots or a form.
   * Undefined where the client cannot be asked (2026-07-28 asks in round trips, see `roundTrip`).
   */
  request?: (method: ClientAsk, params: Record<string, unknown>, signal?: AbortSignal) => Promise<Record<string, unknown>>;
  /** Which capabilities the client declared (for the call's era), so a tool asks only what it can answer. */
  clientCapabilities?: Record<string, unknown>;
  /** Present on 2026-07-28 calls: a tool asks the client by answering `needInput` and is called again. */
  rounds?: Rounds;
  /** Present when the call runs as a task: asking the client parks the task as input_required until tasks/update answers. */
  taskInput?: (requests: Record<string, { method: ClientAsk; params: Record<string, unknown> }>) => Promise<Record<string, Record<string, unknown>>>;
  /** Present when the call runs as a task (the tasks extension): what the tool may tell the task. */
  task?: TaskHandle;
  /**
   * Present when the call may still become a task (a tool with `deferTask`, called by a client of the
   * tasks extension): from this call on the client has the task, and asking the client parks the task as
   * input_required (before it, asking is a multi round-trip of the request itself). Resolves to how the
   * task asks the client. With `work` (what outlives the hub: Bash's job), the task is finished from that
   * work by its keeper (calls/job-tasks.ts), not from this call's result.
   */
  startTask?: (work?: McpTaskWork) => Promise<{ taskInput: NonNullable<ToolContext['taskInput']> }>;
}

/** What a tool running as a task may tell it. */
export interface TaskHandle {
  /**
   * The task now waits on question `questionId` (in SQLite): recorded as its work, so that the next hub
   * finishes the task after a restart or handover instead of failing it. `request` is the form tasks/get
   * shows the client (input_required); without one the task stays `working` and the dashboard answers.
   */
  awaitQuestion(questionId: number, request?: { method: 'elicitation/create'; params: Record<string, unknown> }): void;
}

/** What a tool may ask of the client. */
export type ClientAsk = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

export interface RoundTrip {
  /** The client's reply to the form the previous round asked for, and the question it belongs to. */
  answer?: { questionId: number; result: ElicitResult };
}

/** A 2026-07-28 call's multi round-trip state, for tools that ask the client (see `needInput`). */
export interface Rounds {
  /** The client's responses to the previous round's input requests, by key. */
  inputResponses: Record<string, unknown>;
  /** What earlier rounds of this call were answered, in order (sealed in the request state). */
  replay: unknown[];
}

/** `_meta` key of a result that needs the client's input before the call can finish (see `needInput`). */
export const NEED_INPUT = 'dev.pincer/need-input';

export interface NeedInput {
  inputRequests: Record<string, { method: ClientAsk; params: Record<string, unknown> }>;
  /** Earlier rounds' answers, carried (sealed) to the retry. */
  replay: unknown[];
}

/** `_meta` key of a result that is a protocol-level failure `{ code, message }` (a plugin threw an error with a JSON-RPC code). */
export const PROTOCOL_FAILURE = 'dev.pincer/protocol-failure';

/** `_meta` key of a result saying the call needs client capabilities the client did not declare (see `missingCapability`). */
export const MISSING_CAPABILITY = 'dev.pincer/missing-capability';

/**
 * A failure because the client lacks capabilities (e.g. sampling): a 2026-07-28 client gets the protocol's
 * -32021 error naming them; a 2025-era client this result's text.
 */
export function missingCapability(capabilities: string[], text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true, _meta: { [MISSING_CAPABILITY]: capabilities } };
}

/** A result saying "ask the client these, then call again": the MCP adapter turns it into an input_required result. */
export function needInput(need: NeedInput): ToolResult {
  return { content: [{ type: 'text', text: 'This call needs input from the client.' }], _meta: { [NEED_INPUT]: need } };
}

/** `_meta` key of a result that asks the client for a form before the call can finish (see `askInClient`). */
export const ASK_IN_CLIENT = 'dev.pincer/ask-in-client';

export interface AskInClient {
  questionId: number;
  params: ElicitRequestFormParams;
}

/**
 * A result saying "show the person this form, then call again": the MCP
 * adapter turns it into the protocol's input_required result.
 */
export function askInClient(ask: AskInClient, text: string): ToolResult {
  return { content: [{ type: 'text', text }], _meta: { [ASK_IN_CLIENT]: ask } };
}

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
