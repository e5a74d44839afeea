/**
 * `npm run corpora [folder]`: fetches the real-web files the tests read (test/fixtures/web/corpora.json)
 * from the public commits that publish them, checks each against its SHA-256, and lays them out as
 * the tests expect: `<folder>/<owner>+<name>/files/<path>` plus `SOURCES.txt`. The folder is the
 * argument, else PINCER_WEB_CORPORA, else `../shared/web-corpora` beside the repository. Files
 * already there with the right hash are kept, so a second run fetches nothing. It needs the network
 * (github.com); the tests never run it against the internet.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { undici } from '../main/tools/web/http-fetch.js';
import { ROOT } from './helpers/env.js';
import { readManifest, type CorpusFile } from './helpers/corpora-manifest.js';

const CONCURRENCY = 6;
const ATTEMPTS = 3;
const TIMEOUT_MS = 60_000;

/** GitHub's raw file host; PINCER_CORPORA_BASE points elsewhere (a mirror, or the test's local server). */
const BASE = (process.env.PINCER_CORPORA_BASE ?? 'https://raw.githubusercontent.com').replace(/\/+$/, '');

function rawUrl(f: CorpusFile): string {
  return `${BASE}/${f.repo}/${f.commit}/${f.path.split('/').map(encodeURIComponent).join('/')}`;
}

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

function present(file: string, hash: string): boolean {
  try {
    return sha256(fs.readFileSync(file)) === hash;
  } catch {
    return false; // absent or unreadable: fetch it
  }
}

async function fetchOne(f: CorpusFile, dest: string): Promise<void> {
  const u = await undici();
  let last = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const res = await u.fetch(rawUrl(f), { dispatcher: u.dispatcher, signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = Buffer.from(await res.arrayBuffer());
      const got = sha256(body);
      if (got !== f.sha256) throw new Error(`SHA-256 ${got}, expected ${f.sha256}`);
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      const tmp = `${dest}.part`;
      fs.writeFileSync(tmp, body);
      fs.renameSync(tmp, dest);
      return;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
  }
  throw new Error(`${f.repo}@${f.commit.slice(0, 12)}:${f.path}: ${last} (${rawUrl(f)})`);
}

async function main(): Promise<number> {
  const folder = path.resolve(process.argv[2] ?? process.env.PINCER_WEB_CORPORA ?? path.join(ROOT, '..', 'shared', 'web-corpora'));
  const manifest = readManifest();
  const todo = manifest.files.filter((f) => !present(path.join(folder, f.dir, f.path), f.sha256));
  process.stdout.write(`${manifest.files.length} files from ${manifest.repos.length} repositories into ${folder}: ${todo.length} to fetch\n`);
  const failed: string[] = [];
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < todo.length) {
        const f = todo[next++]!;
        try {
          await fetchOne(f, path.join(folder, f.dir, f.path));
        } catch (err) {
          failed.push(err instanceof Error ? err.message : String(err));
        }
        if (++done % 50 === 0) process.stdout.write(`  ${done}/${todo.length}\n`);
      }
    }),
  );
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'SOURCES.txt'), manifest.repos.map((r) => `${r.repo} ${r.commit}\n`).join(''));
  if (failed.length) {
    process.stderr.write(`${failed.length} file(s) could not be fetched:\n${failed.map((m) => `  ${m}`).join('\n')}\n`);
    return 1;
  }
  process.stdout.write(`done: ${folder}\n`);
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
