import { coldStart, table, type Row } from './lib.js';
import { stdioSubjects } from './peers.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);

/** Cold start: spawn → first initialize answer over stdio, for Pincer (bridge and standalone) and what a user would pick instead. */
export async function benchColdStart(): Promise<string> {
  const { subjects, close } = await stdioSubjects();
  try {
    const rows: Row[] = subjects.map((s) => ({ name: s.name, samples: [] }));
    // Interleave the subjects so that drift on the machine hits all of them alike.
    for (let i = 0; i < RUNS; i++) {
      for (let s = 0; s < subjects.length; s++) rows[s]!.samples.push(await coldStart(process.execPath, subjects[s]!.args, subjects[s]!.env));
    }
    return table('Cold start: spawn → first initialize answer (stdio)', rows, 'minimal SDK v2 server');
  } finally {
    await close();
  }
}

/**
 * Spawn → first answer to a 2026-07-28 `server/discover` over stdio, for the subjects that speak that generation. The AI
 * SDK gives a stdio server 1 s for it, then falls back to initialize (2025-11-25): the test suite does not hold Pincer to
 * that time (a loaded machine can take longer to start Node at all), this table measures it against the SDK's floor.
 */
export async function benchDiscover(): Promise<string> {
  const { subjects: all, close } = await stdioSubjects();
  const subjects = all.filter((s) => s.name.startsWith('pincer') || s.name.startsWith('baseline') || s.name === 'minimal SDK v2 server');
  try {
    const rows: Row[] = subjects.map((s) => ({ name: s.name, samples: [] }));
    for (let i = 0; i < RUNS; i++) {
      for (let s = 0; s < subjects.length; s++) rows[s]!.samples.push(await coldStart(process.execPath, subjects[s]!.args, subjects[s]!.env, 'discover'));
    }
    return table('Cold start: spawn → first server/discover answer (stdio; the AI SDK waits 1000 ms)', rows, 'minimal SDK v2 server');
  } finally {
    await close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchColdStart();
