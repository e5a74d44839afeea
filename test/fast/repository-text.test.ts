import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/env.js';

/*
 * The repository speaks for itself: what it says must be readable without anything outside it. No
 * pointer into an issue tracker the repository does not hold (say what was measured or guarded), and
 * every PINCER_* variable the shipped code reads is in the README's table.
 */

/** Every tracked file (git ls-files): what a clone holds, nothing built or ignored. */
function trackedFiles(): string[] {
  const r = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, `git ls-files failed in ${ROOT} (${r.error?.message ?? r.stderr}): these checks read the files of a git checkout`);
  return r.stdout.split('\0').filter(Boolean);
}

/** A tracked file's text, or undefined for a binary one (a NUL byte) or one a sparse checkout left out. */
function textOf(file: string): string | undefined {
  const full = path.join(ROOT, file);
  if (!fs.existsSync(full)) return undefined;
  const buf = fs.readFileSync(full);
  return buf.subarray(0, 8192).includes(0) ? undefined : buf.toString('utf8');
}

const tracked = trackedFiles();

/** The word "issue" (or "issues") followed by a number, with or without "#": a pointer into a tracker the repository does not hold. */
const ISSUE_REF = /\bissues?[ #]*\d+/gi;

test('no tracked file refers to an issue number', () => {
  const found: string[] = [];
  for (const file of tracked) {
    const text = textOf(file);
    if (text === undefined) continue;
    text.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(ISSUE_REF)) found.push(`${file}:${i + 1}: "${m[0]}"`);
    });
  }
  assert.deepEqual(found, [], 'say what was measured or what the test guards instead of pointing at the tracker');
});

test('the issue-reference check catches the spellings it means to', () => {
  // Put together at run time, so that this file does not hold the references it looks for.
  const ref = (word: string, rest: string) => `${word}${rest}`;
  for (const line of [ref('see issue', ' 17'), ref('Issue', ' #23: the lock'), ref('(issues', ' 11 and 12)'), ref('issue', '17')]) assert.match(line, new RegExp(ISSUE_REF.source, 'i'), line);
  for (const line of ['err.issues[0]', 'every issue the schema reports', ref('tiss', 'ue 5')]) assert.doesNotMatch(line, new RegExp(ISSUE_REF.source, 'i'), line);
});

/** PINCER_* names read in shipped code; `__PINCER_VIEW__`-style build placeholders are not variables. */
function shippedVariables(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of tracked.filter((f) => /^(main|preload|renderer|bin|scripts)\//.test(f))) {
    const text = textOf(file);
    if (text === undefined) continue;
    for (const m of text.matchAll(/(?<!__)\bPINCER_[A-Z0-9_]*[A-Z0-9]\b(?!__)/g)) if (!out.has(m[0])) out.set(m[0], file);
  }
  return out;
}

/** The variables named in the first column of the README's "Environment variables" table. */
function documentedVariables(): Set<string> {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Environment variables\n');
  assert.ok(start >= 0, 'README.md has no "## Environment variables" section');
  const section = readme.slice(start + 1).split(/\n## /)[0]!;
  const names = new Set<string>();
  for (const line of section.split('\n').filter((l) => l.startsWith('| `PINCER_'))) {
    for (const m of line.split(' | ')[0]!.matchAll(/`(PINCER_[A-Z0-9_]+)`/g)) names.add(m[1]!);
  }
  return names;
}

test('every PINCER_* variable the shipped code reads is in the README table', () => {
  const shipped = shippedVariables();
  assert.ok(shipped.has('PINCER_HOME'), 'the scan found no PINCER_HOME in main/: it reads the wrong files');
  const documented = documentedVariables();
  const missing = [...shipped].filter(([name]) => !documented.has(name)).map(([name, file]) => `${name} (read in ${file})`);
  assert.deepEqual(missing, [], 'add a row to the README\'s "Environment variables" table: what it does, its default, who sets it');
  const stale = [...documented].filter((name) => !shipped.has(name));
  assert.deepEqual(stale, [], 'the README documents variables no shipped code reads: remove their rows, or move them to the paragraph on test variables');
});
