import type { HubEvent } from '../tools/events.js';
import type { EventBus } from './event-bus.js';
import type { ActivityRepo, ActivityFilter, ActivityCursor, CallRow } from '../store/activity.js';
import type { Settings } from '../core/settings/settings.js';
import { guarded, logger } from '../core/log.js';

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
/** Pending activity is written this long after the first unwritten event, or at once past MAX_PENDING. */
const FLUSH_AFTER_MS = 200;
const MAX_PENDING = 256;
/** The search index takes a batch of calls this often, when none was recorded for QUIET_MS. */
const INDEX_EVERY_MS = 1_000;
const QUIET_MS = 1_000;
const INDEX_BATCH = 500;
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
  /** Starts and finishes not yet written: written together, off the call's path (see `flush`). */
  private pending: Parameters<ActivityRepo['record']>[0] = [];
  private timer?: NodeJS.Timeout;
  private indexer?: NodeJS.Timeout;
  private lastWrite = 0;
  private unsubscribe: () => void;

  constructor(bus: EventBus, private repo: ActivityRepo, private settings: Settings, private readOnly = false) {
    this.unsubscribe = bus.subscribe((e) => this.onEvent(e));
    if (!readOnly) {
      this.prune();
      this.indexer = setInterval(guarded(log, 'activity search index', () => this.indexWhileQuiet()), INDEX_EVERY_MS);
      this.indexer.unref();
    }
  }

  /**
   * Text search's index is filled here, off the call path: a batch at a time, and only while no call has
   * been recorded for a moment (a burst of calls is never slowed by it; the search scans what is not
   * indexed yet).
   */
  private indexWhileQuiet(): void {
    if (this.pending.length > 0 || Date.now() - this.lastWrite < QUIET_MS) return;
    this.repo.indexSome(INDEX_BATCH);
  }

  private onEvent(e: HubEvent): void {
    if (this.readOnly) return;
    if (e.type === 'tool_call_started') this.pending.push({ kind: 'started', ...e });
    else if (e.type === 'tool_call_finished') this.pending.push({ kind: 'finished', ...e });
    else return;
    // Two writes per call on the call's own path cost more than a cheap call itself: batch them.
    if (this.pending.length >= MAX_PENDING) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_AFTER_MS).unref();
  }

  /** Writes what is pending in one transaction. Reads flush first, so they always see every call. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.lastWrite = Date.now();
    try {
      this.repo.record(batch);
      if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) this.prune();
    } catch (err) {
      // Activity is a record for the person, never a reason for a call to fail.
      log.warn(`could not record ${batch.length} tool call event(s): ${(err as Error).message}`, { err });
    }
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.indexer);
    this.flush();
  }

  prune(): number {
    this.flush();
    this.lastPrune = Date.now();
    const days = this.settings.get('ACTIVITY_RETENTION_DAYS');
    return this.repo.prune(Date.now() - days * 86_400_000, this.settings.get('ACTIVITY_MAX_CALLS'));
  }

  recent(limit = 200, filter: Omit<ActivityFilter, 'limit'> = {}): CallRecord[] {
    return this.page(limit, filter).calls;
  }

  /**
   * One page, newest first, from a cursor on (the `next` of the page before). Each call carries its own
   * cursor (`<started>.<row>`): a page that drops its last calls (a live list) pages on from the last it kept.
   */
  page(limit: number, filter: Omit<ActivityFilter, 'limit'> = {}, before?: ActivityCursor): { calls: (CallRecord & { cursor: string })[]; next?: ActivityCursor } {
    this.flush();
    const p = this.repo.page({ ...filter, limit }, before);
    return { calls: p.rows.map((r) => ({ ...toRecord(r), cursor: `${r.started_at}.${r.seq}` })), ...(p.next ? { next: p.next } : {}) };
  }

  /** How many calls match, counted up to `cap` (a text search or a broad filter over a long history says "at least"). */
  countMatching(filter: Omit<ActivityFilter, 'limit'>, cap: number): { n: number; capped: boolean } {
    this.flush();
    return this.repo.countMatching(filter, cap);
  }

  count(): number {
    this.flush();
    return this.repo.count();
  }

  /** Calls not yet in text search's index (a search scans them). */
  unindexed(): number {
    return this.repo.unindexed();
  }

  get(id: string): CallRecord | undefined {
    this.flush();
    const r = this.repo.get(id);
    return r ? toRecord(r) : undefined;
  }

  /** Which client a session belongs to, by the calls it made (kept across restarts, unlike open sessions). */
  clientOf(callerId: string): string | undefined {
    this.flush();
    return this.repo.clientOf(callerId);
  }

  facets(): { tools: string[]; clients: string[] } {
    this.flush();
    return this.repo.facets();
  }

  statsFor(tool: string): ToolStats {
    this.flush();
    const total = this.repo.totalsFor(tool);
    if (total.calls === 0) return { calls: 0, errors: 0 };
    const sorted = this.repo.recentLatencies(tool).sort((a, b) => a - b);
    return { calls: total.calls, errors: total.errors, medianMs: percentile(sorted, 50), p95Ms: percentile(sorted, 95) };
  }

  /** The last `minutes` minutes, oldest first, one bucket a minute (empty minutes included). */
  perMinute(minutes = 60, now = Date.now()): MinuteBucket[] {
    this.flush();
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
