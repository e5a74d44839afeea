import fs from 'node:fs';
import type { Db } from './db.js';

/** SQLite's auto_vacuum modes, by the number PRAGMA auto_vacuum answers. */
const INCREMENTAL = 2;
/** Free pages are given back once there are this many (1 MiB of 4 KiB pages), a chunk at a time. */
const RECLAIM_FROM_PAGES = 256;
const RECLAIM_CHUNK_PAGES = 2048;

export interface StoreSpace {
  /** pincer.db, its write-ahead log and shared memory, in bytes. */
  fileBytes: number;
  /** Bytes of pages that hold nothing (given back by the next reclaim). */
  freeBytes: number;
  incremental: boolean;
}

export function storeSpace(db: Db, file: string): StoreSpace {
  const size = (f: string) => {
    try {
      return fs.statSync(f).size;
    } catch {
      // No -wal or -shm file at this moment: nothing to count.
      return 0;
    }
  };
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  return {
    fileBytes: size(file) + size(`${file}-wal`) + size(`${file}-shm`),
    freeBytes: (db.pragma('freelist_count', { simple: true }) as number) * pageSize,
    incremental: db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL,
  };
}

/** Gives free pages back to the file system (a chunk per call, so that the write lock is held briefly). Returns the bytes given back. */
export function reclaim(db: Db): number {
  if (db.pragma('auto_vacuum', { simple: true }) !== INCREMENTAL) return 0;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  if (free < RECLAIM_FROM_PAGES) return 0;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = Math.min(free, RECLAIM_CHUNK_PAGES);
  db.pragma(`incremental_vacuum(${pages})`);
  // The WAL holds the moved pages until a checkpoint; truncating it is what frees the disk.
  db.pragma('wal_checkpoint(TRUNCATE)');
  return pages * pageSize;
}
