import type { EventBus, HubEvent } from '../tools/events.js';
import type { ActivityRepo, ActivityFilter, CallRow } from '../store/activity.js';
import type { Settings } from '../core/settings/settings.js';
import { logger } from '../core/log.js';

const log = logger('activity');

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

/** One minute of the last hour: calls per tool, and p50/p95 latency per tool. */
export interface MinuteBucket {
  at: number;
  calls: number;
  perTool: Record<string, { calls: number; p50: number; p95: number }>;
}

const MINUTE = 60_000;
/** Pruning runs at most this often; between runs the table may exceed its bound by a few calls. */
const PRUNE_EVERY_MS = 60_000;

export function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function toRecord(r: CallRow): CallRecord {
  return {
    id: r.id,
    tool: r.tool,
    session: r.session ?? undefined,
    client: r.client ?? undefined,
    args: r.args,
    started: r.started_at,
    ms: r.ms ?? undefined,
    isError: r.is_error === null ? undefined : r.is_error === 1,
    summary: r.summary ?? undefined,
  };
}

/**
 * Every tool call the hub served and per-tool counts and latencies, for the
 * dashboard. Kept in SQLite (bounded by ACTIVITY_RETENTION_DAYS and
 * ACTIVITY_MAX_CALLS) so it survives a restart like jobs and tasks do.
 */
export class Activity {
  private lastPrune = 0;

  constructor(bus: EventBus, private repo: ActivityRepo, private settings: Settings, private readOnly = false) {
    bus.subscribe((e) => this.onEvent(e));
    if (!readOnly) this.prune();
  }

  private onEvent(e: HubEvent): void {
    if (this.readOnly) return;
    try {
      if (e.type === 'tool_call_started') {
        this.repo.started(e);
      } else if (e.type === 'tool_call_finished') {
        this.repo.finished(e);
        if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) this.prune();
      }
    } catch (err) {
      // Activity is a record for the person, never a reason for a call to fail.
      log.warn(`could not record a tool call: ${(err as Error).message}`);
    }
  }

  prune(): number {
    this.lastPrune = Date.now();
    const days = this.settings.get('ACTIVITY_RETENTION_DAYS');
    return this.repo.prune(Date.now() - days * 86_400_000, this.settings.get('ACTIVITY_MAX_CALLS'));
  }

  recent(limit = 200, filter: Omit<ActivityFilter, 'limit'> = {}): CallRecord[] {
    return this.repo.list({ ...filter, limit }).map(toRecord);
  }

  get(id: string): CallRecord | undefined {
    const r = this.repo.get(id);
    return r ? toRecord(r) : undefined;
  }

  /** Which client a session belongs to, by the calls it made (kept across restarts, unlike open sessions). */
  clientOf(session: string): string | undefined {
    return this.repo.clientOf(session);
  }

  facets(): { tools: string[]; clients: string[] } {
    return this.repo.facets();
  }

  statsFor(tool: string): ToolStats {
    const total = this.repo.totalsFor(tool);
    if (total.calls === 0) return { calls: 0, errors: 0 };
    const sorted = this.repo.recentLatencies(tool).sort((a, b) => a - b);
    return { calls: total.calls, errors: total.errors, medianMs: percentile(sorted, 50), p95Ms: percentile(sorted, 95) };
  }

  /** The last `minutes` minutes, oldest first, one bucket a minute (empty minutes included). */
  perMinute(minutes = 60, now = Date.now()): MinuteBucket[] {
    const end = Math.floor(now / MINUTE) * MINUTE + MINUTE;
    const start = end - minutes * MINUTE;
    const latencies = Array.from({ length: minutes }, () => new Map<string, number[]>());
    for (const t of this.repo.timingsSince(start)) {
      const i = Math.floor((t.started_at - start) / MINUTE);
      if (i < 0 || i >= minutes) continue;
      const m = latencies[i]!;
      const list = m.get(t.tool);
      if (list) list.push(t.ms);
      else m.set(t.tool, [t.ms]);
    }
    return latencies.map((m, i) => {
      const perTool: MinuteBucket['perTool'] = {};
      let calls = 0;
      for (const [tool, ms] of m) {
        ms.sort((a, b) => a - b);
        perTool[tool] = { calls: ms.length, p50: percentile(ms, 50)!, p95: percentile(ms, 95)! };
        calls += ms.length;
      }
      return { at: start + i * MINUTE, calls, perTool };
    });
  }
}
