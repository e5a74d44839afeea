import { z } from 'zod';
import type { Db } from './db.js';
import { prepared } from './statements.js';

export const CallbackRow = z.object({
  id: z.number().int(),
  slot: z.number().int(),
  session: z.string().nullable(),
  message: z.string(),
  delay_s: z.number().int(),
  repeat_total: z.number().int(),
  fires_done: z.number().int(),
  next_fire_at: z.number(),
  status: z.enum(['active', 'done', 'cancelled']),
  created_at: z.number(),
  ended_at: z.number().nullable(),
});
export type CallbackRow = z.infer<typeof CallbackRow>;

export const FireRow = z.object({
  id: z.number().int(),
  callback_id: z.number().int(),
  session: z.string().nullable(),
  message: z.string(),
  fire_number: z.number().int(),
  scheduled_at: z.number(),
  fired_at: z.number(),
  late: z.number().int(),
  notified: z.number().int(),
  delivered: z.number().int(),
});
export type FireRow = z.infer<typeof FireRow>;

/** How late a fire may be and still count as on time: the scheduler looks at least once a second. */
export const LATE_AFTER_MS = 2_000;

export class CallbacksRepo {
  constructor(private db: Db) {}

  active(): CallbackRow[] {
    return (prepared(this.db, `SELECT * FROM callbacks WHERE status = 'active' ORDER BY slot`).all() as unknown[]).map((r) => CallbackRow.parse(r));
  }

  get(id: number): CallbackRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM callbacks WHERE id = ?').get(id);
    return r ? CallbackRow.parse(r) : undefined;
  }

  bySlot(slot: number): CallbackRow | undefined {
    const r = prepared(this.db, `SELECT * FROM callbacks WHERE slot = ? AND status = 'active'`).get(slot);
    return r ? CallbackRow.parse(r) : undefined;
  }

  /** Takes the requested slot when it is free, else the lowest free one; undefined when none is. */
  insert(c: { session?: string; message: string; delayS: number; repeatTotal: number; max: number; slot?: number; at?: number }): CallbackRow | undefined {
    return this.db.transaction(() => {
      const used = new Set(this.active().map((r) => r.slot));
      let slot = -1;
      if (c.slot !== undefined) slot = used.has(c.slot) || c.slot >= c.max ? -1 : c.slot;
      else for (let i = 0; i < c.max; i++) if (!used.has(i)) { slot = i; break; }
      if (slot < 0) return undefined;
      const now = c.at ?? Date.now();
      const id = Number(
        prepared(this.db, `INSERT INTO callbacks (slot, session, message, delay_s, repeat_total, next_fire_at, status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'active', ?)`)
          .run(slot, c.session ?? null, c.message, c.delayS, c.repeatTotal, now + c.delayS * 1000, now).lastInsertRowid,
      );
      return this.get(id);
    }).immediate();
  }

  cancel(id: number, at = Date.now()): boolean {
    return prepared(this.db, `UPDATE callbacks SET status = 'cancelled', ended_at = ? WHERE id = ? AND status = 'active'`).run(at, id).changes > 0;
  }

  nextDue(): number | undefined {
    const r = prepared(this.db, `SELECT MIN(next_fire_at) AS t FROM callbacks WHERE status = 'active'`).get() as { t: number | null };
    return r.t ?? undefined;
  }

  due(now: number): CallbackRow[] {
    return (prepared(this.db, `SELECT * FROM callbacks WHERE status = 'active' AND next_fire_at <= ? ORDER BY next_fire_at`).all(now) as unknown[]).map((r) => CallbackRow.parse(r));
  }

  /**
   * Claims one fire: advances the schedule only if nobody else did (the
   * next_fire_at it saw is still there), and records the fire in the same
   * transaction. Exactly one process wins each fire.
   */
  claimFire(c: CallbackRow, now: number): FireRow | undefined {
    return this.db.transaction(() => {
      const fireNumber = c.fires_done + 1;
      const finished = c.repeat_total !== -1 && fireNumber >= c.repeat_total;
      // A fire that was missed (Pincer was down) fires once, late, and the schedule restarts from now.
      const late = now - c.next_fire_at > LATE_AFTER_MS;
      const onSchedule = c.next_fire_at + c.delay_s * 1000;
      // Never a burst of catch-up fires: when the next slot has passed too, count from now.
      const next = late || onSchedule <= now ? now + c.delay_s * 1000 : onSchedule;
      const r = prepared(this.db, `UPDATE callbacks SET fires_done = ?, next_fire_at = ?, status = ?, ended_at = ? WHERE id = ? AND status = 'active' AND next_fire_at = ? AND fires_done = ?`)
        .run(fireNumber, next, finished ? 'done' : 'active', finished ? now : null, c.id, c.next_fire_at, c.fires_done);
      if (r.changes === 0) return undefined;
      const id = Number(
        prepared(this.db, `INSERT INTO callback_fires (callback_id, session, message, fire_number, scheduled_at, fired_at, late) VALUES (?, ?, ?, ?, ?, ?, ?)`)
          .run(c.id, c.session, c.message, fireNumber, c.next_fire_at, now, late ? 1 : 0).lastInsertRowid,
      );
      return FireRow.parse(prepared(this.db, 'SELECT * FROM callback_fires WHERE id = ?').get(id));
    }).immediate();
  }

  /** Fires for a caller not yet sent as a log notification; each is claimed once. */
  claimNotifications(callerId: string): FireRow[] {
    return this.claim(callerId, 'notified');
  }

  /** Fires for a caller not yet prepended to one of its tool results. */
  claimUndelivered(callerId: string): FireRow[] {
    return this.claim(callerId, 'delivered');
  }

  /** Gives claimed fires back (the result they were to go out in could not carry them). */
  release(ids: number[]): void {
    if (ids.length === 0) return;
    prepared(this.db, `UPDATE callback_fires SET delivered = 0 WHERE id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(ids));
  }

  /**
   * Marks and returns a caller's unclaimed fires in one atomic statement, so
   * each is claimed once across processes (this runs on every tool call and
   * every second, so it should stay a single statement).
   */
  private claim(callerId: string, flag: 'notified' | 'delivered'): FireRow[] {
    // Nearly every call finds nothing: a read answers that without taking the write lock.
    if (!prepared(this.db, `SELECT 1 FROM callback_fires WHERE session = ? AND ${flag} = 0 LIMIT 1`).get(callerId)) return [];
    const rows = prepared(this.db, `UPDATE callback_fires SET ${flag} = 1 WHERE session = ? AND ${flag} = 0 RETURNING *`).all(callerId) as unknown[];
    return rows.map((r) => FireRow.parse(r)).sort((a, b) => a.id - b.id);
  }

  recentFires(limit = 100): FireRow[] {
    return (prepared(this.db, 'SELECT * FROM callback_fires ORDER BY id DESC LIMIT ?').all(limit) as unknown[]).map((r) => FireRow.parse(r));
  }

  /**
   * Deletes fires older than `before`, and callbacks that ended before it with no fire left; active
   * callbacks never (nor, then, their fires' callback rows).
   */
  deleteFiredBefore(before: number, limit: number): number {
    return this.db.transaction(() => {
      const fires = prepared(this.db, 'DELETE FROM callback_fires WHERE id IN (SELECT id FROM callback_fires WHERE fired_at < ? LIMIT ?)').run(before, limit).changes;
      const ended = prepared(
        this.db,
        `DELETE FROM callbacks WHERE id IN (SELECT id FROM callbacks c WHERE status != 'active' AND ended_at < ? AND NOT EXISTS (SELECT 1 FROM callback_fires f WHERE f.callback_id = c.id) LIMIT ?)`,
      ).run(before, limit).changes;
      return fires + ended;
    }).immediate();
  }

  count(): { active: number; ended: number; fires: number } {
    return prepared(
      this.db,
      `SELECT COALESCE(SUM(status = 'active'), 0) AS active, COALESCE(SUM(status != 'active'), 0) AS ended, (SELECT COUNT(*) FROM callback_fires) AS fires FROM callbacks`,
    ).get() as { active: number; ended: number; fires: number };
  }
}
