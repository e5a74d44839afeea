import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/env.js';
import { REGENERATE, TABLE_END, TABLE_START, settingsTable, withSettingsTable } from '../../scripts/settings-table.js';
import { PATTERN_SETTINGS, SETTINGS } from '../../main/core/settings/schema.js';

// The README's settings table is written from the schema; this fails while the two differ.

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

test('the README settings table is the one main/core/settings/schema.ts writes', () => {
  assert.ok(readme.includes(TABLE_START) && readme.includes(TABLE_END), `README.md lost its settings table markers; put them back and run ${REGENERATE}`);
  assert.ok(withSettingsTable(readme) === readme, `README.md's settings table differs from main/core/settings/schema.ts: run ${REGENERATE} and commit README.md`);
});

test('the table has one row per key and per family, each with its type, default and project column', () => {
  const rows = settingsTable().split('\n').slice(2);
  const keys = rows.map((r) => /^\| `([^`]+)` \|/.exec(r)?.[1]);
  assert.deepEqual(keys.toSorted(), [...Object.keys(SETTINGS), ...PATTERN_SETTINGS.map((p) => p.key)].toSorted());
  const port = rows.find((r) => r.startsWith('| `HTTP_PORT` |'));
  assert.equal(port, `| \`HTTP_PORT\` | port 1–65535 or auto | \`7717\` | no | ${SETTINGS.HTTP_PORT.description} |`);
  assert.match(rows.find((r) => r.startsWith('| `BASH_TIMEOUT_MS` |'))!, /^\| `BASH_TIMEOUT_MS` \| whole number 100–600000 \| `30000` \| lower \|/);
  assert.match(rows.find((r) => r.startsWith('| `TOOLS` |'))!, /^\| `TOOLS` \| true \/ false \| `true` \| off \|/);
  assert.match(rows.find((r) => r.startsWith('| `PLAN_APPROVAL` |'))!, /\| on \|/);
  assert.match(rows.find((r) => r.startsWith('| `MAX_BODY_BYTES` |'))!, /\| `4194304` \(4 MiB\) \|/);
  assert.match(rows.find((r) => r.startsWith('| `AUTH_TOKEN` |'))!, /\| empty \| no \|/);
});

test('a README without the markers is refused, naming the command', () => {
  assert.throws(() => withSettingsTable('# no table here\n'), (err: Error) => err.message.includes(REGENERATE));
});
