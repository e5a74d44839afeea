import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from '../helpers/env.js';

/*
 * Small functions with one job: no function, method or arrow in main/ spans more than MAX_LINES
 * lines (signature to closing brace, comments and blank lines included, as a reader scrolls it).
 * A function past that is doing several things; split it along its seams (phases, route groups,
 * named steps) rather than raising the bound.
 */

const MAX_LINES = 80;

interface Long {
  where: string;
  name: string;
  lines: number;
}

type FunctionNode = ts.FunctionDeclaration | ts.MethodDeclaration | ts.ArrowFunction | ts.FunctionExpression | ts.ConstructorDeclaration | ts.GetAccessorDeclaration | ts.SetAccessorDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node);
}

/** What a reader would call it: its own name, else the variable, property or call it is handed to. */
function nameOf(node: FunctionNode): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) return node.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name))) return parent.name.text;
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

/** Every function in one source text longer than `max` lines, nested ones measured on their own too. */
export function longFunctions(fileName: string, text: string, max: number): Long[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: Long[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) out.push({ where: `${fileName}:${first + 1}`, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

test('the measure finds a long function, method and arrow, and names each', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const text = [
    `export function long() {\n${body(81)}\n}`,
    `export function short() {\n${body(78)}\n}`,
    `class C {\n  method() {\n${body(85)}\n  }\n}`,
    `const arrow = () => {\n${body(90)}\n};`,
    `register('x', async () => {\n${body(100)}\n});`,
  ].join('\n');
  const found = longFunctions('sample.ts', text, MAX_LINES);
  assert.deepEqual(
    found.map((f) => [f.name, f.lines]),
    [
      ['long', 83],
      ['method', 87],
      ['arrow', 92],
      ["(callback of register)", 102],
    ],
  );
  assert.equal(found[0]?.where, 'sample.ts:1');
});

test(`no function in main/ is longer than ${MAX_LINES} lines`, () => {
  const mainDir = path.join(ROOT, 'main');
  const files = sources(mainDir);
  assert.ok(files.length > 50, `main/ sources found (${files.length})`);
  const long = files.flatMap((file) => longFunctions(path.relative(ROOT, file), fs.readFileSync(file, 'utf8'), MAX_LINES));
  const report = long
    .sort((a, b) => b.lines - a.lines)
    .map((l) => `  ${l.lines} lines  ${l.name}  (${l.where})`)
    .join('\n');
  assert.equal(long.length, 0, `functions over ${MAX_LINES} lines; split them along their seams:\n${report}`);
});
