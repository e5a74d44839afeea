/**
 * The IPC contract between the desktop app and its dashboard window, in one
 * place: the main process registers these channels, the preload calls them,
 * the renderer sees the API type. No Electron import, so all three can use it.
 */
export const IPC = {
  info: 'pincer:info',
  openExternal: 'pincer:open-external',
  signIn: 'pincer:sign-in',
} as const;

export interface DesktopInfo {
  version: string;
  platform: string;
  hubUrl: string;
}

/** What the window's page gets as `window.pincerDesktop`. */
export interface PincerDesktopApi {
  info(): Promise<DesktopInfo>;
  openExternal(url: string): Promise<void>;
  /** Signs the window in without the token: a one-time sign-in code (`<id>.<secret>`) for the hub the window shows, which the page redeems. */
  signIn(): Promise<{ code: string }>;
}
