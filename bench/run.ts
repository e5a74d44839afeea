import { benchColdStart, benchDiscover } from './cold-start.js';
import { benchLatency } from './latency.js';
import { benchStdioCalls } from './stdio-calls.js';
import { benchThroughput } from './throughput.js';
import { benchBackgroundOutput } from './background-output.js';
import { benchIdle } from './idle.js';
import { benchReadDocsQuality } from './readdocs-quality.js';
import { benchReadDocsCalls } from './readdocs-calls.js';
import { benchDurability } from './durability.js';
import { benchBashTask } from './bash-task.js';
import { benchCliStart } from './cli-start.js';
import { benchYearOfUse } from './year-of-use.js';
import { benchPluginBoundary } from './plugin-boundary.js';
import { benchFirstTools } from './first-tools.js';
import { benchDashboardTrust } from './dashboard-trust.js';
import { machine } from './lib.js';

// `npm run bench`: every benchmark, each against a peer measured in the same run.
// BENCH_ONLY=cli,cold,discover,firsttools,stdio,latency,throughput,output,idle,readdocs,readdocs-calls,durability picks some; bashtask, year, plugins and trust are only run when named.
const only = new Set((process.env.BENCH_ONLY ?? 'cli,cold,discover,firsttools,stdio,latency,throughput,output,idle,readdocs,readdocs-calls,durability').split(','));
process.stdout.write(`Machine: ${machine()}\n`);
if (only.has('cli')) await benchCliStart();
if (only.has('cold')) await benchColdStart();
if (only.has('discover')) await benchDiscover();
if (only.has('firsttools')) await benchFirstTools();
if (only.has('stdio')) await benchStdioCalls();
if (only.has('latency')) await benchLatency();
if (only.has('throughput')) await benchThroughput();
if (only.has('output')) await benchBackgroundOutput();
if (only.has('idle')) await benchIdle();
if (only.has('readdocs')) await benchReadDocsQuality();
if (only.has('readdocs-calls')) await benchReadDocsCalls();
if (only.has('durability')) await benchDurability();
if (only.has('bashtask')) await benchBashTask();
if (only.has('year')) await benchYearOfUse();
if (only.has('plugins')) await benchPluginBoundary();
if (only.has('trust')) await benchDashboardTrust();
