import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, WAIT_MS } from '../helpers/env.js';

// The suite holds under load only if no test waits a fixed time for something, bounds how long
// something takes, or gives a wait a deadline a loaded machine can miss. These are read from the
// test sources (test/**/*.ts), so a new test that breaks one fails here, naming its line.

const TEST_DIR = path.join(ROOT, 'test');
/** Where the waiting primitives themselves live. */
const PRIMITIVES = new Set([path.join(TEST_DIR, 'helpers', 'env.ts')]);
/** A pause shorter than this is a poll's step between two looks, not a wait for something. */
const POLL_STEP_MAX_MS = 100;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : sources(p);
    return e.name.endsWith('.ts') && !PRIMITIVES.has(p) ? [p] : [];
  });
}

const ms = (literal: string) => Number(literal.replace(/_/g, ''));

function findings(check: (line: string) => string | undefined): string[] {
  const found: string[] = [];
  for (const file of sources(TEST_DIR)) {
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const why = check(line);
        if (why) found.push(`${path.relative(ROOT, file)}:${i + 1}: ${why}: ${line.trim().slice(0, 160)}`);
      });
  }
  return found;
}

test('no fixed sleep waits for something: waitFor a condition, or quietFor a window in which nothing may happen', () => {
  const found = findings((line) => {
    const sleep = /\bsleep\(\s*([0-9_]+)/.exec(line) ?? /setTimeout\(\s*(?:r|resolve)\s*,\s*([0-9_]+)\s*\)/.exec(line) ?? /\.waitForTimeout\(\s*([0-9_]+)/.exec(line);
    return sleep && ms(sleep[1]!) > POLL_STEP_MAX_MS ? `a fixed ${sleep[1]} ms pause` : undefined;
  });
  assert.deepEqual(found, []);
});

test('no test bounds how long something took: timings go to bench/, against peers measured in the same run', () => {
  const found = findings((line) => {
    // Date.now() - started < 2000 bounds a time; Date.now() - 30 * DAY is a date the data is compared with.
    if (/assert\.\w+\(.*\b(?:Date|performance)\.now\(\)\s*-\s*[A-Za-z_$][\w$.]*\s*<=?/.test(line)) return 'an assertion on elapsed time';
    // deadline - Date.now() > 3590_000 bounds the time since the deadline was set.
    if (/assert\.\w+\(.*-\s*(?:Date|performance)\.now\(\)\s*>=?/.test(line)) return 'an assertion on the time left';
    if (/assert\.ok\(\s*(?:took|elapsed|ms|duration)\s*</.test(line)) return 'an assertion on a duration';
    return undefined;
  });
  assert.deepEqual(found, []);
});

test(`a wait on a condition gets WAIT_MS (${WAIT_MS / 1000} s) or more: only a failing test ever reaches it`, () => {
  const found = findings((line) => {
    // waitFor(check, what, ms) on one line, or the closing line of a waitFor(async () => { … }, what, ms).
    const deadline = /(?:\bwaitFor\(.*|^\s*\}\s*,\s*)['"`][^'"`]*['"`],\s*([0-9_]+)\s*\)/.exec(line);
    return deadline && ms(deadline[1]!) < WAIT_MS ? `a ${deadline[1]} ms deadline` : undefined;
  });
  assert.deepEqual(found, []);
});

test(`a test's own time limit, a spawned command's and a request's is at least WAIT_MS (${WAIT_MS / 1000} s): a hang limit, never a speed check`, () => {
  const found = findings((line) => {
    // node:test's own option, a spawned command's (spawnSync), a browser wait (playwright's locator.waitFor),
    // a request's or a child's own hang limit (AbortSignal.timeout, a timer that aborts, kills or destroys it).
    const limit =
      /\b(?:test|describe)\(.*\{[^{}]*\btimeout:\s*([0-9_]+)/.exec(line) ??
      /spawnSync\(.*\btimeout:\s*([0-9_]+)/.exec(line) ??
      /\.waitFor\(\{[^}]*\btimeout:\s*([0-9_]+)/.exec(line) ??
      /AbortSignal\.timeout\(\s*([0-9_]+)\s*\)/.exec(line) ??
      /setTimeout\(\s*\(\)\s*=>\s*[\w$.]+\.(?:abort|kill|destroy)\([^()]*\)\s*,\s*([0-9_]+)\s*\)/.exec(line);
    return limit && ms(limit[1]!) < WAIT_MS ? `a ${limit[1]} ms limit` : undefined;
  });
  assert.deepEqual(found, []);
});
