import { inputResponse, type ElicitRequestFormParams, type ElicitResult } from '@modelcontextprotocol/server';
import type { McpTaskWork } from '../store/mcp-tasks.js';
import type { Services, ToolContext, UserQuestion } from '../tools/types.js';
import type { AskChannel, AskOutcome } from '../tools/interaction/asker.js';
import { CAPABILITY_OF, CapabilityMissing, InputNeeded, type ClientAsk, type ClientRequests } from '../tools/client-asks.js';
import { QUESTION_INPUT_KEY } from '../tools/interaction/ask-user-question.js';
import { UserError } from '../core/errors.js';

/*
 * The one implementation of asking the client (ctx.ask) and the person (ctx.askUser), for built-in
 * tools, plugins and plugin prompts alike. The surface that received the call says how the client can
 * be reached (ClientReach: mcp/request-context.ts, mcp/tool-call.ts); this module picks the way:
 * a task waits as input_required for tasks/update, a 2026-07-28 call asks in a multi round-trip (the
 * handler runs again with the answers), a 2025-era call sends the request on its own stream, and a
 * question to the person goes to the dashboard too, whoever settles it first.
 */

/** A request to the client on the call's own stream, typed by its method. */
export type StreamAsk = (method: ClientAsk, params: Record<string, unknown>, signal?: AbortSignal) => Promise<Record<string, unknown>>;

/** How a call that is a task asks (calls/task-runner.ts reach). */
export interface TaskReach {
  /** The task waits as input_required with these requests until tasks/update answers them all. */
  input(requests: Record<string, { method: ClientAsk; params: Record<string, unknown> }>): Promise<Record<string, Record<string, unknown>>>;
  /**
   * The task now waits on question `questionId` (in SQLite): recorded as its work, so that the next hub
   * finishes the task after a restart or handover. `request` is the form tasks/get shows the client
   * (input_required); without one the task stays `working` and the dashboard answers.
   */
  awaitQuestion?(questionId: number, request?: { method: 'elicitation/create'; params: Record<string, unknown> }): void;
}

/** A 2026-07-28 call's multi round-trip state: what the retry carries. */
export interface Rounds {
  /** The client's responses to the previous round's input requests, by key. */
  inputResponses: Record<string, unknown>;
  /** What earlier rounds of this call were answered, in order (sealed in the request state). */
  replay: unknown[];
  /** The question the previous round showed in the client's form (sealed), which its answer settles. */
  questionId?: number;
}

/** How a call can reach its client, as the surface that received it knows; only this module uses it. */
export interface ClientReach {
  /** 2025 era: requests on the call's own stream. */
  stream?: StreamAsk;
  /** 2026-07-28: the call's round trips. */
  rounds?: Rounds;
  /** The call runs as a task. */
  task?: TaskReach;
  /** The call may still become a task (deferTask, a client of the tasks extension): makes it one. */
  startTask?: (work?: McpTaskWork) => Promise<TaskReach>;
}

/** What the asking needs of the call besides its reach. */
export interface AskingCall {
  tool: string;
  services: Services;
  signal: AbortSignal;
  progress(message: string): Promise<void>;
  callerId?: string;
  clientName?: string;
  clientCapabilities: Record<string, unknown>;
}

/** The call's `ask`, `askUser`, `canStartTask` and `startTask`, over what its surface can reach. */
export function clientAsking(call: AskingCall, reach: ClientReach = {}): Pick<ToolContext, 'ask' | 'askUser' | 'canStartTask' | 'startTask'> {
  const caps = call.clientCapabilities;
  let task = reach.task;
  // Answers of earlier rounds, replayed in the order the handler asks again.
  const answered = [...(reach.rounds?.replay ?? [])];
  let asked = 0;

  const ask = async (requests: ClientRequests): Promise<Record<string, Record<string, unknown>>> => {
    const missing = [...new Set(Object.values(requests).map((r) => CAPABILITY_OF[r.method]))].filter((c) => !caps[c]);
    if (missing.length) throw new CapabilityMissing(missing, call.tool);
    const full = Object.fromEntries(Object.entries(requests).map(([k, r]) => [k, { method: r.method, params: r.params ?? {} }]));
    if (task) return task.input(full);
    if (reach.rounds) return answerOfRound(reach.rounds.inputResponses, full, answered, asked++);
    const stream = reach.stream;
    if (!stream) throw new UserError(`${call.tool}: this connection cannot carry requests to the client.`, 'UNSUPPORTED');
    const out: Record<string, Record<string, unknown>> = {};
    await Promise.all(Object.entries(full).map(async ([k, r]) => (out[k] = await stream(r.method, r.params, call.signal))));
    return out;
  };

  const canElicit = Boolean(caps.elicitation);
  const asker = call.services.asker;
  // The client's form on the call's stream, when it can show one (2025 era); the dashboard always.
  const elicit = reach.stream && canElicit ? (params: ElicitRequestFormParams, signal?: AbortSignal) => reach.stream!('elicitation/create', { ...params }, signal) as Promise<ElicitResult> : undefined;
  const channel: AskChannel = { callerId: call.callerId, clientName: call.clientName, signal: call.signal, progress: (m) => call.progress(m), elicit };

  const askUser = async (q: UserQuestion): Promise<AskOutcome> => {
    if (task) return askInTask(q, task);
    const rounds = reach.rounds;
    if (q.purpose === 'ask' && rounds && canElicit) {
      // 2026-07-28 with a form: the client shows it and calls again with the answer (the dashboard may answer first).
      const reply = inputResponse(rounds.inputResponses, QUESTION_INPUT_KEY);
      if (rounds.questionId !== undefined && reply.kind === 'elicit') {
        return asker.settleFromClient(rounds.questionId, { action: reply.action, ...(reply.content ? { content: reply.content as Record<string, string> } : {}) });
      }
      if ('questions' in q) {
        const opened = asker.open(q.questions, channel);
        throw new InputNeeded({ [QUESTION_INPUT_KEY]: { method: 'elicitation/create', params: { ...opened.params } } }, answered, opened.questionId, `Question ${opened.questionId} is shown to the person in the client.`);
      }
    }
    if ('questionId' in q) return asker.collect(q.questionId, channel);
    return asker.ask(q.questions, channel, q.purpose === 'plan' ? 'plan' : 'ask');
  };

  /**
   * In a task no client deadline needs beating. AskUserQuestion's question is the task's work (the next
   * hub finishes the task from it) and shows its form in tasks/get; any other question waits for the
   * dashboard's answer, never replying early that it is still open (a handler could not collect it).
   */
  const askInTask = (q: UserQuestion, t: TaskReach): Promise<AskOutcome> => {
    if (q.purpose === 'ask' && t.awaitQuestion) {
      const id = 'questionId' in q ? q.questionId : asker.open(q.questions, channel, 'ask', canElicit).questionId;
      t.awaitQuestion(id, canElicit ? { method: 'elicitation/create', params: { ...asker.formOf(id) } } : undefined);
      return asker.settled(id, call.signal);
    }
    if ('questionId' in q) return asker.settled(q.questionId, call.signal);
    return asker.ask(q.questions, { ...channel, elicit: undefined }, q.purpose === 'plugin' ? 'plugin-task' : q.purpose);
  };

  return {
    ask,
    askUser,
    get canStartTask() {
      return reach.startTask !== undefined && task === undefined;
    },
    startTask: async (work) => {
      if (reach.startTask && !task) task = await reach.startTask(work);
    },
  };
}

/**
 * One round of a 2026-07-28 call's asking: an earlier round's answer, replayed in order; else this
 * round's from the retry's inputResponses (kept for the rounds after it); else the client is asked
 * (InputNeeded). The keys are the tool's own: which round is asking is in the sealed state (how many rounds it replays).
 */
function answerOfRound(inputResponses: Record<string, unknown>, full: InputNeeded['inputRequests'], answered: unknown[], round: number): Record<string, Record<string, unknown>> {
  if (round < answered.length) return answered[round] as Record<string, Record<string, unknown>>;
  const got: Record<string, Record<string, unknown>> = {};
  for (const k of Object.keys(full)) {
    const v = inputResponses[k];
    if (v && typeof v === 'object') got[k] = v as Record<string, unknown>;
  }
  if (Object.keys(full).every((k) => got[k])) {
    answered.push(got);
    return got;
  }
  throw new InputNeeded(full, answered);
}
