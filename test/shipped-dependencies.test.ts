import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from './helpers/env.js';

/*
 * What ships is what the shipped code imports: `dependencies` land in every .mcpb
 * (build/bundle.mjs copies `npm ls --omit=dev`) and in the app's asar (electron-builder takes the
 * production tree), so a package only tests, benchmarks or the renderer's build use belongs in
 * `devDependencies`, and nothing shipped may import one.
 */

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
/** Provided by the app itself at run time; electron-builder wants it among the devDependencies. */
const PROVIDED = new Set(['electron']);
const BUILTINS = new Set(builtinModules);

function files(dir: string, ext: RegExp): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every module specifier one built file loads: static and dynamic imports, require(), createRequire(...)() and core/lazy-module.ts's lazyModule(). */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const isCreatedRequire = ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire';
      const isLazy = ts.isIdentifier(callee) && callee.text === 'lazyModule';
      if (isImport || isRequire || isCreatedRequire || isLazy) out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function packageOf(spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || spec.startsWith('file:') || BUILTINS.has(spec.split('/')[0]!)) return undefined;
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
}

const SHIPPED = [
  ...files(path.join(ROOT, 'dist', 'main'), /\.js$/),
  ...files(path.join(ROOT, 'dist', 'preload'), /\.c?js$/),
  path.join(ROOT, 'build', 'pincer-stdio.js'),
];

test('every runtime dependency is imported by the shipped code, and no dev dependency is', () => {
  assert.ok(SHIPPED.length > 100, 'the build is there (npm run build)');
  const importedBy = new Map<string, string>();
  for (const file of SHIPPED) for (const spec of specifiers(file)) {
    const name = packageOf(spec);
    if (name && !importedBy.has(name)) importedBy.set(name, path.relative(ROOT, file));
  }
  const unused = Object.keys(pkg.dependencies).filter((d) => !importedBy.has(d));
  assert.deepEqual(unused, [], `runtime dependencies no shipped module imports: move them to devDependencies`);
  const dev = [...importedBy].filter(([name]) => name in pkg.devDependencies && !PROVIDED.has(name)).map(([name, file]) => `${name} (${file})`);
  assert.deepEqual(dev, [], 'shipped modules import dev dependencies, which are not in the bundle or the app');
  const undeclared = [...importedBy].filter(([name]) => !(name in pkg.dependencies) && !PROVIDED.has(name)).map(([name, file]) => `${name} (${file})`);
  assert.deepEqual(undeclared, [], 'shipped modules import packages that are not dependencies');
});

interface LockEntry {
  dev?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The packages npm installs because a shipped package names them as required (not optional) peers, and what they depend on. */
function requiredPeers(packages: Record<string, LockEntry>): Set<string> {
  const found = new Set<string>();
  const visit = (name: string) => {
    if (found.has(name)) return;
    found.add(name);
    for (const d of Object.keys(packages[`node_modules/${name}`]?.dependencies ?? {})) visit(d);
  };
  for (const [key, entry] of Object.entries(packages)) {
    if (!key.startsWith('node_modules/') || entry.dev === true) continue;
    for (const peer of Object.keys(entry.peerDependencies ?? {})) if (!entry.peerDependenciesMeta?.[peer]?.optional && packages[`node_modules/${peer}`]) visit(peer);
  }
  return found;
}

test("the dashboard's bundle is self-contained, and no dev dependency is in the production tree the bundle and the app copy", () => {
  const bundles = files(path.join(ROOT, 'dist', 'renderer'), /\.js$/);
  assert.ok(bundles.length > 0, 'the renderer is built');
  for (const file of bundles) assert.deepEqual(specifiers(file).filter((s) => packageOf(s)), [], `${path.relative(ROOT, file)} loads packages at run time`);
  // npm marks a package "dev" in the lockfile when only devDependencies reach it: `npm ls --omit=dev` and electron-builder leave those out.
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const peers = requiredPeers(lock.packages);
  const shipped = Object.keys(pkg.devDependencies).filter((d) => !PROVIDED.has(d) && !peers.has(d) && lock.packages[`node_modules/${d}`]?.dev !== true);
  assert.deepEqual(shipped, [], 'dev dependencies that a runtime dependency also pulls in, so they ship');
  // Known and accepted: ext-apps (its server helpers register the chat views) names the SDK's client as a
  // required peer, which npm installs with it; a change here is a change in what ships.
  assert.deepEqual(Object.keys(pkg.devDependencies).filter((d) => peers.has(d)).sort(), ['@modelcontextprotocol/client', 'eventsource-parser'], 'dev dependencies shipped as required peers of runtime dependencies');
  for (const d of Object.keys(pkg.dependencies)) assert.notEqual(lock.packages[`node_modules/${d}`]?.dev, true, `${d} is a dependency but the lockfile marks it dev: run npm install`);
});
