import path from 'node:path';
import type { ElectronApi, Electron } from './electron-api.js';
import { PACKAGE_ROOT } from '../core/version.js';

/**
 * Electron's security checklist for the dashboard window: isolated, sandboxed,
 * no Node, only the narrow preload API, no popups, no navigation away from the hub.
 */
export function dashboardWebPreferences(): Electron.WebPreferences {
  return {
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
    preload: path.join(PACKAGE_ROOT, 'dist', 'preload', 'index.cjs'),
  };
}

/** Only the hub's own pages may load in the window; web links open in the person's browser. */
export function guardNavigation(electron: Pick<ElectronApi, 'shell'>, contents: Electron.WebContents, hubOrigin: string): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url) && new URL(url).origin !== hubOrigin) void electron.shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (new URL(url).origin !== hubOrigin) {
      event.preventDefault();
      if (/^https?:\/\//.test(url)) void electron.shell.openExternal(url);
    }
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

export class DashboardWindow {
  private win?: Electron.BrowserWindow;

  constructor(
    private electron: ElectronApi,
    private hubUrl: () => string | undefined,
    private why: () => string = () => 'the hub is not running',
  ) {}

  /** Shows the dashboard (creating it if needed) at a page, e.g. "questions"; without a hub, a page saying why. */
  open(page = 'overview'): Electron.BrowserWindow {
    const hub = this.hubUrl();
    const url = hub ? `${hub}/#/${page}` : noHubPage(this.why());
    if (this.win && !this.win.isDestroyed()) {
      void this.win.loadURL(url);
      this.win.show();
      this.win.focus();
      return this.win;
    }
    const win = new this.electron.BrowserWindow({
      width: 1100,
      height: 760,
      minWidth: 640,
      minHeight: 480,
      title: 'Pincer',
      show: false,
      autoHideMenuBar: true,
      icon: path.join(PACKAGE_ROOT, 'build', 'icon.png'),
      webPreferences: dashboardWebPreferences(),
    });
    guardNavigation(this.electron, win.webContents, hub ? new URL(hub).origin : 'null');
    win.once('ready-to-show', () => win.show());
    void win.loadURL(url);
    this.win = win;
    return win;
  }
}

/** A page of the app's own, with no origin any hub page has: no cookie goes anywhere, no IPC answers it. */
export function noHubPage(why: string): string {
  const text = why.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `data:text/html;charset=utf-8,${encodeURIComponent(`<!doctype html><meta charset="utf-8"><title>Pincer</title><body style="font:14px system-ui;margin:2em"><h1>Pincer's hub is not running</h1><p>${text}</p>`)}`;
}
