// One process at a data directory's hub.lock, driven by the test over IPC. "hold": on "go" it keeps
// the file under a shared lock (what a starting hub's own check, or a probe, does for an instant) and
// says so, then lets go on "release". "claim": on "go" it takes the lock as a starting hub does.
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { LOCK_CONTENTION_MS, tryHubLock, type HubLock } from '../../main/hub/lock.js';
import { pincerPaths } from '../../main/core/paths.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const [home, role] = [process.argv[2]!, process.argv[3]!];
const paths = pincerPaths(home);
let held: HubLock | undefined;
let reader: BetterSqlite3.Database | undefined;
process.on('message', (m) => {
  if (role === 'hold' && m === 'go') {
    reader = new Database(path.join(home, 'hub.lock'), { timeout: 0 });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM sqlite_master').get();
    process.send!({ holding: true });
  } else if (role === 'hold' && m === 'release') {
    reader!.exec('COMMIT');
    reader!.close();
  } else if (role === 'claim' && m === 'go') {
    held = tryHubLock(paths, LOCK_CONTENTION_MS);
    process.send!({ pid: process.pid, won: Boolean(held) });
  }
});
process.send!({ ready: true });
