import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { EnvDocument } from './envfile.js';
import { SETTINGS, PATTERN_SETTINGS, isKnownKey, type SettingKey, type SettingValues } from './schema.js';
import { writeFileAtomic } from '../paths.js';
import { guarded, logger } from '../log.js';

const log = logger('settings');

export interface SettingDiagnostic {
  file: string;
  line: number;
  key?: string;
  severity: 'error' | 'warning';
  message: string;
}

export interface SettingsOptions {
  userFile: string;
  /** `<cwd>/.pincer/pincer-env.txt`; omitted when there is no project. */
  projectFile?: string;
  env?: NodeJS.ProcessEnv;
}

type Source = 'default' | 'user' | 'project' | 'env';

interface Resolved {
  raw: Record<string, { value: string; source: Source }>;
  values: SettingValues;
  diagnostics: SettingDiagnostic[];
}

export interface SettingsChange {
  changed: string[];
}

/**
 * Layered settings (DESIGN §5): defaults, the user file, the project file, then
 * environment variables. Reading never throws: a bad value is reported with its
 * file and line and the default is used instead.
 */
export class Settings extends EventEmitter<{ change: [SettingsChange] }> {
  readonly userFile: string;
  readonly projectFile?: string;
  private env: NodeJS.ProcessEnv;
  private resolved: Resolved;
  private watchers: fs.FSWatcher[] = [];
  private reloadTimer?: NodeJS.Timeout;
  private pollTimer?: NodeJS.Timeout;
  private lastStamp = '';

  constructor(opts: SettingsOptions) {
    super();
    this.userFile = opts.userFile;
    this.projectFile = opts.projectFile;
    this.env = opts.env ?? process.env;
    this.resolved = this.resolve();
    this.lastStamp = this.stamp();
  }

  get<K extends SettingKey>(key: K): SettingValues[K] {
    return this.resolved.values[key];
  }

  /** Any key, including `TOOL_*`/`SKILL_*` families, as a raw string. */
  raw(key: string): string | undefined {
    return this.resolved.raw[key]?.value;
  }

  source(key: string): Source {
    return this.resolved.raw[key]?.source ?? 'default';
  }

  /** A boolean pattern key such as TOOL_BASH; bad values count as the default (true). */
  flag(key: string): boolean {
    const raw = this.resolved.raw[key]?.value;
    if (raw === undefined) return true;
    const fam = PATTERN_SETTINGS.find((p) => p.pattern.test(key));
    const parsed = fam?.schema.safeParse(raw);
    return parsed?.success ? Boolean(parsed.data) : true;
  }

  diagnostics(): SettingDiagnostic[] {
    return [...this.resolved.diagnostics];
  }

  /** Writes one key into the user file, keeping comments and order, then reloads. */
  set(key: string, value: string): void {
    const check = validateValue(key, value);
    if (check) throw new Error(`${key}: ${check}`);
    const doc = new EnvDocument(readText(this.userFile) ?? '');
    doc.set(key, value);
    this.writeUserFile(doc.toString());
  }

  unset(key: string): void {
    const doc = new EnvDocument(readText(this.userFile) ?? '');
    if (doc.delete(key)) this.writeUserFile(doc.toString());
  }

  /** Replaces the whole user file (the dashboard's editor); rejected when a line is invalid. */
  replaceUserFile(text: string): SettingDiagnostic[] {
    const problems = lintText(text, this.userFile).filter((d) => d.severity === 'error');
    if (problems.length > 0) return problems;
    this.writeUserFile(text);
    return [];
  }

  userFileText(): string {
    return readText(this.userFile) ?? '';
  }

  private writeUserFile(text: string): void {
    fs.mkdirSync(path.dirname(this.userFile), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.userFile, text, 0o600);
    this.reload();
  }

  /** Re-reads every layer and emits `change` with the keys whose value changed. */
  reload(): SettingsChange {
    const before = this.resolved.raw;
    this.resolved = this.resolve();
    this.lastStamp = this.stamp();
    const keys = new Set([...Object.keys(before), ...Object.keys(this.resolved.raw)]);
    const changed = [...keys].filter((k) => before[k]?.value !== this.resolved.raw[k]?.value);
    const change = { changed };
    if (changed.length > 0) this.emit('change', change);
    return change;
  }

  /**
   * Follows edits to the files. Directories are watched (editors replace files
   * by rename) and a slow poll backs fs.watch up where it is unreliable.
   */
  watch(): void {
    if (this.watchers.length > 0 || this.pollTimer) return;
    const schedule = () => {
      clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(
        guarded(log, 'settings reload', () => {
          if (this.stamp() !== this.lastStamp) this.reload();
        }),
        50,
      );
    };
    for (const file of [this.userFile, this.projectFile]) {
      if (!file) continue;
      const dir = path.dirname(file);
      try {
        fs.mkdirSync(dir, { recursive: true });
        const w = fs.watch(dir, { persistent: false }, (_ev, name) => {
          if (!name || name.toString() === path.basename(file)) schedule();
        });
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch {
        // A directory we cannot watch is still covered by the poll below.
      }
    }
    this.pollTimer = setInterval(schedule, 2000);
    this.pollTimer.unref();
  }

  close(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    clearInterval(this.pollTimer);
    clearTimeout(this.reloadTimer);
    this.pollTimer = undefined;
  }

  private stamp(): string {
    return [this.userFile, this.projectFile]
      .map((f) => {
        if (!f) return '';
        try {
          const st = fs.statSync(f);
          return `${st.mtimeMs}:${st.size}:${st.ino}`;
        } catch {
          return 'none';
        }
      })
      .join('|');
  }

  private resolve(): Resolved {
    const diagnostics: SettingDiagnostic[] = [];
    const raw: Resolved['raw'] = {};
    for (const [key, s] of Object.entries(SETTINGS)) raw[key] = { value: s.default, source: 'default' };

    const layer = (file: string | undefined, source: Source) => {
      if (!file) return;
      const text = readText(file);
      if (text === undefined) return;
      diagnostics.push(...lintText(text, file));
      for (const l of new EnvDocument(text).entries()) {
        if (validateValue(l.key!, l.value!) === undefined) raw[l.key!] = { value: l.value!, source };
      }
    };
    layer(this.userFile, 'user');
    layer(this.projectFile, 'project');
    for (const [key, value] of Object.entries(this.env)) {
      if (value === undefined || !isKnownKey(key)) continue;
      const problem = validateValue(key, value);
      if (problem) diagnostics.push({ file: 'environment', line: 0, key, severity: 'error', message: `${key}=${value}: ${problem}; using the default` });
      else raw[key] = { value: value.trim(), source: 'env' };
    }

    const values = {} as Record<string, unknown>;
    for (const [key, s] of Object.entries(SETTINGS)) {
      const parsed = s.schema.safeParse(raw[key]!.value);
      values[key] = parsed.success ? parsed.data : s.schema.parse(s.default);
    }
    return { raw, values: values as SettingValues, diagnostics };
  }
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Returns why a value is bad for a key, or undefined when it is fine (unknown keys are fine). */
export function validateValue(key: string, value: string): string | undefined {
  const spec = (SETTINGS as Record<string, { schema: { safeParse(v: string): { success: boolean; error?: { issues: { message: string }[] } } } }>)[key]
    ?? PATTERN_SETTINGS.find((p) => p.pattern.test(key));
  if (!spec) return undefined;
  const r = spec.schema.safeParse(value);
  return r.success ? undefined : r.error!.issues.map((i) => i.message).join('; ');
}

/** Problems in a settings text, each with its line: bad lines, bad values, unknown keys. */
export function lintText(text: string, file: string): SettingDiagnostic[] {
  const out: SettingDiagnostic[] = [];
  for (const l of new EnvDocument(text).lines) {
    if (l.kind === 'invalid') {
      out.push({ file, line: l.line, severity: 'error', message: `line ${l.line} is not KEY=VALUE: "${l.raw.trim().slice(0, 80)}"` });
    } else if (l.kind === 'entry') {
      const problem = validateValue(l.key!, l.value!);
      if (problem) out.push({ file, line: l.line, key: l.key, severity: 'error', message: `${l.key}=${l.value}: ${problem}; using the default` });
      else if (!isKnownKey(l.key!)) out.push({ file, line: l.line, key: l.key, severity: 'warning', message: `${l.key} is not a Pincer setting; kept but ignored (check the spelling)` });
    }
  }
  return out;
}

export function formatDiagnostic(d: SettingDiagnostic): string {
  return d.line > 0 ? `${d.file}:${d.line}: ${d.message}` : `${d.file}: ${d.message}`;
}
