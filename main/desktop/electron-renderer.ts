import type { ElectronApi, Electron } from './electron-api.js';
import type { PageRenderer, RenderOptions, RenderResult } from '../tools/web/browser.js';

/**
 * ReadDocs in the desktop app: a hidden, sandboxed window in its own session,
 * without Node or preload, that may only navigate to web pages.
 */
export class ElectronRenderer implements PageRenderer {
  readonly name = 'electron';

  constructor(private electron: ElectronApi) {}

  async render(url: string, opts: RenderOptions): Promise<RenderResult> {
    const win = new this.electron.BrowserWindow({
      show: false,
      width: 1280,
      height: 900,
      webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: true, webSecurity: true, partition: 'readdocs', images: false },
    });
    const contents = win.webContents;
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (e: Electron.Event, target: string) => {
      if (!/^https?:/i.test(target)) e.preventDefault();
    });
    contents.setAudioMuted(true);
    if (opts.userAgent) contents.setUserAgent(opts.userAgent);
    const onAbort = () => win.destroy();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([win.loadURL(url), new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs))]);
      // Late content: a still DOM for half a second (at most 3 s), then wait_ms more.
      await contents.executeJavaScript(
        `new Promise((resolve) => { let t = setTimeout(done, 500); const stop = setTimeout(done, 3000); const mo = new MutationObserver(() => { clearTimeout(t); t = setTimeout(done, 500); }); mo.observe(document, { subtree: true, childList: true, characterData: true }); function done() { mo.disconnect(); clearTimeout(stop); resolve(); } })`,
      );
      if (opts.waitMs > 0) await new Promise((r) => setTimeout(r, opts.waitMs));
      const html = (await contents.executeJavaScript('document.documentElement.outerHTML')) as string;
      return { html, finalUrl: contents.getURL(), title: contents.getTitle() };
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      if (!win.isDestroyed()) win.destroy();
    }
  }

  async close(): Promise<void> {}
}
