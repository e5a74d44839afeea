import type { EventBus, HubEvent } from '../tools/events.js';

export interface CallRecord {
  id: string;
  tool: string;
  session?: string;
  client?: string;
  args: string;
  started: number;
  ms?: number;
  isError?: boolean;
  summary?: string;
}

export interface ToolStats {
  calls: number;
  errors: number;
  medianMs?: number;
  p95Ms?: number;
}

/** Every tool call the hub served (the newest few thousand) and per-tool counts and latencies, for the dashboard. */
export class Activity {
  private calls: CallRecord[] = [];
  private byId = new Map<string, CallRecord>();
  private stats = new Map<string, { calls: number; errors: number; latencies: number[] }>();

  constructor(bus: EventBus, private max = 2000) {
    bus.subscribe((e) => this.onEvent(e));
  }

  private onEvent(e: HubEvent): void {
    if (e.type === 'tool_call_started') {
      const ev = e;
      const rec: CallRecord = { id: ev.id, tool: ev.tool, session: ev.session, client: ev.client, args: ev.args, started: ev.at };
      this.calls.push(rec);
      this.byId.set(rec.id, rec);
      if (this.calls.length > this.max) this.byId.delete(this.calls.shift()!.id);
    } else if (e.type === 'tool_call_finished') {
      const ev = e;
      const rec = this.byId.get(ev.id);
      if (rec) Object.assign(rec, { ms: ev.ms, isError: ev.isError, summary: ev.summary });
      const s = this.stats.get(ev.tool) ?? { calls: 0, errors: 0, latencies: [] };
      s.calls++;
      if (ev.isError) s.errors++;
      s.latencies.push(ev.ms);
      if (s.latencies.length > 500) s.latencies.shift();
      this.stats.set(ev.tool, s);
    }
  }

  recent(limit = 200, filter?: { tool?: string; q?: string; errors?: boolean }): CallRecord[] {
    const q = filter?.q?.toLowerCase();
    return this.calls
      .filter((c) => (!filter?.tool || c.tool === filter.tool) && (!filter?.errors || c.isError) && (!q || `${c.tool} ${c.args} ${c.summary ?? ''} ${c.client ?? ''}`.toLowerCase().includes(q)))
      .slice(-limit)
      .reverse();
  }

  statsFor(tool: string): ToolStats {
    const s = this.stats.get(tool);
    if (!s) return { calls: 0, errors: 0 };
    const sorted = [...s.latencies].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
    return { calls: s.calls, errors: s.errors, medianMs: at(50), p95Ms: at(95) };
  }
}
