// One contender for a data directory's hub lock: on "go" it tries once, reports, and keeps what it won until killed.
import { tryHubLock, type HubLock } from '../../main/hub/lock.js';
import { pincerPaths } from '../../main/core/paths.js';

const paths = pincerPaths(process.argv[2]!);
let held: HubLock | undefined;
process.on('message', (m) => {
  if (m !== 'go') return;
  held = tryHubLock(paths);
  process.send!({ pid: process.pid, won: Boolean(held) });
});
process.send!({ ready: true });
