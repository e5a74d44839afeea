import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { CORPORA_ROOT, corpusDir, needsCorpora, SOURCES } from './helpers/web-corpora.js';
import { readManifest } from './helpers/corpora-manifest.js';
import { ROOT, tempHome } from './helpers/env.js';

const manifest = readManifest();
const skip = needsCorpora(...Object.values(SOURCES));
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** Runs a compiled script or test file as its own process, outside this test runner's reporting. */
function run(file: string, env: Record<string, string | undefined>, args: string[] = []): Promise<{ code: number | null; out: string }> {
  const base = { ...process.env };
  delete base.NODE_TEST_CONTEXT; // else the child reports to this runner instead of printing
  delete base.CI;
  const child = spawn(process.execPath, [file, ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

describe('real-web corpora', () => {
  test('every repository the tests read is in the manifest, and the folder holds exactly its files, byte for byte', { skip }, () => {
    const repos = new Set(manifest.repos.map((r) => r.repo));
    for (const repo of Object.values(SOURCES)) assert.ok(repos.has(repo), `${repo} is read by the tests but not in test/fixtures/web/corpora.json`);
    for (const r of manifest.repos) {
      const want = manifest.files.filter((f) => f.repo === r.repo);
      assert.deepEqual(walk(corpusDir(r.repo)).sort(), want.map((f) => f.path).sort(), `${r.repo}: files in ${corpusDir(r.repo)}`);
      for (const f of want) assert.equal(sha256(fs.readFileSync(path.join(corpusDir(r.repo), f.path))), f.sha256, `${r.repo}: ${f.path}`);
    }
    const sources = path.join(CORPORA_ROOT, 'SOURCES.txt');
    if (fs.existsSync(sources)) {
      const listed = fs.readFileSync(sources, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.trim().split(/\s+/).join(' '));
      assert.deepEqual(listed.sort(), manifest.repos.map((r) => `${r.repo} ${r.commit}`).sort());
    }
  });

  test('npm run corpora fetches every file from its commit into <owner>+<name>/files/, checks it, and fetches nothing a second time', { skip }, async () => {
    const commits = new Map(manifest.repos.map((r) => [r.repo, r.commit]));
    let served = 0;
    let tamper = '';
    // Serves the corpus here the way raw.githubusercontent.com serves a repository at a commit.
    const server = http.createServer((req, res) => {
      const m = /^\/([^/]+\/[^/]+)\/([0-9a-f]{40})\/(.+)$/.exec(req.url ?? '');
      const file = m && commits.get(m[1]!) === m[2] ? path.join(corpusDir(m[1]!), ...m[3]!.split('/').map(decodeURIComponent)) : '';
      if (!file || !fs.existsSync(file)) return void res.writeHead(404).end('404: Not Found');
      served++;
      const body = fs.readFileSync(file);
      if (tamper && m![3] === tamper) body[0] = body[0]! ^ 1;
      res.writeHead(200).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const h = tempHome();
    const script = path.join(ROOT, 'dist', 'test', 'fetch-corpora.js');
    try {
      const first = await run(script, { PINCER_CORPORA_BASE: base }, [h.home]);
      assert.equal(first.code, 0, first.out);
      assert.equal(served, manifest.files.length);
      for (const f of manifest.files) assert.equal(sha256(fs.readFileSync(path.join(h.home, f.dir, f.path))), f.sha256, f.path);
      assert.equal(fs.readFileSync(path.join(h.home, 'SOURCES.txt'), 'utf8'), manifest.repos.map((r) => `${r.repo} ${r.commit}\n`).join(''));
      const again = await run(script, { PINCER_CORPORA_BASE: base }, [h.home]);
      assert.equal(again.code, 0, again.out);
      assert.match(again.out, /: 0 to fetch/);
      assert.equal(served, manifest.files.length);
      // A file that is not what the commit holds is refused, by name, and not written.
      const victim = manifest.files.find((f) => f.repo === SOURCES.shortlist && f.path.endsWith('.json'))!;
      fs.rmSync(path.join(h.home, victim.dir, victim.path));
      tamper = victim.path;
      const bad = await run(script, { PINCER_CORPORA_BASE: base }, [h.home]);
      assert.equal(bad.code, 1, bad.out);
      assert.match(bad.out, new RegExp(`${victim.repo}@[0-9a-f]{12}:${victim.path.replace(/[.]/g, '\\.')}: SHA-256 [0-9a-f]{64}, expected ${victim.sha256}`));
      assert.equal(fs.existsSync(path.join(h.home, victim.dir, victim.path)), false);
    } finally {
      server.close();
      h.cleanup();
    }
  });

  test('without the corpora a real-web test is skipped saying why, and under CI=true it fails naming the missing corpus', async () => {
    const h = tempHome();
    const file = path.join(ROOT, 'dist', 'test', 'web-search-real.test.js');
    const nowhere = path.join(h.home, 'no-corpora');
    try {
      const dev = await run(file, { PINCER_WEB_CORPORA: nowhere });
      assert.equal(dev.code, 0, dev.out);
      assert.match(dev.out, /# real-web corpus \S+ not found at .*no-corpora.*npm run corpora/);
      assert.match(dev.out, /(#|ℹ) pass 0\b/);
      assert.match(dev.out, /(#|ℹ) skipped [1-9]/);
      const ci = await run(file, { PINCER_WEB_CORPORA: nowhere, CI: 'true' });
      assert.notEqual(ci.code, 0, ci.out);
      assert.match(ci.out, /CI=true and a prerequisite of the tests is missing: real-web corpus \S+ not found at .*no-corpora/);
    } finally {
      h.cleanup();
    }
  });
});
