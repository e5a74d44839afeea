import { EventEmitter } from 'node:events';

/** What the hub announces to dashboards and scripts (`/api/mcp/connect`). */
export type HubEvent =
  | { type: 'tool_call_started'; id: string; tool: string; session?: string; client?: string; args: string; at: number }
  | { type: 'tool_call_finished'; id: string; tool: string; session?: string; client?: string; ms: number; isError: boolean; summary: string; at: number }
  | { type: 'tools_changed'; at: number }
  | { type: 'settings_changed'; keys: string[]; at: number }
  | { type: 'session_opened' | 'session_closed'; session: string; transport: string; client?: string; at: number }
  | { type: 'job_started' | 'job_ended' | 'job_output'; job: { id: number; command: string; status: string; exit_code: number | null }; at: number }
  | { type: string; at: number; [k: string]: unknown };

export class EventBus extends EventEmitter<{ event: [HubEvent] }> {
  constructor() {
    super();
    this.setMaxListeners(0);
  }

  publish(event: HubEvent): void {
    this.emit('event', event);
  }
}
