import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY, createRequestStateCodec, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { randomBytes } from 'node:crypto';
import { eraOf, type ProtocolEra } from './protocol-era.js';
import { ignoreFailure, logger } from '../core/log.js';
import type { Services } from '../tools/types.js';
import type { ClientAsk } from '../tools/client-asks.js';
import type { Rounds, StreamAsk } from '../calls/asking.js';
import type { CallChannel } from '../calls/calls.js';

const log = logger('mcp');

// What one MCP request brings to a call: its envelope (version, capabilities), its round-trip
// state and its stream back to the client. Shared by tools/call (tool-call.ts) and prompts/get.

/**
 * Seals the question id a multi round-trip ask hands the client: the client
 * echoes it back, so it is integrity-protected. Every round of a flow is
 * served by this process (the hub, or one stdio process), so a per-process key
 * does; a hub restart between rounds makes the client's retry fail verification.
 */
export const askState = createRequestStateCodec<RoundState>({ key: randomBytes(32), ttlSeconds: 24 * 3600 });

/** The input request under which a 2026-07-28 call asks the client for its roots (client-roots.ts). */
export const ROOTS_KEY = 'pincer_roots';

/**
 * What a round trip carries to its retry: the question AskUserQuestion put, or a tool's earlier answers,
 * and the client it was minted for (Caller.id): only that client's retry may answer or replay it.
 */
export interface RoundState {
  questionId?: number;
  replay?: unknown[];
  /** The client's first root, once a 2026-07-28 call has asked for it (null: it has none). client-roots.ts */
  root?: string | null;
  client: string;
}

/** This request's round-trip state when it was minted for `client`; another client's state counts as none. */
export function ownState(ctx: ServerContext, client: string): RoundState | undefined {
  const state = ctx.mcpReq.requestState<RoundState>();
  return state && typeof state === 'object' && state.client === client ? state : undefined;
}

/**
 * The protocol era this request is served in: a modern request names its version in its own envelope
 * (stdio included), else the connection's negotiated version decides (protocol-era.ts reads both).
 */
export function requestEra(ctx: ServerContext, server: McpServer['server']): ProtocolEra | undefined {
  const envelope: Record<string, unknown> = ctx.mcpReq.envelope ?? {};
  return eraOf(envelope[PROTOCOL_VERSION_META_KEY] ?? server.getNegotiatedProtocolVersion());
}

/** The era of the connection (the version it negotiated), for what is not tied to one request. */
export function connectionEra(server: McpServer['server']): ProtocolEra | undefined {
  return eraOf(server.getNegotiatedProtocolVersion());
}

/**
 * A 2026-07-28 call's round trips (calls/asking.ts): the answers this retry carries, and what the sealed
 * state minted for this client says of the earlier rounds (their answers, the question on show).
 */
export function roundsOf(ctx: ServerContext, server: McpServer['server'], client: string): Rounds | undefined {
  if (requestEra(ctx, server) !== 'modern') return undefined;
  const state = ownState(ctx, client);
  const replay = Array.isArray(state?.replay) ? state.replay : [];
  const responses: unknown = ctx.mcpReq.inputResponses;
  const own: Record<string, unknown> = responses && typeof responses === 'object' ? { ...(responses as Record<string, unknown>) } : {};
  // The roots Pincer asked for itself (client-roots.ts) are no answer to the tool's own asks.
  delete own[ROOTS_KEY];
  return { inputResponses: own, replay, ...(typeof state?.questionId === 'number' ? { questionId: state.questionId } : {}) };
}

/**
 * The per-call channel back to this client: its cancel signal, progress, and how it can be asked —
 * requests on the call's stream (2025 era) or round trips (2026-07-28; calls/asking.ts picks).
 * `settle` is called before the call's answer is sent: progress notifications go out one after
 * another, the answer waits for those already asked for, and any asked for later are dropped — a
 * progress notification after its response names a token the client has forgotten.
 */
export function channelOf(ctx: ServerContext, server: McpServer['server'], services: Services, client: string): CallChannel & { settle(): Promise<void> } {
  const token = ctx.mcpReq._meta?.progressToken;
  let step = 0;
  let sending: Promise<void> = Promise.resolve();
  let answered = false;
  // No timeout of our own beyond ASK_TIMEOUT_S: the person may take minutes; the client's cancel ends it sooner.
  // Sent on this request's own stream (related to the tools/call), which every transport delivers.
  const stream: StreamAsk = (method, params, signal) => sendToClient(ctx, method, params, services.settings.get('ASK_TIMEOUT_S') * 1000, signal);
  const rounds = roundsOf(ctx, server, client);
  return {
    signal: ctx.mcpReq.signal,
    progress:
      token === undefined
        ? undefined
        : (message, progress, total) => {
            if (answered) return Promise.resolve();
            // Progress must increase with every notification.
            step = Math.max(step + 1, progress ?? 0);
            const params = { progressToken: token, progress: step, ...(total ? { total } : {}), message };
            const sent = sending.then(() => ctx.mcpReq.notify({ method: 'notifications/progress', params }));
            // The answer waits for this send, not for its outcome: a client that left fails it, and the caller hears so.
            sending = sent.catch(ignoreFailure(log, 'a progress notification'));
            return sent;
          },
    log: (level, data) => ctx.mcpReq.log(level, data),
    clientCapabilities: capabilitiesOf(ctx, server),
    // 2026-07-28 (rounds) has no server-to-client requests: it asks in round trips.
    reach: rounds ? { rounds } : { stream },
    settle: () => {
      answered = true;
      return sending;
    },
  };
}

/** A 2025-era request to the client on this call's stream, typed by its method. */
async function sendToClient(ctx: ServerContext, method: ClientAsk, params: Record<string, unknown>, timeout: number, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const options = { timeout, ...(signal ? { signal } : {}) };
  // The SDK types each method's params; a plugin's come as plain JSON, checked by the client's answer.
  const result: unknown = await ctx.mcpReq.send({ method, params } as { method: ClientAsk; params: Record<string, unknown> }, options);
  return result && typeof result === 'object' ? (result as Record<string, unknown>) : {};
}

/** The capabilities the client declared: a 2026-07-28 request's own envelope, else the session's. */
export function capabilitiesOf(ctx: ServerContext, server: McpServer['server']): Record<string, unknown> {
  const envelope: Record<string, unknown> = ctx.mcpReq.envelope ?? {};
  const caps: unknown = envelope[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities();
  return caps && typeof caps === 'object' ? { ...(caps as Record<string, unknown>) } : {};
}
