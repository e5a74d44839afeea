import type { SettingKey, SettingValues } from './schema.js';

/** Where a key's value came from. */
export type SettingSource = 'default' | 'user' | 'project' | 'env';

export interface SettingDiagnostic {
  file: string;
  line: number;
  key?: string;
  severity: 'error' | 'warning';
  message: string;
}

export interface SettingsChange {
  changed: string[];
}

/**
 * Settings as a reader sees them: the hub's own (`Settings`) or one project's
 * narrowed view of them (`Settings.forProject`). Tools get this, never a writer.
 */
export interface SettingsView {
  get<K extends SettingKey>(key: K): SettingValues[K];
  /** Any key, including `TOOL_*`/`SKILL_*` families, as the raw string that applies. */
  raw(key: string): string | undefined;
  source(key: string): SettingSource;
  /** A boolean pattern key such as TOOL_BASH; bad or missing values count as the default (true). */
  flag(key: string): boolean;
  diagnostics(): SettingDiagnostic[];
  on(event: 'change', listener: (change: SettingsChange) => void): unknown;
  off(event: 'change', listener: (change: SettingsChange) => void): unknown;
}
