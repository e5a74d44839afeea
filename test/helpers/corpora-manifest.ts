import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ROOT } from './env.js';

/** test/fixtures/web/corpora.json: each repository's commit and the SHA-256 of each file the tests read. */
const Manifest = z.object({
  about: z.string(),
  repositories: z.record(z.string().regex(/^[\w.-]+\/[\w.-]+$/), z.object({ commit: z.string().regex(/^[0-9a-f]{40}$/), files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)) })),
});

export interface CorpusFile {
  repo: string;
  commit: string;
  /** `<owner>+<name>/files`, the folder under the corpora root. */
  dir: string;
  path: string;
  sha256: string;
}

export const MANIFEST_FILE = path.join(ROOT, 'test', 'fixtures', 'web', 'corpora.json');

export function readManifest(): { repos: { repo: string; commit: string }[]; files: CorpusFile[] } {
  const m = Manifest.parse(JSON.parse(fs.readFileSync(MANIFEST_FILE, 'utf8')));
  const repos = Object.entries(m.repositories).map(([repo, r]) => ({ repo, commit: r.commit }));
  const files = Object.entries(m.repositories).flatMap(([repo, r]) =>
    Object.entries(r.files).map(([p, sha256]) => {
      if (p.split('/').some((seg) => seg === '..' || seg === '' || seg === '.')) throw new Error(`${MANIFEST_FILE}: ${repo}: "${p}" is not a plain relative path`);
      return { repo, commit: r.commit, dir: path.join(repo.replace('/', '+'), 'files'), path: p, sha256 };
    }),
  );
  return { repos, files };
}
