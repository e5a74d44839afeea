import fs from 'node:fs';
import type { Db } from './db.js';
import { logger } from '../core/log.js';

const log = logger('store');

/**
 * Notices when `pincer.db` is deleted or replaced under a running Pincer.
 * SQLite would go on writing into the unlinked file, acknowledging rows that
 * no one will ever see; instead the connection is closed and every later use
 * fails with a message that says what happened and what to do.
 */
export class StoreFileGuard {
  private identity: string;
  private problem?: string;
  private timer?: NodeJS.Timeout;

  constructor(private file: string, private db: Db) {
    this.identity = identityOf(file) ?? '';
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
      // Already closed.
    }
    return this.problem;
  }

  /** Checks in the background too, so timers never write into a vanished file. */
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
    return undefined;
  }
}
