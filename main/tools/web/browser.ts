import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { SettingsView } from '../../core/settings/view.js';
import { ignoreFailure, logger } from '../../core/log.js';

const log = logger('browser');

export interface RenderResult {
  html: string;
  finalUrl: string;
  title: string;
}

export interface RenderOptions {
  /** Extra time to wait once the page has settled (the caller's wait_ms). */
  waitMs: number;
  /** The whole render's budget before wait_ms: past it the renderer answers with the document as it stands, or fails. */
  timeoutMs: number;
  userAgent?: string;
  signal?: AbortSignal;
  /**
   * The page as already fetched (decoded text and its media type): a renderer that can is given this document for its
   * first navigation instead of fetching the URL again, so both extractions read the same page, decoded the same way,
   * and no second request is waited for. Everything else the page asks for goes to the network as usual.
   */
  document?: { html: string; mediaType: string };
}

/**
 * Renders a page with a real browser so that JavaScript runs. Headless: Chromium via playwright-core; desktop: a hidden Electron window.
 * Both wait for the document (DOMContentLoaded) and then for its DOM to settle, never for every subresource: images, media,
 * fonts and the like are not loaded at all (see `subresourcePolicy`), stylesheets are answered empty, and a request still
 * pending when the budget runs out is not waited for.
 */
export interface PageRenderer {
  readonly name: string;
  render(url: string, opts: RenderOptions): Promise<RenderResult>;
  close(): Promise<void>;
}

/** How long the DOM must be still before a rendered page counts as settled, and the longest settling wait (before wait_ms). */
export const SETTLE_QUIET_MS = 500;
export const SETTLE_MAX_MS = 3000;

/**
 * What the renderers do with a subresource, by its type (Playwright's and Electron's names): a text extractor needs the
 * document and the scripts and data that build it, nothing that is only looked at or listened to. Stylesheets are answered
 * empty rather than refused, since some apps wait for a stylesheet's load event before they render.
 */
export function subresourcePolicy(type: string): 'load' | 'skip' | 'empty-stylesheet' {
  if (type === 'stylesheet') return 'empty-stylesheet';
  return SKIPPED.has(type) ? 'skip' : 'load';
}
const SKIPPED = new Set(['image', 'imageset', 'media', 'font', 'texttrack', 'manifest', 'object', 'ping', 'cspReport', 'beacon']);

/** Request types a page's text may still depend on when it first looks settled. */
const BUILDS_TEXT = new Set(['document', 'script', 'xhr', 'fetch']);

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

export interface PlaywrightRendererOptions {
  /** Hosts the page may reach; every other request is refused (the given document aside). For the benchmark, which allows none; unset, any http(s) host. */
  onlyHosts?: string[];
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

  constructor(
    private executablePath: string,
    private options: PlaywrightRendererOptions = {},
  ) {
    this.name = path.basename(executablePath);
  }

  private launch(): Promise<Browser> {
    this.browser ??= (async () => {
      const { chromium } = await import('playwright-core');
      const args = ['--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--mute-audio', '--blink-settings=imagesEnabled=false'];
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
    // A failed launch is reported to the call that asked; forgetting it lets the next call try again.
    this.browser.catch(() => {
      this.browser = undefined;
    });
    return this.browser;
  }

  private allowed(url: string): boolean {
    // Only web content: no file:, no chrome:, no custom schemes from the page.
    if (/^(data|blob):/i.test(url)) return true;
    if (!/^https?:/i.test(url)) return false;
    return !this.options.onlyHosts || this.options.onlyHosts.includes(new URL(url).hostname);
  }

  async render(url: string, opts: RenderOptions): Promise<RenderResult> {
    clearTimeout(this.idle);
    this.active++;
    try {
      const browser = await this.launch();
      // The budget starts once the browser is up: launching is paid once a minute at most, not by the page.
      const deadline = Date.now() + opts.timeoutMs;
      const context = await browser.newContext({ userAgent: opts.userAgent || undefined, acceptDownloads: false, serviceWorkers: 'block', javaScriptEnabled: true });
      // Cancelled: closing the page's context ends its work; one already closed rejects, which changes nothing.
      const onAbort = () => void context.close().catch(() => undefined);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const page = await context.newPage();
        let given = false;
        await page.route('**/*', (route) => {
          const req = route.request();
          if (opts.document && !given && req.isNavigationRequest() && req.frame() === page.mainFrame() && sameDocument(req.url(), url)) {
            given = true;
            // UTF-8 and said so in the header, which outranks a <meta charset>: the browser decodes it as the fetch did.
            return route.fulfill({ status: 200, contentType: `${opts.document.mediaType}; charset=utf-8`, body: opts.document.html });
          }
          if (!this.allowed(req.url())) return route.abort('blockedbyclient');
          const policy = subresourcePolicy(req.resourceType());
          if (policy === 'skip') return route.abort('blockedbyclient');
          if (policy === 'empty-stylesheet') return route.fulfill({ status: 200, contentType: 'text/css', body: '' });
          return route.continue();
        });
        const pending = new Set<unknown>();
        page.on('request', (r) => void (BUILDS_TEXT.has(r.resourceType()) && pending.add(r)));
        page.on('requestfinished', (r) => void pending.delete(r));
        page.on('requestfailed', (r) => void pending.delete(r));
        let failedNavigation: string | undefined;
        page.on('requestfailed', (r) => void (r.isNavigationRequest() && r.frame() === page.mainFrame() && (failedNavigation = `${r.url()} (${r.failure()?.errorText ?? 'failed'})`)));
        await page.addInitScript(() => {
          const w = window as unknown as { __pincerMutations: number };
          w.__pincerMutations = 0;
          new MutationObserver(() => void w.__pincerMutations++).observe(document, { subtree: true, childList: true, characterData: true });
        });
        // The document, not its subresources: past the deadline, whatever has been parsed is the answer.
        const loaded = await page
          .goto(url, { waitUntil: 'domcontentloaded', timeout: Math.max(1, deadline - Date.now()) })
          .then(() => true)
          .catch((err: Error) => {
            if (opts.signal?.aborted) throw err;
            return false;
          });
        if (loaded) await settle(page, pending, deadline);
        if (opts.waitMs > 0) await page.waitForTimeout(opts.waitMs);
        // The page's own scripts may keep its main thread busy: the snapshot gets a bounded grace after the deadline.
        const grace = Math.max(1000, deadline - Date.now());
        const html = await withTimeout(snapshot(page), grace, 'the page could not be read in time');
        // A page that failed to load, or whose script navigated somewhere unreachable, leaves the browser's own error page.
        if (page.url().startsWith('chrome-error:')) throw new Error(`the browser could not load ${failedNavigation ?? 'the page'}`);
        if (!loaded && !/<body[\s>][\s\S]*\S[\s\S]*<\/body>/i.test(html)) throw new Error(`the page did not load within ${opts.timeoutMs} ms`);
        return { html, finalUrl: page.url(), title: await withTimeout(page.title(), 1000, 'no title').catch(() => '') };
      } finally {
        opts.signal?.removeEventListener('abort', onAbort);
        // Each call gets its own context (no cookies or storage carried over); closing it need not delay the answer.
        void context.close().catch(ignoreFailure(log, 'closing a page context'));
      }
    } finally {
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
    // A browser that failed to launch was reported to the call that launched it; one that did is closed.
    if (b) await (await b.catch(() => undefined))?.close().catch(ignoreFailure(log, 'closing the browser'));
  }
}

interface SettlingPage {
  evaluate<R>(fn: () => R): Promise<R>;
  waitForTimeout(ms: number): Promise<void>;
}

/**
 * Late content: waits until the DOM has been still for SETTLE_QUIET_MS with no script, XHR or fetch in flight, at most
 * SETTLE_MAX_MS and never past the deadline. Requests that never answer (an unreachable tracker) cost the cap, not more.
 */
async function settle(page: SettlingPage, pending: Set<unknown>, deadline: number): Promise<void> {
  const end = Math.min(deadline, Date.now() + SETTLE_MAX_MS);
  let last = -1;
  let stillSince = Date.now();
  while (Date.now() < end) {
    const count = await withTimeout(
      page.evaluate(() => (window as unknown as { __pincerMutations?: number }).__pincerMutations ?? 0),
      Math.max(1, end - Date.now()),
      'busy',
    ).catch(() => -2); // a page too busy to answer counts as still changing
    const now = Date.now();
    if (count !== last || pending.size > 0) {
      last = count;
      stillSince = now;
    } else if (now - stillSince >= SETTLE_QUIET_MS) return;
    await page.waitForTimeout(Math.min(100, Math.max(0, end - now)));
  }
}

/** The DOM as HTML; a page caught mid-navigation (a script redirect) is read again once it has one. */
async function snapshot(page: { content(): Promise<string>; waitForTimeout(ms: number): Promise<void> }): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await page.content();
    } catch (err) {
      if (attempt >= 20 || !/navigating/i.test((err as Error).message)) throw err;
      await page.waitForTimeout(100);
    }
  }
}

/** Whether two URLs name the same document (the fragment aside). */
function sameDocument(a: string, b: string): boolean {
  if (!URL.canParse(a) || !URL.canParse(b)) return false;
  const x = new URL(a);
  const y = new URL(b);
  x.hash = '';
  y.hash = '';
  return x.href === y.href;
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}
