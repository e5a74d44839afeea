import type * as Electron from 'electron';

/**
 * The parts of Electron the desktop app uses. main.ts passes the real module;
 * tests pass a fake. Typing it from Electron's own definitions keeps the two honest.
 */
export interface ElectronApi {
  app: Pick<Electron.App, 'requestSingleInstanceLock' | 'on' | 'whenReady' | 'quit' | 'exit' | 'getPath' | 'getVersion' | 'setLoginItemSettings' | 'getLoginItemSettings' | 'isPackaged'> & { dock?: Pick<Electron.Dock, 'hide'> };
  Tray: new (image: Electron.NativeImage) => Pick<Electron.Tray, 'setImage' | 'setToolTip' | 'setContextMenu' | 'on' | 'destroy'>;
  Menu: Pick<typeof Electron.Menu, 'buildFromTemplate'>;
  BrowserWindow: new (opts: Electron.BrowserWindowConstructorOptions) => Electron.BrowserWindow;
  nativeImage: Pick<typeof Electron.nativeImage, 'createFromPath'>;
  Notification: (new (opts: Electron.NotificationConstructorOptions) => Pick<Electron.Notification, 'show' | 'on' | 'close'>) & { isSupported(): boolean };
  ipcMain: Pick<Electron.IpcMain, 'handle' | 'removeHandler'>;
  shell: Pick<Electron.Shell, 'openExternal' | 'openPath'>;
  session: { defaultSession: Pick<Electron.Session, 'setPermissionRequestHandler' | 'webRequest'>; fromPartition(p: string): Pick<Electron.Session, 'setPermissionRequestHandler' | 'webRequest'> };
  dialog: Pick<Electron.Dialog, 'showMessageBoxSync'>;
  net: Pick<Electron.Net, 'fetch'>;
}

export type { Electron };
