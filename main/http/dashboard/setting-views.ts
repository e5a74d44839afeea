import { z } from 'zod';
import { closest, distance } from 'fastest-levenshtein';
import { SETTINGS, PATTERN_SETTINGS, specFor, type Trust } from '../../core/settings/schema.js';
import type { Settings, SettingDiagnostic } from '../../core/settings/settings.js';
import { EnvDocument } from '../../core/settings/envfile.js';
import { SECRET_KEYS } from '../../core/settings/secrets.js';

/** Which control the dashboard draws for a setting. */
export type SettingControl =
  | { kind: 'switch' }
  | { kind: 'number'; unit?: string }
  | { kind: 'choice'; options: string[] }
  | { kind: 'path' }
  | { kind: 'secret' }
  | { kind: 'text' };

export interface SettingView {
  key: string;
  description: string;
  default: string;
  group: string;
  value: string;
  source: string;
  control: SettingControl;
  /** Who may set it: a project file only narrows (ARCHITECTURE §5). */
  trust: Trust['level'];
  /** A secret's value is never in this view (`value` is empty): `isSet` says whether it has one, GET /api/settings/secret/:key reveals it. */
  secret?: { isSet: boolean };
}

export interface DiagnosticView extends SettingDiagnostic {
  /** For a key that is not a setting: the nearest one, when it is close enough to be a typo. */
  suggestion?: string;
}

const UNITS: [RegExp, string][] = [
  [/_MS$/, 'ms'],
  [/_S$/, 's'],
  [/_DAYS$/, 'days'],
  [/_BYTES$/, 'bytes'],
  [/_EDGE$/, 'px'],
];

const PATH_KEYS = new Set(['BASH_CWD', 'BROWSER_PATH', 'ADDITIONAL_SKILLS']);

function parses(schema: z.ZodType<unknown, string>, value: string): unknown {
  const r = schema.safeParse(value);
  return r.success ? r.data : undefined;
}

/** Reads the control off the key's schema: what it accepts decides how it is edited. */
export function controlFor(key: string, spec: { schema: z.ZodType<unknown, string>; default: string; secret?: boolean }): SettingControl {
  if (spec.secret) return { kind: 'secret' };
  if (spec.schema instanceof z.ZodEnum) return { kind: 'choice', options: spec.schema.options.map(String) };
  if (parses(spec.schema, 'true') === true && parses(spec.schema, 'false') === false) return { kind: 'switch' };
  if (typeof parses(spec.schema, spec.default) === 'number' && /^\d+$/.test(spec.default)) {
    const unit = UNITS.find(([re]) => re.test(key))?.[1];
    return unit ? { kind: 'number', unit } : { kind: 'number' };
  }
  if (PATH_KEYS.has(key)) return { kind: 'path' };
  return { kind: 'text' };
}

export function settingViews(settings: Settings): SettingView[] {
  return Object.entries(SETTINGS).map(([key, spec]) => {
    const value = settings.raw(key) ?? spec.default;
    const secret = (spec as { secret?: boolean }).secret === true;
    return {
      key,
      description: spec.description,
      default: spec.default,
      group: spec.group,
      value: secret ? '' : value,
      source: settings.source(key),
      control: controlFor(key, spec as { schema: z.ZodType<unknown, string>; default: string; secret?: boolean }),
      trust: spec.trust.level,
      ...(secret ? { secret: { isSet: value !== '' } } : {}),
    };
  });
}

/** "Did you mean": the nearest known key within a third of the key's length. */
export function suggestKey(key: string): string | undefined {
  const known = Object.keys(SETTINGS);
  const best = closest(key.toUpperCase(), known);
  if (distance(key.toUpperCase(), best) <= Math.max(2, Math.floor(key.length / 3))) return best;
  const family = PATTERN_SETTINGS.find((p) => p.pattern.test(key.toUpperCase()));
  return family && key !== key.toUpperCase() ? key.toUpperCase() : undefined;
}

export function diagnosticViews(diagnostics: SettingDiagnostic[]): DiagnosticView[] {
  return diagnostics.map((d) => {
    const unknown = d.key !== undefined && d.severity === 'warning' && !(d.key in SETTINGS) && !PATTERN_SETTINGS.some((p) => p.pattern.test(d.key!));
    const suggestion = unknown ? suggestKey(d.key!) : undefined;
    return suggestion ? { ...d, suggestion } : d;
  });
}

/** What the text editor shows in place of a secret value; saving it back keeps the value that is in the file. */
export const MASKED = '(hidden: use Show beside the key)';


const SECRET_NAMES = new Set(SECRET_KEYS);

/**
 * A line that carries a secret's value: `KEY=value` or a commented-out `# KEY=value`, for a secret KEY
 * (any case: a shell or a later edit may still read it). Groups: before the value, the value, after it
 * (an inline comment). Every such line is masked, not only the effective last one: an earlier duplicate
 * or an old key kept in a comment is as secret as the one in use.
 */
const SECRET_LINE = /^(\s*(?:#+\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*)(.*?)(\s+#.*|\s*)$/;

function secretLine(raw: string): { head: string; key: string; value: string; tail: string; commented: boolean } | undefined {
  const m = SECRET_LINE.exec(raw);
  if (!m || !SECRET_NAMES.has(m[2]!.toUpperCase())) return undefined;
  return { head: m[1]!, key: m[2]!.toUpperCase(), value: m[3]!, tail: m[4]!, commented: raw.trimStart().startsWith('#') };
}

/** Which occurrence a secret line is: the n-th line of the same key and kind (entry or comment). */
function occurrences(lines: string[]): Map<number, string> {
  const seen = new Map<string, number>();
  const ids = new Map<number, string>();
  lines.forEach((raw, i) => {
    const s = secretLine(raw);
    if (!s) return;
    const kind = `${s.commented ? '#' : ''}${s.key}`;
    const n = seen.get(kind) ?? 0;
    seen.set(kind, n + 1);
    ids.set(i, `${kind}:${n}`);
  });
  return ids;
}

function splitLines(text: string): { lines: string[]; eol: string } {
  return { lines: text.split(/\r?\n/), eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** The settings file for the editor, with every secret value (the token, API keys; commented-out ones too) masked. */
export function maskSecrets(text: string): string {
  const { lines, eol } = splitLines(text);
  return lines
    .map((raw) => {
      const s = secretLine(raw);
      return s && s.value !== '' ? `${s.head}${MASKED}${s.tail}` : raw;
    })
    .join(eol);
}

/**
 * Puts the real secret values back on every line whose value still says MASKED: the n-th masked line of
 * a key (entry or comment) takes the n-th such line's value in the file; a masked line with no such
 * line (the user copied one) takes the key's effective value.
 */
export function unmaskSecrets(edited: string, current: string): string {
  const { lines, eol } = splitLines(edited);
  const before = splitLines(current).lines;
  const values = new Map<string, string>();
  for (const [i, id] of occurrences(before)) values.set(id, secretLine(before[i]!)!.value);
  const doc = new EnvDocument(current);
  const ids = occurrences(lines);
  return lines
    .map((raw, i) => {
      const s = secretLine(raw);
      if (!s || s.value !== MASKED) return raw;
      const real = values.get(ids.get(i)!) ?? doc.get(s.key) ?? '';
      return `${s.head}${real}${s.tail}`;
    })
    .join(eol);
}

/**
 * Whether setting `key` to `value` is a change only the user's own file, the desktop window or the
 * token may make (auth.ts fullAccess): a key of trust level `user` — it decides who can reach the hub,
 * or a program, a path or an address Pincer uses — given a value. Emptying one puts back its default,
 * which widens nothing (and an empty token is refused by the settings themselves).
 */
export function widens(key: string, value: string | undefined): boolean {
  return specFor(key)?.trust.level === 'user' && (value ?? '').trim() !== '';
}

/** The keys whose effective value differs between two texts of the settings file and whose new value widens (widens). */
export function widenedKeys(before: string, after: string): string[] {
  const a = new EnvDocument(before);
  const b = new EnvDocument(after);
  const keys = new Set([...a.entries(), ...b.entries()].map((l) => l.key!));
  return [...keys].filter((k) => a.get(k) !== b.get(k) && widens(k, b.get(k)));
}
