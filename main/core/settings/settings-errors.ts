import type { SettingsErrorCode } from '../wire-errors.js';

/** Why a settings edit or lookup was refused (codes and statuses in core/wire-errors.ts); callers branch on `code`, people read `message`. */
export type { SettingsErrorCode };

export class SettingsError extends Error {
  constructor(
    readonly code: SettingsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SettingsError';
  }
}
