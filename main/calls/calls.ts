import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { Services, ToolContext, ToolGroup } from '../tools/types.js';
import { CapabilityMissing, InputNeeded, NEED_INPUT, missingCapability, needInput } from '../tools/client-asks.js';
import { clientAsking, type ClientReach } from './asking.js';
import { UserError, errorMessage } from '../core/errors.js';
import { timeOrderedId } from '../core/ids.js';
import { secretPreview } from '../core/redact.js';
import { SECRET_KEYS } from '../core/settings/secrets.js';
import { inCall, logger, type CallFields } from '../core/log.js';
import { fireText } from '../tools/workflow/scheduler.js';
import type { ToolRegistry } from './registry.js';
import type { Settings } from '../core/settings/settings.js';
import type { SettingsView } from '../core/settings/view.js';
import { formatZodError, NOTICES_KEY, NOTICES_META } from './registry.js';
import { toolKey } from '../core/settings/schema.js';
import type { Caller } from './caller.js';
import { PAUSED_MESSAGE, type CallError, type CallErrorCode } from './call-errors.js';
import { OutputChecks, UNCHECKED } from './output-check.js';

const log = logger('calls');

/** The per-call channel back to the client, supplied by the surface that received the call. */
export interface CallChannel {
  signal: AbortSignal;
  /** Present when the client asked for progress. */
  progress?: (message: string, progress?: number, total?: number) => Promise<void>;
  /**
   * The client's working folder (first root, else where its bridge started), when it has one.
   * Synchronous when it is known: an extra await on every call splits the HTTP answer's headers
   * from its body and costs a cheap call about a millisecond over Streamable HTTP.
   */
  workdir?: () => string | undefined | Promise<string | undefined>;
  log?: ToolContext['log'];
  clientCapabilities?: Record<string, unknown>;
  /** How the call can reach its client (its stream, its round trips, its task): calls/asking.ts picks. */
  reach?: ClientReach;
}

export interface CallRequest {
  name: string;
  arguments: unknown;
  caller: Caller;
  /** Limit to one tool group (the hub's per-group endpoints). */
  group?: ToolGroup;
  channel: CallChannel;
  /** The client declared MCP Apps for this call: the chat views' own tools exist for it. */
  apps?: boolean;
}

/**
 * What a call produced: always a result a model can read; `error` says, as a
 * code, why it is a failure. `outputSchema` is the schema the result conforms
 * to when it succeeded (for surfaces that project structured content).
 */
export interface CallOutcome {
  result: CallToolResult;
  error?: CallError;
  outputSchema?: Tool['outputSchema'];
}

/**
 * The one way to call a tool. Every surface — stdio, Streamable HTTP,
 * HTTP+SSE, JSON-RPC POST, REST, WebSocket, dashboard — is an adapter over
 * `list` and `call`: visibility (settings, group, paused), argument
 * validation, activity events, callback fires and result shaping live here.
 */
export class ToolCalls {
  private outputs = new OutputChecks();

  /** `hubSettings` makes the per-client project views (it is the one that may read a project folder's file). */
  constructor(private services: Services, readonly registry: ToolRegistry, private hubSettings: Settings) {}

  /**
   * The settings that apply to one client's calls: its project folder's view
   * (which may only narrow) when the client has a folder, else the process's.
   */
  settingsFor(workdir: CallChannel['workdir']): SettingsView | Promise<SettingsView> {
    const dir = workdir?.();
    if (dir instanceof Promise) return dir.then((d) => this.viewOf(d), () => this.services.settings);
    return this.viewOf(dir);
  }

  private viewOf(dir: string | undefined): SettingsView {
    if (!dir) return this.services.settings;
    try {
      return this.hubSettings.forProject(dir);
    } catch (err) {
      log.warn(`project settings of ${dir} not applied: ${errorMessage(err)}`, { err });
      return this.services.settings;
    }
  }

  /** The tools this client may see now (its project may turn some off; `apps`: it declared MCP Apps). */
  async listFor(group: ToolGroup | undefined, workdir: CallChannel['workdir'], apps = false): Promise<Tool[]> {
    return this.list(group, await this.settingsFor(workdir), apps);
  }

  get paused(): boolean {
    return this.registry.servingPaused();
  }

  /** The tools a client may see now (`apps`: with those of the chat views, each linked to its view). */
  list(group?: ToolGroup, settings?: SettingsView, apps = false): Tool[] {
    return this.registry.visible(group, settings, apps).map((t) => this.registry.describe(t, apps));
  }

  /** One visible tool's description, or undefined. */
  describe(name: string, group?: ToolGroup): (Tool & { group: ToolGroup }) | undefined {
    const tool = this.registry.byName.get(name);
    if (!tool || !this.registry.visible(group).includes(tool)) return undefined;
    return { ...this.registry.describe(tool), group: tool.group };
  }

  async call(req: CallRequest): Promise<CallOutcome> {
    const { name, caller } = req;
    const tool = this.registry.byName.get(name);
    // A chat view's own tool does not exist for a client that did not declare MCP Apps.
    if (!tool || (req.group && tool.group !== req.group) || (tool.view?.appOnly && !req.apps)) {
      const where = req.group ? ` in the ${req.group} group` : '';
      return refused('TOOL_NOT_FOUND', `Unknown tool: ${name}${where}. tools/list shows the available tools.`);
    }
    const pendingSettings = this.settingsFor(req.channel.workdir);
    const settings = pendingSettings instanceof Promise ? await pendingSettings : pendingSettings;
    if (this.registry.servingPaused(settings)) return refused('SERVING_PAUSED', PAUSED_MESSAGE);
    const storeProblem = this.services.storeProblem();
    if (storeProblem) return refused('STORE_UNAVAILABLE', `${name}: ${storeProblem}`);
    if (!this.registry.isEnabled(name, settings)) {
      return refused('TOOL_DISABLED', `${name} is turned off in Pincer (${toolKey(name)}=false). Ask the user to enable it in the dashboard or pincer-env.txt.`);
    }
    const parsed = tool.inputSchema.safeParse(req.arguments ?? {});
    if (!parsed.success) {
      return refused('INVALID_ARGUMENTS', `${name}: invalid arguments: ${formatZodError(parsed.error)}. The input schema in tools/list shows what ${name} takes.`);
    }
    const events = this.services.events;
    // What the dashboard keeps of the call (arguments, start of the result) never holds a secret in clear.
    const known = SECRET_KEYS.map((k) => settings.raw(k) ?? '');
    const started = Date.now();
    const callId = timeOrderedId(started);
    const client = caller.clientName;
    // Every line logged on the call's path names it as its activity row does.
    const fields: CallFields = { callId, tool: name, ...(client ? { client } : {}) };
    events.publish({ type: 'tool_call_started', id: callId, tool: name, session: caller.id, client, args: secretPreview(JSON.stringify(parsed.data) ?? '', known), at: started });
    if (name === 'SetCallback') caller.hasCallbacks = true;
    let result: CallToolResult;
    let error: CallError | undefined;
    const output = this.registry.schemas(tool).output;
    try {
      result = await inCall(fields, () => tool.handler(parsed.data, this.context(caller, req.channel, settings, name)));
      const problem = output && !result.isError && !asksFirst(result) ? this.outputs.problem(output, result.structuredContent) : undefined;
      if (problem && problem !== UNCHECKED) {
        // The client would throw such a result away ("data must NOT have additional properties"):
        // it becomes an error the model can read and the plugin's author can act on.
        const message = `${name} returned a result that does not match the outputSchema it publishes: ${problem}. ${this.registry.isBuiltin(name) ? 'This is a bug in Pincer.' : 'Fix the tool\'s handler or its outputSchema.'}`;
        log.warn(message, { ...fields });
        result = failure(message);
      }
      if (result.isError) error = { code: 'TOOL_FAILED', message: firstText(result) };
    } catch (err) {
      if (err instanceof InputNeeded || err instanceof CapabilityMissing) {
        // An ask that cannot be answered yet: the client is asked first, or told what it lacks.
        result = asked(err);
        if (result.isError) error = { code: 'TOOL_FAILED', message: firstText(result) };
      } else {
        if (!(err instanceof UserError)) log.error(`${name} failed`, { ...fields, err });
        // A write found pincer.db deleted or replaced (store/file-guard.ts): the call said so before it wrote anything.
        const unavailable = err instanceof UserError && err.code === 'STORE_UNAVAILABLE';
        const message = unavailable ? `${name}: ${err.message}` : err instanceof UserError ? err.message : `${name} failed: ${errorMessage(err)}`;
        result = failure(message);
        error = { code: unavailable ? 'STORE_UNAVAILABLE' : 'TOOL_FAILED', message, ...(err instanceof UserError ? { reason: err.code } : {}) };
      }
    }
    events.publish({ type: 'tool_call_finished', id: callId, tool: name, session: caller.id, client, ms: Date.now() - started, isError: Boolean(result.isError), summary: secretPreview(firstText(result), known), at: Date.now() });
    if (caller.hasCallbacks) result = this.prependFires(caller, result, result.isError ? undefined : output);
    return { result, ...(error ? { error } : {}), ...(!result.isError ? { outputSchema: output } : {}) };
  }

  /**
   * Fires waiting for this caller go into the result the model reads next: in
   * front of its text, in its `_meta`, and into its structured content when it
   * has some (Claude Code, Codex and Mastra hand the model only that). A result
   * without structured content gets none there: clients then read the content
   * blocks, and ReadImage's image must not be hidden behind an object. A fire
   * counts as delivered only in a result that still validates against the
   * tool's published output schema: a closed one (`additionalProperties: false`,
   * as zod's .strict(), TypeBox and pydantic's extra="forbid" emit) cannot take
   * the notices, and text alone would never reach a client that reads only
   * structured content, so they wait for the next result that can carry them.
   * A question to be asked in the client's form is not a result the model
   * reads, so fires wait for the next one.
   */
  private prependFires(caller: Caller, result: CallToolResult, output: Tool['outputSchema']): CallToolResult {
    if (asksFirst(result)) return result;
    const fires = this.services.callbacks.claimUndelivered(caller.id);
    if (fires.length === 0) return result;
    const notices = fires.map(fireText);
    const shaped: CallToolResult = { ...result, content: [{ type: 'text', text: notices.join('\n') }, ...result.content], _meta: { ...result._meta, [NOTICES_META]: notices } };
    const structured = result.structuredContent;
    if (structured && typeof structured === 'object' && !Array.isArray(structured)) {
      shaped.structuredContent = { ...structured, [NOTICES_KEY]: notices };
      if (output && this.outputs.problem(output, shaped.structuredContent) !== undefined) {
        this.services.callbacks.release(fires.map((f) => f.id));
        return result;
      }
    }
    return shaped;
  }

  private context(caller: Caller, channel: CallChannel, settings: SettingsView, tool: string): ToolContext {
    // A project's narrowed settings reach the tools through their services.
    return callContext(settings === this.services.settings ? this.services : { ...this.services, settings }, caller, channel, tool);
  }
}

/** What a tool (or a plugin's prompt) gets for one call from its channel: calls/asking.ts asks for it. */
export function callContext(services: Services, caller: Pick<Caller, 'id' | 'clientName'>, channel: CallChannel, tool: string): ToolContext {
  const progress = channel.progress ?? (async () => undefined);
  const clientCapabilities = channel.clientCapabilities ?? {};
  const asking = clientAsking({ tool, services, signal: channel.signal, progress: (m) => progress(m), callerId: caller.id, clientName: caller.clientName, clientCapabilities }, channel.reach);
  return {
    services,
    signal: channel.signal,
    callerId: caller.id,
    clientName: caller.clientName,
    wantsProgress: channel.progress !== undefined,
    progress,
    workdir: channel.workdir,
    log: channel.log,
    clientCapabilities,
    ask: asking.ask,
    askUser: asking.askUser,
    get canStartTask() {
      return asking.canStartTask;
    },
    startTask: asking.startTask,
  };
}

function refused(code: CallErrorCode, message: string): CallOutcome {
  return { result: failure(message), error: { code, message } };
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A result that asks the client before the call can finish: no answer yet, nothing for the model. */
function asksFirst(result: CallToolResult): boolean {
  return Boolean(result._meta?.[NEED_INPUT]);
}

/** What an ask that could not answer yet makes of the call: a round trip, or the missing capability named. */
function asked(err: InputNeeded | CapabilityMissing): CallToolResult {
  return err instanceof InputNeeded ? needInput(err) : missingCapability(err.capabilities, err.message);
}

function firstText(result: CallToolResult): string {
  const first = result.content.find((c) => c.type === 'text');
  return first && 'text' in first ? first.text : `${result.content.length} content block(s)`;
}

