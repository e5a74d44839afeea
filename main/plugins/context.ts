import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { ToolContext } from '../tools/types.js';
import { CapabilityMissing, type ClientAsk } from '../tools/client-asks.js';
import { parseQuestions } from '../tools/interaction/question-shapes.js';

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

/**
 * The plugin's view of the call's context: every ask goes through the call's own `ask`/`askUser`
 * (calls/asking.ts), which picks how the client is reached on this generation and transport.
 */
export function pluginContext(ctx: ToolContext, tool: string): PluginContext {
  const capabilities = ctx.clientCapabilities ?? {};
  const one = async (method: ClientAsk, params: Record<string, unknown>) => (await ctx.ask({ ask: { method, params } })).ask!;
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
    askClient: (requests) => ctx.ask(requests),
    requireCapability: (...names) => {
      const missing = names.filter((n) => !capabilities[n]);
      if (missing.length) throw new CapabilityMissing(missing, tool);
    },
    startTask: () => ctx.startTask(),
    askUser: async (questions) => {
      const parsed = parseQuestions(typeof questions === 'string' ? questions : JSON.stringify(questions));
      const r = await ctx.askUser({ questions: parsed, purpose: 'plugin' });
      return { status: r.status, answers: r.status === 'answered' ? r.answers : [] };
    },
  };
}
