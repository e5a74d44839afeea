import type { CallToolResult } from '@modelcontextprotocol/server';

/*
 * What a tool may ask of its client through `ctx.ask` / `ctx.askUser` (ToolContext), and what such an
 * ask may throw instead of answering: the call core (calls/calls.ts) turns both into results the MCP
 * adapter understands — a multi round-trip (input_required) or the missing-capability error.
 */

/** What a tool may ask of the client. */
export type ClientAsk = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** One request to the client: its method and params. */
export interface ClientRequest {
  method: ClientAsk;
  params?: Record<string, unknown>;
}

/** Several requests at once (one round on 2026-07-28), answered by the same keys. */
export type ClientRequests = Record<string, ClientRequest>;

/** The capability a client must declare for each request. */
export const CAPABILITY_OF: Record<ClientAsk, string> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

/**
 * Thrown by an ask on 2026-07-28 when the client must answer first: the call ends with an
 * input_required result and is made again with the answers (the handler runs from the start,
 * earlier rounds' answers replayed in order).
 */
export class InputNeeded extends Error {
  constructor(
    readonly inputRequests: Record<string, { method: ClientAsk; params: Record<string, unknown> }>,
    /** Earlier rounds' answers, carried (sealed) to the retry. */
    readonly replay: unknown[],
    /** The question (AskUserQuestion's) whose form this round shows, sealed so the retry's answer settles it. */
    readonly questionId?: number,
    message = 'This call needs input from the client.',
  ) {
    super(message);
    this.name = 'InputNeeded';
  }
}

/** Thrown when the client lacks capabilities an ask needs (a 2026-07-28 client gets -32021 naming them). */
export class CapabilityMissing extends Error {
  constructor(readonly capabilities: string[], tool: string) {
    super(`${tool} needs the client capabilit${capabilities.length > 1 ? 'ies' : 'y'} ${capabilities.join(', ')}, which this client did not declare.`);
    this.name = 'CapabilityMissing';
  }
}

/** `_meta` key of a result that needs the client's input before the call can finish (see `needInput`). */
export const NEED_INPUT = 'dev.pincer/need-input';

export interface NeedInput {
  inputRequests: Record<string, { method: ClientAsk; params: Record<string, unknown> }>;
  /** Earlier rounds' answers, carried (sealed) to the retry. */
  replay: unknown[];
  /** The question whose form this round shows (sealed with the replay). */
  questionId?: number;
}

/** A result saying "ask the client these, then call again": the MCP adapter turns it into an input_required result. */
export function needInput(need: InputNeeded | NeedInput): CallToolResult {
  const text = need instanceof InputNeeded ? need.message : 'This call needs input from the client.';
  const sealed: NeedInput = { inputRequests: need.inputRequests, replay: need.replay, ...(need.questionId !== undefined ? { questionId: need.questionId } : {}) };
  return { content: [{ type: 'text', text }], _meta: { [NEED_INPUT]: sealed } };
}

/** The input a result asks for first, or undefined. */
export function needInputOf(result: { _meta?: Record<string, unknown> }): NeedInput | undefined {
  const need = result._meta?.[NEED_INPUT];
  return need && typeof need === 'object' ? (need as NeedInput) : undefined;
}

/** `_meta` key of a result saying the call needs client capabilities the client did not declare (see `missingCapability`). */
export const MISSING_CAPABILITY = 'dev.pincer/missing-capability';

/**
 * A failure because the client lacks capabilities (e.g. sampling): a 2026-07-28 client gets the protocol's
 * -32021 error naming them; a 2025-era client this result's text.
 */
export function missingCapability(capabilities: string[], text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true, _meta: { [MISSING_CAPABILITY]: capabilities } };
}
