// The dashboard window's only bridge to the app: two calls, nothing else. Sandboxed preloads run as CommonJS.
import { contextBridge, ipcRenderer } from 'electron';

export interface PincerDesktopApi {
  info(): Promise<{ version: string; platform: string; hubUrl: string }>;
  openExternal(url: string): Promise<void>;
}

const api: PincerDesktopApi = {
  info: () => ipcRenderer.invoke('pincer:info'),
  openExternal: (url: string) => ipcRenderer.invoke('pincer:open-external', String(url)),
};

contextBridge.exposeInMainWorld('pincerDesktop', api);
