import { SettingsError } from './settings-errors.js';

/**
 * The scorpiox-env file format: one `KEY=VALUE` a line, `#` comments, blank
 * lines kept. A ` #` (whitespace, then #) after a value starts an inline comment;
 * a `#` inside a value (URLs, tokens) stays part of it. The document keeps every
 * line's original text so that editing one key rewrites only that line.
 */
export interface EnvLine {
  /** 1-based line number in the file it was read from. */
  line: number;
  raw: string;
  kind: 'blank' | 'comment' | 'entry' | 'invalid';
  key?: string;
  value?: string;
}

const KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseEnvLine(raw: string, line: number): EnvLine {
  const trimmed = raw.trim();
  if (trimmed === '') return { line, raw, kind: 'blank' };
  if (trimmed.startsWith('#')) return { line, raw, kind: 'comment' };
  const eq = raw.indexOf('=');
  if (eq < 0) return { line, raw, kind: 'invalid' };
  const key = raw.slice(0, eq).trim();
  if (!KEY_RE.test(key)) return { line, raw, kind: 'invalid', key };
  return { line, raw, kind: 'entry', key, value: stripInlineComment(raw.slice(eq + 1)).trim() };
}

function stripInlineComment(value: string): string {
  const m = /\s#/.exec(value);
  return m ? value.slice(0, m.index) : value;
}

export class EnvDocument {
  lines: EnvLine[];
  /** The file's newline style, kept on write. */
  private eol: string;
  private trailingNewline: boolean;

  constructor(text = '') {
    this.eol = text.includes('\r\n') ? '\r\n' : '\n';
    this.trailingNewline = text === '' || text.endsWith('\n');
    const raws = text.split(/\r?\n/);
    if (raws.length > 0 && raws[raws.length - 1] === '') raws.pop();
    this.lines = raws.map((raw, i) => parseEnvLine(raw, i + 1));
  }

  entries(): EnvLine[] {
    return this.lines.filter((l) => l.kind === 'entry');
  }

  /** The effective value: the last occurrence of a key wins, as when a shell sources the file. */
  get(key: string): string | undefined {
    for (let i = this.lines.length - 1; i >= 0; i--) {
      const l = this.lines[i]!;
      if (l.kind === 'entry' && l.key === key) return l.value;
    }
    return undefined;
  }

  /** Sets a key in place (keeping spacing and inline comment) or appends it. */
  set(key: string, value: string): void {
    if (!KEY_RE.test(key)) throw new SettingsError('SETTING_NAME_INVALID', `${JSON.stringify(key.slice(0, 80))} is not a valid setting name (letters, digits and _ only, not starting with a digit)`);
    if (/[\r\n]/.test(value)) throw new SettingsError('SETTING_VALUE_INVALID', `the value of ${key} must be a single line`);
    if (/\s#/.test(value)) throw new SettingsError('SETTING_VALUE_INVALID', `the value of ${key} cannot contain " #": in this file that starts a comment`);
    for (let i = this.lines.length - 1; i >= 0; i--) {
      const l = this.lines[i]!;
      if (l.kind === 'entry' && l.key === key) {
        const eq = l.raw.indexOf('=');
        const m = /^(\s*)(.*?)(\s+#.*)?$/.exec(l.raw.slice(eq + 1))!;
        const raw = `${l.raw.slice(0, eq + 1)}${m[1]}${value}${m[3] ?? ''}`;
        this.lines[i] = { ...parseEnvLine(raw, l.line), line: l.line };
        return;
      }
    }
    this.lines.push(parseEnvLine(`${key}=${value}`, this.lines.length + 1));
  }

  /** Removes every occurrence of a key; comments and other lines stay. */
  delete(key: string): boolean {
    const before = this.lines.length;
    this.lines = this.lines.filter((l) => !(l.kind === 'entry' && l.key === key));
    return this.lines.length !== before;
  }

  toString(): string {
    const body = this.lines.map((l) => l.raw).join(this.eol);
    return this.lines.length === 0 ? '' : body + (this.trailingNewline ? this.eol : '');
  }
}
