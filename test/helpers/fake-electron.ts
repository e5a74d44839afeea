import { EventEmitter } from 'node:events';
import path from 'node:path';
import type { ElectronApi } from '../../main/desktop/electron-api.js';

type Handler = (...args: unknown[]) => unknown;

/** Records what the desktop code asks of Electron, so it can be tested where the Electron binary cannot run. */
export class FakeElectron {
  calls: string[] = [];
  lock = true;
  packaged = false;
  dialogAnswer = 1;
  dialogs: unknown[] = [];
  trays: FakeTray[] = [];
  windows: FakeWindow[] = [];
  notifications: FakeNotification[] = [];
  ipc = new Map<string, Handler>();
  opened: string[] = [];
  openedPaths: string[] = [];
  exited: number | undefined;
  loginItem: { openAtLogin: boolean; args?: string[] } = { openAtLogin: false };
  appEvents = new EventEmitter();
  /** The request filter set on ReadDocs' partition. */
  beforeRequest?: Handler;
  /** The request filter set on the default session (the dashboard window's). */
  windowBeforeRequest?: Handler;

  api(): ElectronApi {
    const self = this;
    const app = {
      requestSingleInstanceLock: () => self.lock,
      on: (ev: string, fn: Handler) => (self.appEvents.on(ev, fn), app),
      whenReady: async () => undefined,
      quit: () => void self.calls.push('quit'),
      exit: (code?: number) => void (self.exited = code ?? 0),
      getPath: () => '/tmp',
      getVersion: () => '0.0.0',
      setLoginItemSettings: (s: { openAtLogin: boolean; args?: string[] }) => void (self.loginItem = { openAtLogin: s.openAtLogin, args: s.args }),
      getLoginItemSettings: () => self.loginItem,
      isPackaged: self.packaged,
      dock: { hide: () => void self.calls.push('dock.hide') },
    };
    class Tray extends FakeTray {
      constructor(image: unknown) {
        super(image);
        self.trays.push(this);
      }
    }
    class BrowserWindow extends FakeWindow {
      constructor(opts: Record<string, unknown>) {
        super(opts);
        self.windows.push(this);
      }
    }
    class Notification extends FakeNotification {
      static isSupported() {
        return true;
      }
      constructor(opts: Record<string, unknown>) {
        super(opts);
        self.notifications.push(this);
      }
    }
    const session = {
      setPermissionRequestHandler: (h: unknown) => void self.calls.push(`permissions:${typeof h}`),
      webRequest: { onBeforeRequest: (h: Handler) => void (self.beforeRequest = h) },
    };
    const defaultSession = {
      setPermissionRequestHandler: (h: unknown) => void self.calls.push(`permissions:${typeof h}`),
      webRequest: { onBeforeRequest: (h: Handler) => void (self.windowBeforeRequest = h) },
    };
    return {
      app,
      Tray,
      Menu: { buildFromTemplate: (t: unknown) => t },
      BrowserWindow,
      nativeImage: { createFromPath: (p: string) => ({ path: p }) },
      Notification,
      ipcMain: { handle: (ch: string, fn: Handler) => void self.ipc.set(ch, fn), removeHandler: (ch: string) => void self.ipc.delete(ch) },
      shell: { openExternal: async (url: string) => void self.opened.push(url), openPath: async (p: string) => (self.openedPaths.push(p), '') },
      session: { defaultSession, fromPartition: () => session },
      dialog: { showMessageBoxSync: (o: unknown) => (self.dialogs.push(o), self.dialogAnswer) },
      net: { fetch: async () => new Response('') },
    } as unknown as ElectronApi;
  }
}

export interface MenuItem {
  label?: string;
  click?: () => void;
  submenu?: MenuItem[];
  checked?: boolean;
}

export class FakeTray {
  image: unknown;
  tooltip = '';
  menu: MenuItem[] = [];
  events = new EventEmitter();
  constructor(image: unknown) {
    this.image = image;
  }
  setImage(i: unknown) {
    this.image = i;
  }
  setToolTip(t: string) {
    this.tooltip = t;
  }
  setContextMenu(m: unknown) {
    this.menu = m as FakeTray['menu'];
  }
  on(ev: string, fn: Handler) {
    this.events.on(ev, fn);
    return this;
  }
  destroy() {}
  item(label: RegExp) {
    const found = this.menu.find((m) => m.label && label.test(m.label));
    if (!found) throw new Error(`no menu item ${label}: ${this.menu.map((m) => m.label).join(', ')}`);
    return found;
  }
}

export class FakeWindow {
  urls: string[] = [];
  shown = false;
  destroyed = false;
  openHandler?: (d: { url: string }) => { action: string };
  contentsEvents = new EventEmitter();
  webContents: Record<string, unknown>;
  constructor(readonly options: Record<string, unknown>) {
    this.webContents = {
      setWindowOpenHandler: (fn: FakeWindow['openHandler']) => void (this.openHandler = fn),
      on: (ev: string, fn: Handler) => void this.contentsEvents.on(ev, fn),
    };
  }
  async loadURL(u: string) {
    this.urls.push(u);
  }
  once(_ev: string, fn: () => void) {
    fn();
  }
  show() {
    this.shown = true;
  }
  focus() {}
  isDestroyed() {
    return this.destroyed;
  }
  /** Fires will-navigate as Chromium would; true when the navigation was stopped. */
  navigate(url: string): boolean {
    let prevented = false;
    this.contentsEvents.emit('will-navigate', { preventDefault: () => (prevented = true) }, url);
    return prevented;
  }
}

export class FakeNotification {
  shown = false;
  closed = false;
  events = new EventEmitter();
  constructor(readonly options: Record<string, unknown>) {}
  show() {
    this.shown = true;
  }
  close() {
    this.closed = true;
  }
  on(ev: string, fn: Handler) {
    this.events.on(ev, fn);
    return this;
  }
}

/** Points HOME (and XDG config) at a temporary folder so client configs and autostart entries land there. */
export function isolateHome(home: string): () => void {
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = path.join(home, '.config');
  return () => {
    for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v);
  };
}
