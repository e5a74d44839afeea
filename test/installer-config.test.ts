import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from './helpers/env.js';

const require = createRequire(import.meta.url);

test("the electron-builder config is valid against electron-builder's own schema, and names files that exist", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { build: Record<string, unknown>; main: string };
  const Ajv = require('ajv') as new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown[] } };
  const schema = JSON.parse(fs.readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as object;
  const validate = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true }).compile(schema);
  assert.ok(validate(pkg.build), JSON.stringify(validate.errors, null, 2));
  const b = pkg.build as { extraResources: { from: string }[]; mac: { entitlements: string }; linux: { icon: string }; electronFuses: Record<string, boolean> };
  for (const f of [b.extraResources[0]!.from, b.mac.entitlements, b.linux.icon, 'build/tray/serving.png', 'build/tray/question@2x.png']) assert.ok(fs.existsSync(path.join(ROOT, f)), f);
  assert.equal(b.electronFuses.runAsNode, true, 'the stdio entry needs run-as-node');
  assert.equal(b.electronFuses.enableNodeOptionsEnvironmentVariable, false);
  assert.equal(b.electronFuses.onlyLoadAppFromAsar, true);
  assert.ok(fs.existsSync(path.join(ROOT, pkg.main)), 'the Electron entry is built');
});
