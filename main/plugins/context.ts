import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { ClientAsk, ToolContext } from '../tools/types.js';
import { parseQuestions } from '../tools/interaction/questions.js';
import { UserError } from '../core/errors.js';

/**
 * What a plugin's handler gets as its second argument (docs/PLUGINS.md): the
 * call's cancellation, progress, logging, the client's folder, and ways to ask
 * the client (a form, a model sample, its roots) or the person (Pincer's own
 * question, answered in the client or the dashboard). Asking the client works
 * the same on both protocol generations: a 2025 connection sends the request on
 * the call's stream; on 2026-07-28 the call ends with an input_required result
 * and the handler runs again from the start when the client retries, earlier
 * answers replayed in order — so a handler must ask in the same order each time.
 */
export interface PluginContext {
  signal: AbortSignal;
  client: { name?: string; capabilities: Record<string, unknown> };
  progress(message: string, progress?: number, total?: number): Promise<void>;
  log(level: LoggingLevel, data: unknown): Promise<void>;
  /** The client's working folder (its first root, else where its bridge started), or undefined. */
  workdir(): Promise<string | undefined>;
  elicit(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  sample(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  listRoots(): Promise<Record<string, unknown>>;
  /** Several requests to the client at once (one round on 2026-07-28), answered by key. */
  askClient(requests: Record<string, { method: ClientAsk; params?: Record<string, unknown> }>): Promise<Record<string, Record<string, unknown>>>;
  /** Fails the call unless the client declared these capabilities (`sampling`, `elicitation`, `roots`, …). */
  requireCapability(...names: string[]): void;
  /** Questions to the person (AskUserQuestion's shape): answered in the client's form or the dashboard. */
  askUser(questions: unknown): Promise<{ status: string; answers: unknown[] }>;
  /**
   * A tool with `deferTask`: the call becomes a task now (for a client of the tasks extension; otherwise
   * it goes on as it is) — what was asked before came by multi round-trip, what is asked after parks the task.
   */
  startTask(): Promise<void>;
}

/** Thrown when the client lacks capabilities the handler needs; the tool turns it into `missingCapability`. */
export class CapabilityMissing extends Error {
  constructor(readonly capabilities: string[], tool: string) {
    super(`${tool} needs the client capabilit${capabilities.length > 1 ? 'ies' : 'y'} ${capabilities.join(', ')}, which this client did not declare.`);
  }
}

/** Thrown inside a handler on 2026-07-28 when the client must answer first; the tool turns it into `needInput`. */
export class InputNeeded extends Error {
  constructor(
    readonly inputRequests: Record<string, { method: ClientAsk; params: Record<string, unknown> }>,
    readonly replay: unknown[],
  ) {
    super('This call needs input from the client.');
  }
}

const CAPABILITY_OF: Record<ClientAsk, string> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

export function pluginContext(ctx: ToolContext, tool: string): PluginContext {
  const capabilities = ctx.clientCapabilities ?? {};
  const rounds = ctx.rounds;
  // Answers of earlier rounds, replayed in the order the handler asks again.
  const answered = [...(rounds?.replay ?? [])];
  let asked = 0;
  // Set once the call is a task (from the start, or when the handler calls startTask).
  let taskInput = ctx.taskInput;
  const askClient = async (requests: Record<string, { method: ClientAsk; params?: Record<string, unknown> }>): Promise<Record<string, Record<string, unknown>>> => {
    const missing = [...new Set(Object.values(requests).map((r) => CAPABILITY_OF[r.method]))].filter((c) => !capabilities[c]);
    if (missing.length) throw new CapabilityMissing(missing, tool);
    if (taskInput) {
      // A task: it waits as input_required until the client answers through tasks/update.
      const inputRequests: Record<string, { method: ClientAsk; params: Record<string, unknown> }> = {};
      for (const [k, r] of Object.entries(requests)) inputRequests[k] = { method: r.method, params: r.params ?? {} };
      return taskInput(inputRequests);
    }
    if (rounds) {
      const round = asked++;
      if (round < answered.length) return answered[round] as Record<string, Record<string, unknown>>;
      const keys = Object.keys(requests);
      const got: Record<string, Record<string, unknown>> = {};
      for (const k of keys) {
        const v = rounds.inputResponses[k];
        if (v && typeof v === 'object') got[k] = v as Record<string, unknown>;
      }
      if (keys.every((k) => got[k])) {
        answered.push(got);
        return got;
      }
      const inputRequests: Record<string, { method: ClientAsk; params: Record<string, unknown> }> = {};
      // The plugin's own keys: which round is asking is in the sealed state (how many rounds it replays).
      for (const k of keys) inputRequests[k] = { method: requests[k]!.method, params: requests[k]!.params ?? {} };
      throw new InputNeeded(inputRequests, answered);
    }
    const send = ctx.request;
    if (!send) throw new UserError(`${tool}: this connection cannot carry requests to the client.`, 'UNSUPPORTED');
    const out: Record<string, Record<string, unknown>> = {};
    await Promise.all(Object.entries(requests).map(async ([k, r]) => (out[k] = await send(r.method, r.params ?? {}, ctx.signal))));
    return out;
  };
  const one = async (method: ClientAsk, params: Record<string, unknown>) => (await askClient({ ask: { method, params } })).ask!;
  return {
    signal: ctx.signal,
    client: { ...(ctx.clientName ? { name: ctx.clientName } : {}), capabilities },
    progress: (message, progress, total) => ctx.progress(message, progress, total),
    log: async (level, data) => {
      await ctx.log?.(level, data);
    },
    workdir: async () => (await ctx.workdir?.()) ?? undefined,
    elicit: (params) => one('elicitation/create', params),
    sample: (params) => one('sampling/createMessage', params),
    listRoots: () => one('roots/list', {}),
    askClient,
    requireCapability: (...names) => {
      const missing = names.filter((n) => !capabilities[n]);
      if (missing.length) throw new CapabilityMissing(missing, tool);
    },
    startTask: async () => {
      if (ctx.startTask && !taskInput) taskInput = (await ctx.startTask()).taskInput;
    },
    askUser: async (questions) => {
      const parsed = parseQuestions(typeof questions === 'string' ? questions : JSON.stringify(questions));
      // In a task no client deadline needs beating: wait for the answer (the dashboard's) instead of
      // replying after ASK_REPLY_S that it is still open, which a handler could not collect later.
      const r = await ctx.services.asker.ask(parsed, ctx, taskInput ? 'plugin-task' : 'ask');
      return { status: r.status, answers: r.status === 'answered' ? r.answers : [] };
    },
  };
}
