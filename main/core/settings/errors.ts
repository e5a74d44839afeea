/** Why a settings edit or lookup was refused; callers branch on `code`, people read `message`. */
export type SettingsErrorCode =
  /** A key that is not letters, digits and _. */
  | 'SETTING_NAME_INVALID'
  /** A value its key's schema rejects, or one with control or separator characters. */
  | 'SETTING_VALUE_INVALID'
  /** The edit would leave the hub without AUTH_TOKEN, locking everyone out. */
  | 'TOKEN_REQUIRED'
  /** `forProject` was given something other than an absolute folder path. */
  | 'PROJECT_DIR_INVALID'
  /** The user's file is there but cannot be read (not a regular file, too large, no permission): editing one key would lose it. */
  | 'SETTINGS_FILE_UNUSABLE'
  /** The edit would make the user's file larger than the loader reads: it would be dropped whole. */
  | 'SETTINGS_FILE_TOO_LARGE'
  /** The edit holds text that does not survive a round trip through UTF-8. */
  | 'SETTINGS_ENCODING_INVALID'
  /** The disk holding the settings file is full (or the user's quota is used up): nothing was saved. */
  | 'SETTINGS_DISK_FULL'
  /** The settings file could not be written for another reason the system gave (read-only, permission): nothing was saved. */
  | 'SETTINGS_FILE_UNWRITABLE';

/** The HTTP status of each code on the dashboard's settings routes. */
export function settingsErrorStatus(code: SettingsErrorCode): number {
  if (code === 'SETTINGS_DISK_FULL') return 507;
  if (code === 'SETTINGS_FILE_UNWRITABLE') return 503;
  return 400;
}

export class SettingsError extends Error {
  constructor(
    readonly code: SettingsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SettingsError';
  }
}
