import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import type { SettingsView } from '../../core/settings/view.js';
import { ignoreFailure, logger } from '../../core/log.js';
import { ACTIVITY_LIMITS, activityTracker, sameDocument, settle, snapshot, withTimeout } from './render-wait.js';

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
  /**
   * Called once the browser has the document (given it, or sent to load it): from then on it builds the page on its own,
   * and the caller may use its thread for other work (extraction) without holding the browser up.
   */
  onHandedOver?: () => void;
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
  /**
   * A ReadDocs call has begun and may need the browser: a renderer that is slow to start gets ready now (while the page
   * is fetched), if its own record says it is likely to be used.
   */
  prepare?(userAgent: string | undefined): void;
  close(): Promise<void>;
}

/**
 * What the renderers do with a subresource, by its type (Playwright's and Electron's names): a text extractor needs the
 * document and the scripts and data that build it, nothing that is only looked at or listened to. Stylesheets are answered
 * empty rather than refused, since some apps wait for a stylesheet's load event before they render.
 */
export function subresourcePolicy(type: string): 'load' | 'skip' | 'empty-stylesheet' {
  if (type === 'stylesheet') return 'empty-stylesheet';
  return SKIPPED.has(type) ? 'skip' : 'load';
}
// subFrame: an iframe's document (ads, embeds, comment widgets) is never part of the page's own DOM, which is what is read.
const SKIPPED = new Set(['image', 'imageset', 'media', 'font', 'texttrack', 'manifest', 'object', 'ping', 'cspReport', 'beacon', 'subFrame']);

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

/** One call's page: its own context, what it is routing, and the requests that may still build its text. */
interface Tab {
  context: BrowserContext;
  page: Page;
  inFlight: Set<unknown>;
  /** The call using the tab; none while it waits as the spare (its requests are refused then). */
  call?: { url: string; document?: RenderOptions['document']; given: boolean; onHandedOver?: () => void };
  failedNavigation?: string;
}

export interface PlaywrightRendererOptions {
  /** Hosts the page may reach; every other request is refused (the given document aside). For the benchmark, which allows none; unset, any http(s) host. */
  onlyHosts?: string[];
}

/** How long after a call needed the browser a new ReadDocs call keeps it open, or starts it ahead (while its page is fetched). */
const EXPECTED_WITHIN_MS = 15 * 60_000;
/** A browser without work is closed after this long (an idle Chromium with its spare page holds some 300 MB). */
const IDLE_CLOSE_MS = 60_000;

/**
 * A locally installed Chrome/Chromium/Edge driven by playwright-core. Launched when a call needs it, shared by calls,
 * closed after a minute without work. Once a call has needed it, ReadDocs calls (for a quarter of an hour) keep it open,
 * or start it ahead (`prepare`) so that launching overlaps fetching: a person who reads only complete articles never
 * pays for a browser, one who reads pages that scripts build waits for its launch once.
 */
export class PlaywrightRenderer implements PageRenderer {
  readonly name: string;
  private browser?: Promise<Browser>;
  private idle?: NodeJS.Timeout;
  /** When a call last had the browser render (Date.now()); undefined before the first. */
  private neededAt?: number;
  /** A page opened ahead for the next call (a new context costs a renderer process), for the user agent it was opened with. */
  private spare?: { userAgent: string | undefined; tab: Promise<Tab> };
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

  /**
   * A fresh context (no cookies or storage from another call) with its page, request routing and activity tracker set up.
   * Opening one costs a renderer process, so one is kept ready for the next call once a call is done.
   */
  private async openTab(browser: Browser, userAgent: string | undefined): Promise<Tab> {
    const context = await browser.newContext({ userAgent, acceptDownloads: false, serviceWorkers: 'block', javaScriptEnabled: true });
    try {
      await context.addInitScript(activityTracker, ACTIVITY_LIMITS);
      const page = await context.newPage();
      const tab: Tab = { context, page, inFlight: new Set() };
      await page.route('**/*', (route) => this.route(tab, route));
      page.on('request', (r) => void (BUILDS_TEXT.has(r.resourceType()) && tab.inFlight.add(r)));
      page.on('requestfinished', (r) => void tab.inFlight.delete(r));
      page.on('requestfailed', (r) => {
        tab.inFlight.delete(r);
        if (r.isNavigationRequest() && r.frame() === page.mainFrame()) tab.failedNavigation = `${r.url()} (${r.failure()?.errorText ?? 'failed'})`;
      });
      return tab;
    } catch (err) {
      void context.close().catch(ignoreFailure(log, 'closing the context of a page that failed to open'));
      throw err;
    }
  }

  private route(tab: Tab, route: Route): Promise<void> {
    const req = route.request();
    const call = tab.call;
    if (call?.document && !call.given && req.isNavigationRequest() && req.frame() === tab.page.mainFrame() && sameDocument(req.url(), call.url)) {
      call.given = true;
      call.onHandedOver?.();
      // UTF-8 and said so in the header, which outranks a <meta charset>: the browser decodes it as the fetch did.
      return route.fulfill({ status: 200, contentType: `${call.document.mediaType}; charset=utf-8`, body: call.document.html });
    }
    if (!call || !this.allowed(req.url())) return route.abort('blockedbyclient');
    // Playwright calls a frame's document 'document' whatever the frame: an iframe is known by its frame (see SKIPPED).
    if (req.isNavigationRequest() && req.frame() !== tab.page.mainFrame()) return route.abort('blockedbyclient');
    const policy = subresourcePolicy(req.resourceType());
    if (policy === 'skip') return route.abort('blockedbyclient');
    if (policy === 'empty-stylesheet') return route.fulfill({ status: 200, contentType: 'text/css', body: '' });
    return route.continue();
  }

  /** The tab kept ready if it was opened for this user agent, else a new one. */
  private takeTab(browser: Browser, userAgent: string | undefined): Promise<Tab> {
    const spare = this.spare;
    this.spare = undefined;
    if (spare && spare.userAgent === userAgent) return spare.tab.catch(() => this.openTab(browser, userAgent));
    if (spare) void spare.tab.then((t) => t.context.close()).catch(ignoreFailure(log, 'closing a spare page'));
    return this.openTab(browser, userAgent);
  }

  private keepSpare(userAgent: string | undefined): void {
    const browser = this.browser;
    if (this.spare || !browser) return;
    const tab = browser.then((b) => this.openTab(b, userAgent));
    // Not opened (the browser went away): the next call opens its own.
    tab.catch(() => {
      if (this.spare?.tab === tab) this.spare = undefined;
    });
    this.spare = { userAgent, tab };
  }

  prepare(userAgent: string | undefined): void {
    const expected = this.neededAt !== undefined && Date.now() - this.neededAt < EXPECTED_WITHIN_MS;
    if (!expected || this.active > 0) return;
    // A launch that fails here is tried again, and reported, by the call that needs the browser.
    if (!this.browser) this.launch().then(() => this.keepSpare(userAgent), ignoreFailure(log, 'starting the browser ahead'));
    // Running, it stays while calls keep coming: closed and launched again each minute, it would cost more than it idles.
    this.closeWhenIdle();
  }

  private closeWhenIdle(): void {
    clearTimeout(this.idle);
    if (this.active > 0) return;
    this.idle = setTimeout(() => void this.close(), IDLE_CLOSE_MS);
    this.idle.unref();
  }

  async render(url: string, opts: RenderOptions): Promise<RenderResult> {
    clearTimeout(this.idle);
    this.active++;
    this.neededAt = Date.now();
    const userAgent = opts.userAgent || undefined;
    try {
      const browser = await this.launch();
      // The budget starts once the browser is up: launching is paid once a minute at most, not by the page.
      const deadline = Date.now() + opts.timeoutMs;
      const tab = await this.takeTab(browser, userAgent);
      const { context, page } = tab;
      tab.call = { url, document: opts.document, given: false, onHandedOver: opts.onHandedOver };
      if (!opts.document) opts.onHandedOver?.();
      // Cancelled: closing the page's context ends its work; one already closed rejects, which changes nothing.
      const onAbort = () => void context.close().catch(ignoreFailure(log, "closing a cancelled page's context"));
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        // The document, not its subresources: past the deadline, whatever has been parsed is the answer.
        const loaded = await page
          .goto(url, { waitUntil: 'domcontentloaded', timeout: Math.max(1, deadline - Date.now()) })
          .then(() => true)
          .catch((err: Error) => {
            if (opts.signal?.aborted) throw err;
            return false;
          });
        if (loaded) await settle(page, tab.inFlight, deadline);
        if (opts.waitMs > 0) await page.waitForTimeout(opts.waitMs);
        // The page's own scripts may keep its main thread busy: the snapshot gets a bounded grace after the deadline.
        const grace = Math.max(1000, deadline - Date.now());
        const html = await withTimeout(snapshot(page), grace, 'the page could not be read in time');
        // A page that failed to load, or whose script navigated somewhere unreachable, leaves the browser's own error page.
        if (page.url().startsWith('chrome-error:')) throw new Error(`the browser could not load ${tab.failedNavigation ?? 'the page'}`);
        if (!loaded && !/<body[\s>][\s\S]*\S[\s\S]*<\/body>/i.test(html)) throw new Error(`the page did not load within ${opts.timeoutMs} ms`);
        return { html, finalUrl: page.url(), title: await withTimeout(page.title(), 1000, 'no title').catch(() => '') };
      } finally {
        opts.signal?.removeEventListener('abort', onAbort);
        tab.call = undefined;
        // Each call gets its own context (no cookies or storage carried over); closing it need not delay the answer.
        void context.close().catch(ignoreFailure(log, 'closing a page context'));
      }
    } finally {
      this.active--;
      if (!opts.signal?.aborted) this.keepSpare(userAgent);
      this.closeWhenIdle();
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    const b = this.browser;
    this.browser = undefined;
    // The spare page goes with its browser.
    this.spare = undefined;
    // A browser that failed to launch was reported to the call that launched it; one that did is closed.
    if (b) await (await b.catch(() => /* failed to launch: nothing to close */ undefined))?.close().catch(ignoreFailure(log, 'closing the browser'));
  }
}
