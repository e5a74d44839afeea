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

if (import.meta.url === `file://${process.argv[1]}`) await benchColdStart();
