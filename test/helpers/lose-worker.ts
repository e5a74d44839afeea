// Run by kill-outcome.test.ts as a second user: a runtime whose lost job's run file names a group this
// user may not signal (another user's process, alive, with its true start time as the shell's).
import fs from 'node:fs';
import path from 'node:path';
import { createRuntime } from '../../main/calls/runtime.js';
import { pidAlive } from '../../main/core/pid.js';
import { waitFor } from './env.js';

const [home, victimText, victimStart] = process.argv.slice(2);
const victim = Number(victimText);
const rt = createRuntime({ home: home!, watch: false, env: { ...process.env, PINCER_HOME: home } });
const jobs = rt.services.jobs;
const { job } = jobs.start('sleep 300', undefined, home);
const runFile = path.join(home!, 'jobs', `${job.id}.run`);
const run = await waitFor(() => (fs.existsSync(runFile) ? (JSON.parse(fs.readFileSync(runFile, 'utf8')) as { supervisorPid: number; shellPid: number }) : undefined), 'the run record');
// The run file is what is left of a lost job: it names a supervisor that is gone (another start time) and,
// as its shell still running, the other user's process. (The real supervisor is stopped after.)
fs.writeFileSync(runFile, JSON.stringify({ supervisorPid: victim, supervisorStart: 'not it', shellPid: victim, shellStart: victimStart }));
const ended = jobs.get(job.id, 'ReadBgOutput');
process.stdout.write(JSON.stringify({ status: ended.status, note: ended.note }));
process.kill(-run.supervisorPid, 'SIGKILL');
await waitFor(() => !pidAlive(run.supervisorPid) && !pidAlive(run.shellPid), 'the real job to stop');
rt.close();
process.exit(0);
