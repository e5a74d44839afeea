// Run by store.test.ts as a separate process: bumps a job's read offset N times with compare-and-set.
import { openStore } from '../../main/store/db.js';
import { JobsRepo } from '../../main/store/jobs.js';

const [file, idText, countText] = process.argv.slice(2);
const { db } = openStore(file!);
const repo = new JobsRepo(db);
const id = Number(idText);
let done = 0;
let retries = 0;
while (done < Number(countText)) {
  const job = repo.get(id)!;
  if (repo.advanceOffset(id, job.read_offset, job.read_offset + 1)) done++;
  else retries++;
}
db.close();
process.stdout.write(JSON.stringify({ done, retries }));
