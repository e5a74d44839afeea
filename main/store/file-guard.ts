import fs from 'node:fs';
import type { Db } from './db.js';
import { logger } from '../core/log.js';
import { UserError } from '../core/errors.js';

const log = logger('store');

const WRITING_METHODS = ['run', 'get', 'all', 'iterate'] as const;

/**
 * Notices when `pincer.db` is deleted or replaced under a running Pincer.
 * SQLite would go on writing into the unlinked file, acknowledging rows that
 * no one will ever see; instead the connection is closed and every later use
 * fails with a message that says what happened and what to do.
 *
 * The file is looked up before every write (`guardWrites`) and every second,
 * not on every call: a read from the file that was opened returns what it
 * held, and a `stat` on each call was ~5% of a cheap call in a process woken
 * from idle (bench/RESULTS.md).
 */
export class StoreFileGuard {
  private identity: string;
  private problem?: string;
  private timer?: NodeJS.Timeout;
  /** Set while one synchronous run (a transaction, a call's writes) has checked already. */
  private checkedThisTurn = false;

  constructor(private file: string, private db: Db) {
    this.identity = identityOf(file) ?? '';
  }

  /** Why the store is unusable, as far as a check has found; never looks at the file. */
  known(): string | undefined {
    return this.problem;
  }

  /** Undefined while the file is the one that was opened; else why the store is unusable. */
  check(): string | undefined {
    if (this.problem || !this.identity) return this.problem;
    const now = identityOf(this.file);
    if (now === this.identity) return undefined;
    this.problem =
      `${this.file} was ${now === undefined ? 'deleted' : 'replaced by another file'} while Pincer was running, so nothing more can be saved. ` +
      'Restart Pincer (pincer stop, then start it again): it opens the database that is there now.';
    log.error(this.problem);
    try {
      this.db.close();
    } catch {
      // Already closed: the handle is dropped either way.
    }
    return this.problem;
  }

  /**
   * Every statement that writes checks the file first, once per synchronous run (a transaction's
   * statements share one look): a write into a deleted or replaced file throws a `UserError`
   * coded STORE_UNAVAILABLE instead — from tool calls, timers and activity alike.
   */
  guardWrites(): void {
    const prepare = this.db.prepare.bind(this.db);
    const guarded = (source: string) => {
      const stmt = prepare(source);
      if (stmt.readonly) return stmt;
      for (const name of WRITING_METHODS) {
        const method = stmt[name] as (...args: unknown[]) => unknown;
        Object.defineProperty(stmt, name, {
          value: (...args: unknown[]) => {
            this.assertWritable();
            return method.apply(stmt, args);
          },
        });
      }
      return stmt;
    };
    Object.defineProperty(this.db, 'prepare', { value: guarded });
  }

  private assertWritable(): void {
    if (!this.checkedThisTurn) {
      this.checkedThisTurn = true;
      queueMicrotask(() => (this.checkedThisTurn = false));
      this.check();
    }
    if (this.problem) throw new UserError(this.problem, 'STORE_UNAVAILABLE');
  }

  /** Checks in the background too, so that reads stop within a second of the file going. */
  watch(everyMs = 1000): void {
    this.timer = setInterval(() => {
      if (this.check()) clearInterval(this.timer);
    }, everyMs);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }
}

function identityOf(file: string): string | undefined {
  try {
    const st = fs.statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    // The file is gone: that is what the guard looks for.
    return undefined;
  }
}
