import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from '../helpers/env.js';
import { nodes, sources, where, type SourceFile } from '../helpers/source-scan.js';

// Names mean one thing (ARCHITECTURE, "Words" and the naming rule): a file's base name says which file
// it is, and the retired meanings of "task" and "session" do not come back in declared names. Read
// from the sources' syntax trees, in-process.

/** Base names several files in main/ may share, and why a reader can tell them apart. */
const SHARED_BY_DESIGN: Record<string, string> = {
  'index.ts': "a folder's entry (a tool family's list of its tools, the plugins' entry point): the folder names it",
};

function files(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    return e.isDirectory() ? files(rel) : [rel];
  });
}

/**
 * The names a file declares (variables, functions, classes, types, parameters, class members), each
 * with where it is. Fields of object types are left out: they mirror wire shapes and SQL columns, which
 * keep the first words.
 */
function declaredNames(file: SourceFile): { name: string; at: string }[] {
  const out: { name: string; at: string }[] = [];
  for (const n of nodes(file)) {
    const declares =
      ts.isVariableDeclaration(n) || ts.isFunctionDeclaration(n) || ts.isClassDeclaration(n) || ts.isInterfaceDeclaration(n) ||
      ts.isTypeAliasDeclaration(n) || ts.isParameter(n) || ts.isMethodDeclaration(n) || ts.isBindingElement(n) || ts.isEnumDeclaration(n) ||
      ts.isPropertyDeclaration(n);
    if (declares && n.name && ts.isIdentifier(n.name)) out.push({ name: n.name.text, at: where(file, n.name) });
  }
  return out;
}

interface Retired {
  /** Which files the rule reads. */
  where: RegExp;
  /** A declared name that uses the retired meaning… */
  retired: RegExp;
  /** …unless it is one of these (names the seeds fixed, or the word's own meaning). */
  allowed: Set<string>;
  why: string;
}

const RETIRED: Retired[] = [
  {
    where: /^main\/tools\/shell\//,
    retired: /task/i,
    // The seed tools' own names, and the MCP task a Bash call may become (the tasks extension's API).
    allowed: new Set(['listBgTasksTool', 'killBgTaskTool', 'startTask', 'deferTask', 'taskSupport', 'canStartTask', 'asTask']),
    why: 'a background process is a job; "task" in code is an MCP task',
  },
  {
    where: /^main\/(store\/todos|tools\/workflow\/(task-manager|todo-views)|http\/dashboard\/todos-api|tools\/views\/todo-view)\.ts$|^renderer\/src\/(pages\/todos|apps\/todo-view)\.tsx$/,
    retired: /task/i,
    allowed: new Set(['taskManagerTool', 'taskViewReadTool', 'taskViewCompleteTool']),
    why: 'an item of TaskManager is a todo; "task" in code is an MCP task',
  },
  {
    where: /^main\//,
    retired: /dashboardSession/i,
    allowed: new Set(),
    why: 'a signed-in dashboard is a sign-in; "session" in code is an MCP session',
  },
  {
    where: /^(main\/http\/(dashboard\/(sign-ins|sign-in-routes|auth)|static)|renderer\/src\/(api|live|sign-in))\.ts$/,
    retired: /session/i,
    allowed: new Set(),
    why: 'a signed-in dashboard is a sign-in; "session" in code is an MCP session',
  },
  {
    where: /^main\/(tools|plugins|store)\//,
    retired: /^session(Id)?$/,
    allowed: new Set(),
    why: 'the client a call comes from is its caller (callerId); "session" in code is an MCP session',
  },
];

test('no two files in main/ share a base name, but for the ones the naming rule lists', () => {
  const byName = new Map<string, string[]>();
  for (const rel of files('main')) byName.set(path.basename(rel), [...(byName.get(path.basename(rel)) ?? []), rel]);
  const shared = [...byName].filter(([name, paths]) => paths.length > 1 && !(name in SHARED_BY_DESIGN));
  assert.deepEqual(
    shared.map(([name, paths]) => `${name}: ${paths.join(', ')}`),
    [],
    'rename each so that its name says what it is, or list the name in SHARED_BY_DESIGN with the reason a reader can see (and in ARCHITECTURE)',
  );
  for (const name of Object.keys(SHARED_BY_DESIGN)) assert.ok((byName.get(name)?.length ?? 0) > 1, `${name} is no longer shared: drop it from SHARED_BY_DESIGN`);
});

test('declared names keep to the words: no task for a job or a todo, no session for a sign-in or a caller', () => {
  const scanned = sources(['main', 'renderer/src']);
  const found: string[] = [];
  for (const rule of RETIRED) {
    const read = scanned.filter((f) => rule.where.test(f.rel));
    assert.ok(read.length > 0, `the rule "${rule.why}" reads no file: ${rule.where} is stale`);
    for (const file of read) {
      for (const d of declaredNames(file)) if (rule.retired.test(d.name) && !rule.allowed.has(d.name)) found.push(`${d.at} (${rule.why})`);
    }
  }
  assert.deepEqual(found, []);
});

test('the rules catch what they are for', () => {
  // A rule that could not fail is no rule: the retired names, as they were written before, are caught.
  const caught = (rel: string, name: string) => RETIRED.some((r) => r.where.test(rel) && r.retired.test(name) && !r.allowed.has(name));
  assert.ok(caught('main/tools/shell/background.ts', 'taskId'));
  assert.ok(caught('main/store/todos.ts', 'TasksRepo'));
  assert.ok(caught('main/http/dashboard/sign-ins.ts', 'DashboardSessions'));
  assert.ok(caught('main/tools/shell/workdir.ts', 'sessionId'));
  assert.ok(caught('main/store/jobs.ts', 'session'));
  assert.ok(!caught('main/tools/shell/bash.ts', 'startTask'));
  assert.ok(!caught('main/access/mcp-sessions.ts', 'SessionTable'));
});
