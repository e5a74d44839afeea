import path from 'node:path';
import type { ElectronApi, Electron } from './electron-api.js';
import { PACKAGE_ROOT } from '../core/version.js';
import { ignoreFailure, logger } from '../core/log.js';

const log = logger('desktop');

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
export function guardNavigation(electron: Pick<ElectronApi, 'shell'>, contents: Electron.WebContents, hubOrigin: () => string): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url) && new URL(url).origin !== hubOrigin()) void electron.shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (new URL(url).origin !== hubOrigin()) {
      event.preventDefault();
      if (/^https?:\/\//.test(url)) void electron.shell.openExternal(url);
    }
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * What the window shows: the dashboard of the hub in this process (`own`, at its own origin, where
 * the page signs in over IPC); another hub of this data folder, through a sign-in link asked for
 * after it proved itself (`other`, hub/dashboard-link.ts); or a page saying why there is none.
 */
export type DashboardPlace = { kind: 'own'; url: string } | { kind: 'other'; link(page: string): Promise<string> } | { kind: 'none'; why: string };

export class DashboardWindow {
  private win?: Electron.BrowserWindow;
  /** The origin the window's pages have now (IPC answers only it): what it last loaded, or one no page has. */
  origin = 'pincer:no-hub';

  constructor(
    private electron: ElectronApi,
    private place: () => DashboardPlace,
  ) {}

  /** Shows the dashboard (creating it if needed) at a page, e.g. "questions"; without a hub, a page saying why. */
  open(page = 'overview'): Electron.BrowserWindow {
    if (this.win && !this.win.isDestroyed()) {
      void this.load(this.win, page);
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
    guardNavigation(this.electron, win.webContents, () => this.origin);
    win.once('ready-to-show', () => win.show());
    this.win = win;
    void this.load(win, page);
    return win;
  }

  private async load(win: Electron.BrowserWindow, page: string): Promise<void> {
    const place = this.place();
    let url: string;
    if (place.kind === 'own') url = `${place.url}/#/${page}`;
    else if (place.kind === 'other') url = await place.link(page).catch((err: unknown) => noHubPage(err instanceof Error ? err.message : String(err)));
    else url = noHubPage(place.why);
    this.origin = url.startsWith('data:') ? 'pincer:no-hub' : new URL(url).origin;
    // A load that fails (the window closed, a navigation replaced it) shows whatever the window has; the next open loads again.
    if (!win.isDestroyed()) await win.loadURL(url).catch(ignoreFailure(log, 'loading the dashboard window'));
  }

  /** Replaces what the window shows with a page saying why (its hub is gone or proves nothing). */
  showNoHub(why: string): void {
    this.origin = 'pincer:no-hub';
    if (this.win && !this.win.isDestroyed()) void this.win.loadURL(noHubPage(why)).catch(ignoreFailure(log, 'loading the no-hub page'));
  }
}

/** A page of the app's own, with no origin any hub page has: no cookie goes anywhere, no IPC answers it. */
export function noHubPage(why: string): string {
  const text = why.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `data:text/html;charset=utf-8,${encodeURIComponent(`<!doctype html><meta charset="utf-8"><title>Pincer</title><body style="font:14px system-ui;margin:2em"><h1>Pincer's hub is not running</h1><p>${text}</p>`)}`;
}
