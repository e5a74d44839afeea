import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { EnvDocument } from './envfile.js';
import { specFor, isSettingKey, type SettingKey, type SettingValues } from './schema.js';
import { formatDiagnostic, lintText, readSettingsFile, shownValue, validateValue } from './lint.js';
import { projectRefusal } from './trust.js';
import type { SettingDiagnostic, SettingSource, SettingsChange, SettingsView } from './view.js';
import { logger } from '../log.js';

const log = logger('settings');

/** A project file is a handful of lines; anything larger is not one. */
export const PROJECT_FILE_MAX_BYTES = 64 * 1024;
/** How stale a view may be before a read looks at the file again (watching makes it sooner). */
const RECHECK_MS = 500;
const POLL_MS = 2000;

/** What a project view reads through to: the hub's own settings. */
export interface ProjectBase extends SettingsView {
  readonly userFile: string;
  /** Increases on every reload, so a view knows the hub's values moved without being told. */
  readonly generation: number;
  /** Every key the hub has a value for (named keys and any `TOOL_*`/`SKILL_*` it holds). */
  keys(): string[];
}

export function projectSettingsFile(dir: string): string {
  return path.join(dir, '.pincer', 'pincer-env.txt');
}

function fileStamp(file: string): string {
  try {
    const st = fs.statSync(file);
    return `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch {
    // No project file: a stamp of its own, so its creation is noticed.
    return 'none';
  }
}

/**
 * The hub's settings as one project sees them (ARCHITECTURE §5): each line of
 * `<dir>/.pincer/pincer-env.txt` applies only when its key's trust allows it
 * (it narrows, or is a harmless convenience); every other line is ignored with
 * a warning naming the file, the line and why. Read-only: nothing here writes.
 */
export class ProjectSettings extends EventEmitter<{ change: [SettingsChange] }> implements SettingsView {
  readonly file: string;
  /** Lines that apply: key → raw value (the last applying line of a key wins). */
  private applied = new Map<string, string>();
  private parsed = new Map<SettingKey, unknown>();
  private own: SettingDiagnostic[] = [];
  private effective = new Map<string, string | undefined>();
  private baseGeneration = -1;
  private stamp = '';
  private checkedAt = 0;
  private watcher?: fs.FSWatcher;
  private pollTimer?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private readonly onBaseChange = () => this.refresh(true);

  constructor(
    private readonly base: ProjectBase,
    readonly dir: string,
    private readonly onDiagnostics: () => void = () => undefined,
  ) {
    super();
    this.setMaxListeners(0);
    this.file = projectSettingsFile(dir);
    this.refresh(true);
  }

  get<K extends SettingKey>(key: K): SettingValues[K] {
    this.fresh();
    return this.parsed.has(key) ? (this.parsed.get(key) as SettingValues[K]) : this.base.get(key);
  }

  raw(key: string): string | undefined {
    this.fresh();
    return this.applied.get(key) ?? this.base.raw(key);
  }

  source(key: string): SettingSource {
    this.fresh();
    return this.applied.has(key) ? 'project' : this.base.source(key);
  }

  flag(key: string): boolean {
    this.fresh();
    const mine = this.applied.get(key);
    if (mine === undefined) return this.base.flag(key);
    const parsed = specFor(key)?.schema.safeParse(mine);
    return parsed?.success ? Boolean(parsed.data) : this.base.flag(key);
  }

  /** The hub's diagnostics followed by this project's own. */
  diagnostics(): SettingDiagnostic[] {
    this.fresh();
    return [...this.base.diagnostics(), ...this.own];
  }

  /** Only this project file's lines: refused keys, bad values, unknown keys. */
  projectDiagnostics(): SettingDiagnostic[] {
    this.fresh();
    return [...this.own];
  }

  /** Follows the project file and the hub's settings, emitting `change` with the keys whose value changed. */
  watch(): void {
    if (this.pollTimer) return;
    this.base.on('change', this.onBaseChange);
    try {
      // Only an existing .pincer folder is watched: a view never creates anything in a project.
      this.watcher = fs.watch(path.dirname(this.file), { persistent: false }, (_ev, name) => {
        if (name && name.toString() !== path.basename(this.file)) return;
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => this.refresh(false), 50);
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // No .pincer folder yet: the poll notices when one appears.
    }
    this.pollTimer = setInterval(() => this.refresh(false), POLL_MS);
    this.pollTimer.unref();
  }

  /** Stops following changes; reads stay correct (they look at the file again when stale). */
  close(): void {
    this.base.off('change', this.onBaseChange);
    this.watcher?.close();
    this.watcher = undefined;
    clearInterval(this.pollTimer);
    clearTimeout(this.debounce);
    this.pollTimer = undefined;
  }

  private fresh(): void {
    if (this.baseGeneration === this.base.generation && Date.now() - this.checkedAt < RECHECK_MS) return;
    this.refresh(false);
  }

  private refresh(force: boolean): void {
    try {
      this.checkedAt = Date.now();
      const stamp = fileStamp(this.file);
      if (!force && stamp === this.stamp && this.baseGeneration === this.base.generation) return;
      this.stamp = stamp;
      this.baseGeneration = this.base.generation;
      const before = this.own.map((d) => `${d.line}:${d.message}`).join('\n');
      this.load();
      const changed = this.diffEffective();
      if (this.own.map((d) => `${d.line}:${d.message}`).join('\n') !== before) {
        for (const d of this.own) log.warn(formatDiagnostic(d));
        this.onDiagnostics();
      }
      // Listeners run after the read that noticed the change, never inside it.
      if (changed.length > 0) queueMicrotask(() => this.emit('change', { changed }));
    } catch (err) {
      log.error(`project settings ${this.file}: ${(err as Error).message}`, { err });
    }
  }

  private load(): void {
    this.applied = new Map();
    this.parsed = new Map();
    this.own = [];
    const read = readSettingsFile(this.file, PROJECT_FILE_MAX_BYTES);
    if (read.kind === 'missing') return;
    if (read.kind === 'unusable') {
      this.own.push({ file: this.file, line: 0, severity: 'warning', message: `this project's settings file ${read.why}; ignored` });
      return;
    }
    // Malformed lines and bad values, as in the user's file; unknown keys are judged below like every key.
    const errors = lintText(read.text, this.file, "ignored, the hub's value applies").filter((d) => d.severity === 'error');
    this.own.push(...errors);
    const bad = new Set(errors.map((d) => d.line));
    for (const l of new EnvDocument(read.text).entries()) {
      const key = l.key!;
      const value = l.value!;
      if (bad.has(l.line) || validateValue(key, value) !== undefined) continue;
      const why = projectRefusal(key, value, this.base, this.base.userFile);
      if (why) {
        const message = specFor(key) ? `${key}=${shownValue(key, value)}: ${why}` : why;
        this.own.push({ file: this.file, line: l.line, key, severity: 'warning', message });
        continue;
      }
      this.applied.set(key, value);
      if (isSettingKey(key)) this.parsed.set(key, specFor(key)!.schema.parse(value));
    }
    this.own.sort((a, b) => a.line - b.line);
  }

  private diffEffective(): string[] {
    const keys = new Set([...this.base.keys(), ...this.applied.keys(), ...this.effective.keys()]);
    const next = new Map<string, string | undefined>();
    for (const k of keys) next.set(k, this.applied.get(k) ?? this.base.raw(k));
    const changed = [...keys].filter((k) => next.get(k) !== this.effective.get(k));
    const first = this.effective.size === 0;
    this.effective = next;
    return first ? [] : changed;
  }
}
