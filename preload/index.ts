// The dashboard window's only bridge to the app: three calls, nothing else.
// Bundled by esbuild into dist/preload/index.cjs, because a sandboxed preload may not require files.
import { contextBridge, ipcRenderer } from 'electron';
import { IPC, type PincerDesktopApi } from '../main/desktop/channels.js';

const api: PincerDesktopApi = {
  info: () => ipcRenderer.invoke(IPC.info),
  openExternal: (url: string) => ipcRenderer.invoke(IPC.openExternal, String(url)),
  signIn: () => ipcRenderer.invoke(IPC.signIn),
};

contextBridge.exposeInMainWorld('pincerDesktop', api);
