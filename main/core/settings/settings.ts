import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { EnvDocument } from './envfile.js';
import { SETTINGS, isKnownKey, isSettingKey, specFor, type SettingKey, type SettingValues } from './schema.js';
import { lintText, readSettingsFile, shownValue, unsafeCharProblem, validateValue } from './lint.js';
import { ProjectSettings, type ProjectBase } from './project.js';
import { SettingsError } from './settings-errors.js';
import type { SettingDiagnostic, SettingSource, SettingsChange, SettingsView } from './view.js';
import { writeFileAtomic } from '../paths.js';
import { guarded, logger } from '../log.js';

const log = logger('settings');

export { validateValue, lintText, formatDiagnostic, unsafeCharProblem } from './lint.js';
export { SettingsError, type SettingsErrorCode } from './settings-errors.js';
export type { SettingDiagnostic, SettingSource, SettingsChange, SettingsView } from './view.js';

export interface SettingsOptions {
  /** `$PINCER_HOME/pincer-env.txt`: the user's own file, trusted with every key. */
  userFile: string;
  env?: NodeJS.ProcessEnv;
}

/** What one project's view offers beyond reading: which file it is and what was wrong in it. */
export interface ProjectView extends SettingsView {
  readonly dir: string;
  readonly file: string;
  projectDiagnostics(): SettingDiagnostic[];
}

/** Project views kept (and watched) at once; the least recently asked-for one is let go beyond this. */
export const MAX_PROJECT_VIEWS = 32;
/** The loader refuses a user file larger than this (readSettingsFile); every writer refuses to write one. */
export const USER_FILE_MAX_BYTES = 1024 * 1024;

interface Resolved {
  raw: Map<string, { value: string; source: SettingSource }>;
  values: SettingValues;
  diagnostics: SettingDiagnostic[];
}

/** What the loader takes from a user file's text: each key's last valid value (checkUserText asks the same question before a write). */
function userValues(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const l of new EnvDocument(text).entries()) {
    if (validateValue(l.key!, l.value!) === undefined) values.set(l.key!, l.value!);
  }
  return values;
}

/** Whether the loader finds a usable AUTH_TOKEN in this text. */
function fileToken(text: string): boolean {
  return (userValues(text).get('AUTH_TOKEN') ?? '') !== '';
}

const TOKEN_REQUIRED =
  'AUTH_TOKEN cannot be removed or emptied: without it nobody, the dashboard included, could connect until Pincer restarts. Keep the AUTH_TOKEN line, or rotate the token with "pincer token rotate" or the dashboard\'s Rotate button.';

/**
 * The hub's settings (ARCHITECTURE §5): defaults, the user's file, then environment
 * variables. A project's file never changes these; `forProject(dir)` gives that
 * project's narrowed, read-only view. Reading never throws: a bad value is
 * reported with its file and line and the default is used instead.
 */
export class Settings extends EventEmitter<{ change: [SettingsChange]; diagnostics: [] }> implements ProjectBase {
  readonly userFile: string;
  /** Increases on every reload; project views compare it to know they are stale. */
  generation = 0;
  private env: NodeJS.ProcessEnv;
  private resolved: Resolved;
  private projects = new Map<string, ProjectSettings>();
  private watching = false;
  private watchers: fs.FSWatcher[] = [];
  private reloadTimer?: NodeJS.Timeout;
  private pollTimer?: NodeJS.Timeout;
  private lastStamp = '';

  constructor(opts: SettingsOptions) {
    super();
    // One listener per MCP session and per project view is by design.
    this.setMaxListeners(0);
    this.userFile = opts.userFile;
    this.env = opts.env ?? process.env;
    this.resolved = this.resolve();
    this.lastStamp = this.stamp();
  }

  get<K extends SettingKey>(key: K): SettingValues[K] {
    return this.resolved.values[key];
  }

  raw(key: string): string | undefined {
    return this.resolved.raw.get(key)?.value;
  }

  source(key: string): SettingSource {
    return this.resolved.raw.get(key)?.source ?? 'default';
  }

  flag(key: string): boolean {
    const raw = this.resolved.raw.get(key)?.value;
    if (raw === undefined) return true;
    const parsed = specFor(key)?.schema.safeParse(raw);
    return parsed?.success ? Boolean(parsed.data) : true;
  }

  keys(): string[] {
    return [...this.resolved.raw.keys()];
  }

  diagnostics(): SettingDiagnostic[] {
    return [...this.resolved.diagnostics];
  }

  /**
   * One project's view of these settings: the lines of `<dir>/.pincer/pincer-env.txt`
   * that narrow or are harmless apply, every other line is a warning. Views are
   * cached per folder (at most MAX_PROJECT_VIEWS) and follow their file while
   * these settings are watched.
   */
  forProject(dir: string): ProjectView {
    // Every tool call of a client with a folder asks: a folder seen before (keys are folders that
    // passed the checks below, already resolved) skips checking and resolving it again.
    let cached = this.projects.get(dir);
    const key = cached ? dir : this.checkedFolder(dir);
    cached ??= this.projects.get(key);
    if (cached) {
      this.projects.delete(key);
      this.projects.set(key, cached);
      return cached;
    }
    const view = new ProjectSettings(this, key, () => this.emit('diagnostics'));
    if (this.watching) view.watch();
    this.projects.set(key, view);
    if (this.projects.size > MAX_PROJECT_VIEWS) {
      const [oldest, old] = this.projects.entries().next().value!;
      old.close();
      this.projects.delete(oldest);
      this.emit('diagnostics');
    }
    return view;
  }

  /** `dir` resolved, when it is an absolute path without characters a folder name may not carry. */
  private checkedFolder(dir: string): string {
    const problem = unsafeCharProblem(dir);
    if (!path.isAbsolute(dir) || problem) {
      throw new SettingsError('PROJECT_DIR_INVALID', `The project folder "${shownValue('', dir)}" ${problem ?? 'is not an absolute path'}; send the absolute path of the folder the client works in.`);
    }
    return path.resolve(dir);
  }

  /** What was wrong in the project files of the views held now (the dashboard shows these). */
  projectDiagnostics(): SettingDiagnostic[] {
    return [...this.projects.values()].flatMap((v) => v.projectDiagnostics());
  }

  projectFiles(): string[] {
    return [...this.projects.values()].map((v) => v.file);
  }

  /** Writes one key into the user file, keeping comments and order, then reloads. */
  set(key: string, value: string): void {
    const check = validateValue(key, value);
    if (check) throw new SettingsError('SETTING_VALUE_INVALID', `${key}: ${check}`);
    if (key === 'AUTH_TOKEN' && value.trim() === '' && !this.envToken()) throw new SettingsError('TOKEN_REQUIRED', TOKEN_REQUIRED);
    const doc = this.userDocument();
    doc.set(key, value);
    this.writeUserFile(doc.toString());
  }

  unset(key: string): void {
    if (key === 'AUTH_TOKEN' && !this.envToken()) throw new SettingsError('TOKEN_REQUIRED', TOKEN_REQUIRED);
    const doc = this.userDocument();
    if (doc.delete(key)) this.writeUserFile(doc.toString());
  }

  /**
   * Replaces the whole user file (the dashboard's editor). Returns the lines to
   * fix when any is invalid, and throws `TOKEN_REQUIRED` when the text would
   * leave the hub without a token; nothing is written in either case.
   */
  replaceUserFile(text: string): SettingDiagnostic[] {
    // Said of a text that is refused as a whole: nothing of it applies, so no line is "using the default".
    const problems = lintText(text, this.userFile, 'fix it to save').filter((d) => d.severity === 'error');
    if (problems.length > 0) return problems;
    if ((new EnvDocument(text).get('AUTH_TOKEN') ?? '').trim() === '' && !this.envToken()) throw new SettingsError('TOKEN_REQUIRED', TOKEN_REQUIRED);
    this.writeUserFile(text);
    return [];
  }

  userFileText(): string {
    const read = readSettingsFile(this.userFile, USER_FILE_MAX_BYTES);
    return read.kind === 'text' ? read.text : '';
  }

  /** The user's file for an edit of one key; refuses when the file exists but cannot be read, rather than overwrite it. */
  private userDocument(): EnvDocument {
    const read = readSettingsFile(this.userFile, USER_FILE_MAX_BYTES);
    if (read.kind === 'unusable') throw new SettingsError('SETTINGS_FILE_UNUSABLE', `${this.userFile} ${read.why}, so it was not changed; fix or remove it, then try again.`);
    return new EnvDocument(read.kind === 'text' ? read.text : '');
  }

  private envToken(): boolean {
    const v = this.env.AUTH_TOKEN;
    return v !== undefined && v.trim() !== '' && validateValue('AUTH_TOKEN', v) === undefined;
  }

  /**
   * Refuses a text the loader would not read back as written: past its size limit, not
   * representable in UTF-8 (a lone surrogate comes back as U+FFFD), or taking away the usable
   * AUTH_TOKEN the file has now. Any of these, written, would lock everyone out: the loader drops the whole
   * file, the token becomes empty, and sign-in, `serve` and `token rotate` all fail.
   */
  private checkUserText(text: string): void {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > USER_FILE_MAX_BYTES) {
      throw new SettingsError('SETTINGS_FILE_TOO_LARGE', `The settings would be ${bytes} bytes, more than the ${USER_FILE_MAX_BYTES} bytes Pincer reads from ${this.userFile}; remove lines (or long values) and save again.`);
    }
    if (Buffer.from(text, 'utf8').toString('utf8') !== text) {
      throw new SettingsError('SETTINGS_ENCODING_INVALID', `The settings text holds characters that cannot be written as UTF-8 (a lone surrogate), so ${this.userFile} would not read back as written; remove them and save again.`);
    }
    if (!this.envToken() && !fileToken(text) && fileToken(this.userFileText())) throw new SettingsError('TOKEN_REQUIRED', TOKEN_REQUIRED);
  }

  private writeUserFile(text: string): void {
    this.checkUserText(text);
    try {
      fs.mkdirSync(path.dirname(this.userFile), { recursive: true, mode: 0o700 });
      writeFileAtomic(this.userFile, text, 0o600);
    } catch (err) {
      throw unwritable(this.userFile, err);
    }
    this.reload();
  }

  /** Re-reads the user file and the environment and emits `change` with the keys whose value changed. */
  reload(): SettingsChange {
    const before = this.resolved.raw;
    this.resolved = this.resolve();
    this.generation++;
    this.lastStamp = this.stamp();
    const keys = new Set([...before.keys(), ...this.resolved.raw.keys()]);
    const changed = [...keys].filter((k) => before.get(k)?.value !== this.resolved.raw.get(k)?.value);
    const change = { changed };
    if (changed.length > 0) this.emit('change', change);
    return change;
  }

  /**
   * Follows edits to the user file (and, through their views, to project files).
   * The directory is watched (editors replace files by rename) and a slow poll
   * backs fs.watch up where it is unreliable.
   */
  watch(): void {
    if (this.watching) return;
    this.watching = true;
    const schedule = () => {
      clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(
        guarded(log, 'settings reload', () => {
          if (this.stamp() !== this.lastStamp) this.reload();
        }),
        50,
      );
    };
    const dir = path.dirname(this.userFile);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const w = fs.watch(dir, { persistent: false }, (_ev, name) => {
        if (!name || name.toString() === path.basename(this.userFile)) schedule();
      });
      w.on('error', () => undefined);
      this.watchers.push(w);
    } catch {
      // A directory we cannot watch is still covered by the poll below.
    }
    this.pollTimer = setInterval(schedule, 2000);
    this.pollTimer.unref();
    for (const view of this.projects.values()) view.watch();
  }

  close(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    clearInterval(this.pollTimer);
    clearTimeout(this.reloadTimer);
    this.pollTimer = undefined;
    this.watching = false;
    for (const view of this.projects.values()) view.close();
    this.projects.clear();
  }

  private stamp(): string {
    try {
      const st = fs.statSync(this.userFile);
      return `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      // No user file (yet): a stamp of its own, so its creation is noticed.
      return 'none';
    }
  }

  private resolve(): Resolved {
    const diagnostics: SettingDiagnostic[] = [];
    const raw: Resolved['raw'] = new Map();
    for (const [key, s] of Object.entries(SETTINGS)) raw.set(key, { value: s.default, source: 'default' });

    const read = readSettingsFile(this.userFile, USER_FILE_MAX_BYTES);
    if (read.kind === 'unusable') diagnostics.push({ file: this.userFile, line: 0, severity: 'error', message: `the settings file ${read.why}; using defaults and the environment` });
    if (read.kind === 'text') {
      diagnostics.push(...lintText(read.text, this.userFile));
      for (const [key, value] of userValues(read.text)) raw.set(key, { value, source: 'user' });
    }
    for (const [key, value] of Object.entries(this.env)) {
      if (value === undefined || !isKnownKey(key)) continue;
      const problem = validateValue(key, value);
      if (problem) diagnostics.push({ file: 'environment', line: 0, key, severity: 'error', message: `${key}=${shownValue(key, value)}: ${problem}; using the default` });
      else raw.set(key, { value: value.trim(), source: 'env' });
    }

    const values = new Map<SettingKey, unknown>();
    for (const key of Object.keys(SETTINGS)) {
      if (!isSettingKey(key)) continue;
      const s = specFor(key)!;
      const parsed = s.schema.safeParse(raw.get(key)!.value);
      values.set(key, parsed.success ? parsed.data : s.schema.parse(s.default));
    }
    return { raw, values: Object.fromEntries(values) as SettingValues, diagnostics };
  }
}

/** Why the settings file could not be written, as the person can act on it (writeFileAtomic left the old file as it was). */
function unwritable(file: string, err: unknown): SettingsError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new SettingsError('SETTINGS_DISK_FULL', `The settings were not saved: the disk holding ${file} is full${code === 'EDQUOT' ? ' (your quota is used up)' : ''}. Free some space and save again; the file is unchanged.`);
  }
  const why = code === 'EROFS' ? 'its file system is read-only' : code === 'EACCES' || code === 'EPERM' ? 'permission was denied' : `the system said ${code ?? (err instanceof Error ? err.message : String(err))}`;
  return new SettingsError('SETTINGS_FILE_UNWRITABLE', `The settings were not saved: ${file} could not be written (${why}). The file is unchanged.`);
}
