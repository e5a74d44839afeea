import type { ElectronApi, Electron } from './electron-api.js';
import type { PageRenderer, RenderOptions, RenderResult } from '../tools/web/browser.js';
import { SETTLE_MAX_MS, SETTLE_QUIET_UNWATCHED_MS as SETTLE_QUIET_MS } from '../tools/web/render-wait.js';

/**
 * ReadDocs in the desktop app: a hidden, sandboxed window in its own session,
 * without Node or preload, that may only navigate to web pages. Like the
 * headless renderer it waits for the document (dom-ready) and a still DOM,
 * not for subresources (the session skips images, media and fonts: app.ts).
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
      const deadline = Date.now() + opts.timeoutMs;
      const ready = new Promise<void>((resolve) => contents.once('dom-ready', () => resolve()));
      const loading = win.loadURL(url).catch(() => {
        // loadURL settles on the load event (every subresource) or fails on an aborted subresource: the document is what counts.
      });
      opts.onHandedOver?.();
      let timer: NodeJS.Timeout | undefined;
      const loaded = await Promise.race([ready.then(() => true), loading.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), opts.timeoutMs)))]);
      clearTimeout(timer);
      if (loaded) {
        const settleMs = Math.max(0, Math.min(SETTLE_MAX_MS, deadline - Date.now()));
        await contents.executeJavaScript(
          `new Promise((resolve) => { let t = setTimeout(done, ${SETTLE_QUIET_MS}); const stop = setTimeout(done, ${settleMs}); const mo = new MutationObserver(() => { clearTimeout(t); t = setTimeout(done, ${SETTLE_QUIET_MS}); }); mo.observe(document, { subtree: true, childList: true, characterData: true }); function done() { mo.disconnect(); clearTimeout(stop); resolve(); } })`,
        );
      }
      if (opts.waitMs > 0) await new Promise((r) => setTimeout(r, opts.waitMs));
      // Past the deadline the page as it stands is the answer; a page whose scripts hold its main thread gets a short grace.
      const html = (await Promise.race([
        contents.executeJavaScript('document.documentElement.outerHTML'),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the page could not be read in time')), Math.max(1000, deadline - Date.now())))),
      ]).finally(() => clearTimeout(timer))) as string;
      return { html, finalUrl: contents.getURL(), title: contents.getTitle() };
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      if (!win.isDestroyed()) win.destroy();
    }
  }

  async close(): Promise<void> {}
}
