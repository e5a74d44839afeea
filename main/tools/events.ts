import type { FireRow } from '../store/callbacks.js';
import type { Question } from './interaction/question-shapes.js';

/** A job as events describe it. */
export interface JobEventSummary {
  id: number;
  command: string;
  status: string;
  exit_code: number | null;
}

/**
 * What the hub announces to its own parts, to dashboards and to scripts
 * (`/api/mcp/connect`). Each event type declares its payload: consumers narrow
 * on `type` and never cast.
 */
export type HubEvent =
  | { type: 'tool_call_started'; id: string; tool: string; session?: string; client?: string; args: string; at: number }
  | { type: 'tool_call_finished'; id: string; tool: string; session?: string; client?: string; ms: number; isError: boolean; summary: string; at: number }
  | { type: 'tools_changed'; at: number }
  | { type: 'skills_changed'; at: number }
  /** A plugin's tools, prompts or resources appeared, changed or went (and which lists). */
  | { type: 'plugins_changed'; kinds: ('tools' | 'prompts' | 'resources')[]; at: number }
  | { type: 'settings_changed'; keys: string[]; at: number }
  | { type: 'session_opened' | 'session_closed'; session: string; transport: string; client?: string; at: number }
  | { type: 'job_started' | 'job_ended' | 'job_output'; job: JobEventSummary; at: number }
  /** TaskManager tasks changed (`ids`: which, so a list updates those rows instead of reading itself again). */
  | { type: 'tasks_changed'; ids?: number[]; at: number }
  | { type: 'plan_changed' | 'callbacks_changed'; at: number }
  | { type: 'callback_fired'; fire: FireRow; text: string; at: number }
  | { type: 'question_asked'; id: number; questions: Question[]; session?: string; client?: string; /** Also put to the client's own form. */ elicited: boolean; at: number }
  | { type: 'question_answered'; id: number; at: number }
  /** Retention deleted records of these kinds (counts): lists that show them read their page again. */
  | { type: 'records_pruned'; jobs: number; tasks: number; questions: number; callbacks: number; plans: number; mcpTasks: number; activity: number; at: number }
  /** An MCP task (tasks extension) was created or changed status. */
  | { type: 'mcp_task_changed'; id: string; at: number };

export type HubEventType = HubEvent['type'];
export type HubEventOf<T extends HubEventType> = Extract<HubEvent, { type: T }>;

/**
 * The bus as tools see it: they publish what happened and listen for answers.
 * The call core owns the one instance (calls/event-bus.ts).
 */
export interface EventChannel {
  publish(event: HubEvent): void;
  /** Returns the function that undoes it, for disposable owners. */
  subscribe(listener: (event: HubEvent) => void): () => void;
  /** Only events of one type, already narrowed. */
  on<T extends HubEventType>(type: T, listener: (event: HubEventOf<T>) => void): () => void;
}
