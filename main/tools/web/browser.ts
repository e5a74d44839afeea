import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { SettingsView } from '../../core/settings/view.js';
import { logger } from '../../core/log.js';

const log = logger('browser');

export interface RenderResult {
  html: string;
  finalUrl: string;
  title: string;
}

export interface RenderOptions {
  waitMs: number;
  timeoutMs: number;
  userAgent?: string;
  signal?: AbortSignal;
}

/** Renders a page with a real browser so that JavaScript runs. Headless: Chromium via playwright-core; desktop: a hidden Electron window. */
export interface PageRenderer {
  readonly name: string;
  render(url: string, opts: RenderOptions): Promise<RenderResult>;
  close(): Promise<void>;
}

/** Where Chrome, Chromium, Edge or Brave usually is on this OS (tests look there too). */
export function browserCandidates(): string[] {
  const env = process.env;
  if (process.platform === 'win32') {
    const roots = [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter((r): r is string => Boolean(r));
    return roots.flatMap((r) => [
      path.join(r, 'Google', 'Chrome', 'Application', 'chrome.exe'),
      path.join(r, 'Microsoft', 'Edge', 'Application', 'msedge.exe'),
      path.join(r, 'Chromium', 'Application', 'chrome.exe'),
      path.join(r, 'BraveSoftware', 'Brave-Browser', 'Application', 'brave.exe'),
    ]);
  }
  if (process.platform === 'darwin') {
    return [
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
      '/Applications/Brave Browser.app/Contents/MacOS/Brave Browser',
      path.join(env.HOME ?? '', 'Applications/Google Chrome.app/Contents/MacOS/Google Chrome'),
    ];
  }
  return ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/usr/bin/microsoft-edge', '/usr/bin/brave-browser', '/snap/bin/chromium', '/opt/google/chrome/chrome'];
}

/** BROWSER_PATH, else the usual install places of this OS; `off` disables the browser. */
export function findBrowser(settings: SettingsView): string | undefined {
  const configured = settings.get('BROWSER_PATH').trim();
  if (configured.toLowerCase() === 'off') return undefined;
  if (configured) return fs.existsSync(configured) ? configured : undefined;
  return browserCandidates().find((c) => fs.existsSync(c));
}

/**
 * A locally installed Chrome/Chromium/Edge driven by playwright-core. Launched
 * on first use, shared by calls, closed after a minute without work.
 */
export class PlaywrightRenderer implements PageRenderer {
  readonly name: string;
  private browser?: Promise<Browser>;
  private idle?: NodeJS.Timeout;
  private active = 0;

  constructor(private executablePath: string) {
    this.name = path.basename(executablePath);
  }

  private launch(): Promise<Browser> {
    this.browser ??= (async () => {
      const { chromium } = await import('playwright-core');
      const args = ['--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--mute-audio'];
      // Chromium's sandbox cannot run as root; a root hub (containers, CI) must go without.
      if (process.getuid?.() === 0) args.push('--no-sandbox');
      const proxy = process.env.HTTPS_PROXY ?? process.env.https_proxy ?? process.env.HTTP_PROXY ?? process.env.http_proxy;
      const b = await chromium.launch({ executablePath: this.executablePath, headless: true, args, ...(proxy ? { proxy: { server: proxy, bypass: process.env.NO_PROXY ?? process.env.no_proxy } } : {}) });
      b.on('disconnected', () => {
        this.browser = undefined;
      });
      log.info(`launched ${this.executablePath}`);
      return b;
    })();
    this.browser.catch(() => {
      this.browser = undefined;
    });
    return this.browser;
  }

  async render(url: string, opts: RenderOptions): Promise<RenderResult> {
    clearTimeout(this.idle);
    this.active++;
    const browser = await this.launch();
    const context = await browser.newContext({ userAgent: opts.userAgent || undefined, acceptDownloads: false, serviceWorkers: 'block', javaScriptEnabled: true });
    try {
      const page = await context.newPage();
      // Only web content: no file:, no chrome:, no custom schemes from the page.
      await page.route('**/*', (route) => (/^(https?|data|blob):/i.test(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
      const onAbort = () => void context.close().catch(() => undefined);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const deadline = Date.now() + opts.timeoutMs;
      await page.goto(url, { waitUntil: 'load', timeout: opts.timeoutMs });
      // Late content: wait until the DOM has been still for half a second (at most 3 s), then wait_ms more.
      await page
        .evaluate(
          (maxMs) =>
            new Promise<void>((resolve) => {
              let timer = setTimeout(done, 500);
              const stop = setTimeout(done, maxMs);
              const mo = new MutationObserver(() => {
                clearTimeout(timer);
                timer = setTimeout(done, 500);
              });
              mo.observe(document, { subtree: true, childList: true, characterData: true });
              function done() {
                mo.disconnect();
                clearTimeout(stop);
                resolve();
              }
            }),
          Math.max(0, Math.min(3000, deadline - Date.now() - 500)),
        )
        .catch(() => undefined);
      if (opts.waitMs > 0) await page.waitForTimeout(Math.min(opts.waitMs, Math.max(0, deadline - Date.now())));
      opts.signal?.removeEventListener('abort', onAbort);
      return { html: await page.content(), finalUrl: page.url(), title: await page.title() };
    } finally {
      await context.close().catch(() => undefined);
      this.active--;
      if (this.active === 0) {
        this.idle = setTimeout(() => void this.close(), 60_000);
        this.idle.unref();
      }
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    const b = this.browser;
    this.browser = undefined;
    if (b) await (await b.catch(() => undefined))?.close().catch(() => undefined);
  }
}
