import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempHome, ROOT } from './helpers/env.js';

const REPORTER = path.join(ROOT, 'build', 'test-reporter.mjs');

/** Runs Node's test runner with npm test's reporter on one file, as package.json's "test" script does. */
function run(dir: string, body: string): { out: string; status: number | null } {
  const file = path.join(dir, 'sample.test.mjs');
  fs.writeFileSync(file, `import { test } from 'node:test';\n${body}`);
  // Without NODE_TEST_CONTEXT, which this runner sets for its own files: the inner run is a run of its own.
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.NODE_TEST_CONTEXT;
  const r = spawnSync(process.execPath, ['--test', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', file], { cwd: dir, encoding: 'utf8', env });
  return { out: r.stdout, status: r.status };
}

test("npm test's reporter: a todo test that still fails is marked, not traced after 'fail 0'; the summary lines stay the spec reporter's", () => {
  const h = tempHome();
  try {
    const r = run(
      h.home,
      `test('passes', () => {});\ntest('not done', { todo: 'later' }, () => { throw new Error('boom'); });\ntest('needs a browser', { skip: 'no chromium' }, () => {});\n`,
    );
    assert.equal(r.status, 0, r.out);
    assert.doesNotMatch(r.out, /failing tests|Error: boom/);
    assert.match(r.out, /⚠ not done .*# later/);
    const last = r.out.trimEnd().split('\n').slice(-8).map((l) => l.replace(/^(ℹ duration_ms) [\d.]+$/, '$1'));
    assert.deepEqual(last, ['ℹ tests 3', 'ℹ suites 0', 'ℹ pass 1', 'ℹ fail 0', 'ℹ cancelled 0', 'ℹ skipped 1', 'ℹ todo 1', 'ℹ duration_ms']);
  } finally {
    h.cleanup();
  }
});

test("npm test's reporter: a real failure is still listed with its trace, and fails the run", () => {
  const h = tempHome();
  try {
    const r = run(h.home, `test('broken', () => { throw new Error('really broken'); });\n`);
    assert.equal(r.status, 1);
    assert.match(r.out, /ℹ fail 1/);
    assert.match(r.out, /failing tests:[\s\S]*broken[\s\S]*Error: really broken/);
  } finally {
    h.cleanup();
  }
});
