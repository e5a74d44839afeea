import fs from 'node:fs';
import { EnvDocument } from './envfile.js';
import { isKnownKey, specFor } from './schema.js';
import type { SettingDiagnostic } from './view.js';

/**
 * Characters no setting value may hold: C0 and C1 controls (NUL, tab, CR, NEL …),
 * the Unicode line and paragraph separators, and invisible bidi/zero-width marks
 * that make a value read differently from what it is. Each would either split
 * the line for some reader or hide what a path or URL really says.
 */
const UNSAFE_CHAR = /[\p{Cc}\p{Zl}\p{Zp}\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/u;
const UNSAFE_CHARS = new RegExp(UNSAFE_CHAR.source, 'gu');

const CHAR_NAMES: Record<string, string> = {
  '\u0000': 'NUL',
  '\t': 'TAB',
  '\r': 'CARRIAGE RETURN',
  '\n': 'LINE FEED',
  '\u0085': 'NEXT LINE',
  '\u2028': 'LINE SEPARATOR',
  '\u2029': 'PARAGRAPH SEPARATOR',
  '\u202E': 'RIGHT-TO-LEFT OVERRIDE',
  '\uFEFF': 'ZERO WIDTH NO-BREAK SPACE',
};

function codePoint(ch: string): string {
  const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  const name = Object.hasOwn(CHAR_NAMES, ch) ? ` (${CHAR_NAMES[ch]})` : '';
  return `U+${hex}${name}`;
}

/** Why a value holds a character no setting may contain, or undefined. */
export function unsafeCharProblem(value: string): string | undefined {
  const m = UNSAFE_CHAR.exec(value);
  if (!m) return undefined;
  return `contains the invisible character ${codePoint(m[0])} at position ${m.index + 1}; values must be plain one-line text, so remove it`;
}

/** A value as it may appear in a message or log: secrets hidden, invisible characters spelled out, long values cut. */
export function shownValue(key: string, value: string): string {
  if (specFor(key)?.secret) return '(hidden)';
  const visible = value.replace(UNSAFE_CHARS, (c) => `<${codePoint(c).split(' ')[0]}>`);
  return visible.length > 80 ? `${visible.slice(0, 77)}...` : visible;
}

/** Returns why a value is bad for a key, or undefined when it is fine (unknown keys take any safe text). */
export function validateValue(key: string, value: string): string | undefined {
  const unsafe = unsafeCharProblem(value);
  if (unsafe) return unsafe;
  const spec = specFor(key);
  if (!spec) return undefined;
  const r = spec.schema.safeParse(value);
  return r.success ? undefined : r.error.issues.map((i) => i.message).join('; ');
}

/**
 * Problems in a settings text, each with its line: bad lines, bad values, unknown keys.
 * `fallback` says what happens instead of a bad value (a project's line is simply ignored).
 */
export function lintText(text: string, file: string, fallback = 'using the default'): SettingDiagnostic[] {
  const out: SettingDiagnostic[] = [];
  for (const l of new EnvDocument(text).lines) {
    if (l.kind === 'invalid') {
      out.push({ file, line: l.line, severity: 'error', message: `not KEY=VALUE: "${shownValue('', l.raw.trim())}"` });
    } else if (l.kind === 'entry') {
      const problem = validateValue(l.key!, l.value!);
      if (problem) out.push({ file, line: l.line, key: l.key, severity: 'error', message: `${l.key}=${shownValue(l.key!, l.value!)}: ${problem}; ${fallback}` });
      else if (!isKnownKey(l.key!)) out.push({ file, line: l.line, key: l.key, severity: 'warning', message: `${l.key} is not a Pincer setting; kept but ignored (check the spelling)` });
    }
  }
  return out;
}

export function formatDiagnostic(d: SettingDiagnostic): string {
  return d.line > 0 ? `${d.file}:${d.line}: ${d.message}` : `${d.file}: ${d.message}`;
}

export type FileRead = { kind: 'text'; text: string } | { kind: 'missing' } | { kind: 'unusable'; why: string };

/**
 * Reads a settings file without trusting what sits at its path: a FIFO or
 * device is not read (it could block or never end), and a file past `maxBytes`
 * is refused rather than loaded.
 */
export function readSettingsFile(file: string, maxBytes: number): FileRead {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'unusable', why: `cannot be read (${code ?? 'error'})` };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { kind: 'unusable', why: 'is not a regular file' };
    if (st.size > maxBytes) return { kind: 'unusable', why: `is ${st.size} bytes, more than the ${maxBytes} a settings file may have` };
    const buf = Buffer.alloc(st.size);
    const n = st.size > 0 ? fs.readSync(fd, buf, 0, st.size, 0) : 0;
    return { kind: 'text', text: buf.subarray(0, n).toString('utf8') };
  } catch (err) {
    return { kind: 'unusable', why: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    fs.closeSync(fd);
  }
}
