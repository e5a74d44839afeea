import type { ElectronApi, Electron } from './electron-api.js';

export type IpcHandler = (...args: unknown[]) => unknown;

/**
 * Registers IPC handlers that answer only the dashboard: every message's sender
 * frame must be a page of the hub's own origin, or it is refused.
 */
export function registerIpc(ipcMain: ElectronApi['ipcMain'], hubOrigin: () => string, handlers: Record<string, IpcHandler>): () => void {
  for (const [channel, handler] of Object.entries(handlers)) {
    ipcMain.handle(channel, (event: Electron.IpcMainInvokeEvent, ...args: unknown[]) => {
      const url = event.senderFrame?.url ?? '';
      let origin = '';
      try {
        origin = new URL(url).origin;
      } catch {
        // A sender without a parsable URL has no origin, and is refused below.
        origin = '';
      }
      if (origin !== hubOrigin()) throw new Error(`refused IPC "${channel}" from ${url || 'an unknown sender'}`);
      return handler(...args);
    });
  }
  return () => {
    for (const channel of Object.keys(handlers)) ipcMain.removeHandler(channel);
  };
}
