import { benchColdStart } from './cold-start.js';
import { machine } from './lib.js';

// `npm run bench`: every benchmark, each against a peer measured in the same run.
process.stdout.write(`Machine: ${machine()}\n`);
await benchColdStart();
