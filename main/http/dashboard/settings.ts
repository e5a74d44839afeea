import { z } from 'zod';
import { closest, distance } from 'fastest-levenshtein';
import { SETTINGS, PATTERN_SETTINGS, type Trust } from '../../core/settings/schema.js';
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


/** The settings file for the editor, with secrets (the token, API keys) masked. */
export function maskSecrets(text: string): string {
  const doc = new EnvDocument(text);
  let changed = false;
  for (const key of SECRET_KEYS) {
    const v = doc.get(key);
    if (v !== undefined && v !== '') {
      doc.set(key, MASKED);
      changed = true;
    }
  }
  return changed ? doc.toString() : text;
}

/** Puts the real secret values back where the edited text still says MASKED. */
export function unmaskSecrets(edited: string, current: string): string {
  const doc = new EnvDocument(edited);
  const before = new EnvDocument(current);
  let changed = false;
  for (const key of SECRET_KEYS) {
    if (doc.get(key) === MASKED) {
      doc.set(key, before.get(key) ?? '');
      changed = true;
    }
  }
  return changed ? doc.toString() : edited;
}
