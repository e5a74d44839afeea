import { EventEmitter } from 'node:events';
import type { FireRow } from '../store/callbacks.js';
import type { Question } from './interaction/questions.js';

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
  | { type: 'settings_changed'; keys: string[]; at: number }
  | { type: 'session_opened' | 'session_closed'; session: string; transport: string; client?: string; at: number }
  | { type: 'job_started' | 'job_ended' | 'job_output'; job: JobEventSummary; at: number }
  | { type: 'tasks_changed' | 'plan_changed' | 'callbacks_changed'; at: number }
  | { type: 'callback_fired'; fire: FireRow; text: string; at: number }
  | { type: 'question_asked'; id: number; questions: Question[]; session?: string; client?: string; /** Also put to the client's own form. */ elicited: boolean; at: number }
  | { type: 'question_answered'; id: number; at: number };

export type HubEventType = HubEvent['type'];
export type HubEventOf<T extends HubEventType> = Extract<HubEvent, { type: T }>;

/** The process-wide bus. `subscribe` returns the function that undoes it, for disposable owners. */
export class EventBus {
  private emitter = new EventEmitter<{ event: [HubEvent] }>();

  constructor() {
    // Every session and stream listens; their number is bounded by MAX_SESSIONS/MAX_STREAMS, not here.
    this.emitter.setMaxListeners(0);
  }

  publish(event: HubEvent): void {
    this.emitter.emit('event', event);
  }

  subscribe(listener: (event: HubEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Only events of one type, already narrowed. */
  on<T extends HubEventType>(type: T, listener: (event: HubEventOf<T>) => void): () => void {
    return this.subscribe((e) => {
      if (e.type === type) listener(e as HubEventOf<T>);
    });
  }

  get listenerCount(): number {
    return this.emitter.listenerCount('event');
  }
}
