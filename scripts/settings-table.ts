/**
 * Writes the README's settings table from main/core/settings/schema.ts: `npm run docs:settings`.
 * `--check` only compares (exit 1 when the README differs); test/fast/settings-table.test.ts does the same
 * in the suite. Everything in the table comes from the schema, so a key is described in one place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { PATTERN_SETTINGS, SETTINGS, type SettingSpec, type Trust } from '../main/core/settings/schema.js';

export const TABLE_START = '<!-- settings-table: written by `npm run docs:settings` from main/core/settings/schema.ts; edit the schema, not this table -->';
export const TABLE_END = '<!-- /settings-table -->';
export const REGENERATE = 'npm run docs:settings';

/** The order of the groups, as the dashboard's Settings page shows them. */
const GROUPS: readonly SettingSpec<unknown>['group'][] = ['serving', 'shell', 'http', 'workflow', 'web', 'desktop', 'general'];

/** The README's "Project" column: what a project's own settings file may do with the key. */
function projectColumn(trust: Trust): string {
  switch (trust.level) {
    case 'user':
      return 'no';
    case 'lower':
      return 'lower';
    case 'toward':
      return trust.safe ? 'on' : 'off';
    case 'subset':
      return 'subset';
    case 'project':
      return 'yes';
  }
}

const MIB = 1024 * 1024;

/** A default as people read it: empty said so, a byte count past a MiB also in MiB or GiB. */
function defaultColumn(key: string, value: string): string {
  if (value === '') return 'empty';
  const n = Number(value);
  if (/BYTES/.test(key) && Number.isInteger(n) && n >= MIB) {
    const unit = n % (1024 * MIB) === 0 ? `${n / (1024 * MIB)} GiB` : `${Number((n / MIB).toFixed(2))} MiB`;
    return `\`${value}\` (${unit})`;
  }
  return `\`${value}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

interface Row {
  key: string;
  type: string;
  default: string;
  project: string;
  description: string;
}

function row(r: Row): string {
  return `| \`${r.key}\` | ${cell(r.type)} | ${r.default} | ${r.project} | ${cell(r.description)} |`;
}

/** The type as people read it: the schema's `.describe()`, or a z.enum's choices; else the key's schema must say. */
function typeOf(key: string, schema: z.ZodType): string {
  if (schema.description) return schema.description;
  if (schema instanceof z.ZodEnum) {
    const choices = schema.options.map(String);
    return choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : choices.join('');
  }
  throw new Error(`settings table: the schema of ${key} does not name its type: give it a .describe() in main/core/settings/schema.ts.`);
}

/** The table, header included, one row per key and one per family of keys. */
export function settingsTable(): string {
  const named = Object.entries(SETTINGS as Record<string, SettingSpec<unknown>>)
    .sort(([, a], [, b]) => GROUPS.indexOf(a.group) - GROUPS.indexOf(b.group))
    .map(([key, s]) => row({ key, type: typeOf(key, s.schema), default: defaultColumn(key, s.default), project: projectColumn(s.trust), description: s.description }));
  const families = PATTERN_SETTINGS.map((p) => row({ key: p.key, type: typeOf(p.key, p.schema), default: defaultColumn(p.key, p.default), project: projectColumn(p.trust), description: p.description }));
  return ['| Key | Type | Default | Project | Meaning |', '| --- | --- | --- | --- | --- |', ...named, ...families].join('\n');
}

/** `readme` with the text between the markers replaced by the table; throws when the markers are missing. */
export function withSettingsTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no settings table markers: put ${TABLE_START} and ${TABLE_END} where the table goes, then run ${REGENERATE}.`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${settingsTable()}\n${readme.slice(end)}`;
}

function main(argv: string[]): number {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const file = path.join(root, 'README.md');
  const before = fs.readFileSync(file, 'utf8');
  const after = withSettingsTable(before);
  if (argv.includes('--check')) {
    if (before === after) return 0;
    process.stderr.write(`README.md's settings table differs from main/core/settings/schema.ts: run ${REGENERATE}.\n`);
    return 1;
  }
  if (before !== after) fs.writeFileSync(file, after);
  process.stdout.write(before === after ? 'README.md: settings table already up to date.\n' : 'README.md: settings table written.\n');
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
