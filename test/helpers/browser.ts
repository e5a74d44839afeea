import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { ROOT } from './env.js';
import { onPath } from './prerequisites.js';
import { browserCandidates } from '../../main/tools/web/browser.js';

export const ARTIFACTS = path.join(ROOT, 'test-artifacts');

/**
 * The installed Chromium (or Chrome, Edge) the browser tests drive — never a downloaded one:
 * CHROMIUM_PATH, else the first on PATH, else where ReadDocs itself looks on this OS.
 */
export function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return fs.existsSync(configured) ? configured : undefined;
  return onPath(['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome', 'chrome', 'msedge']) ?? browserCandidates().find((c) => fs.existsSync(c));
}

/** Why no browser test can run here, or undefined when one can. */
export function chromiumProblem(): string | undefined {
  if (findChromium()) return undefined;
  const where = process.env.CHROMIUM_PATH ? `CHROMIUM_PATH (${process.env.CHROMIUM_PATH}) does not exist` : 'none on PATH or in the usual places';
  return `Chromium is needed for the browser tests: ${where}. Install it (Debian: apt-get install chromium) or set CHROMIUM_PATH.`;
}

/**
 * The dashboard's browser tests need Chromium wherever they run: without it they fail, saying
 * how to install it (`.ci/run` installs Debian's package and fails when it cannot).
 */
export function requireChromium(): string {
  const found = findChromium();
  if (!found) throw new Error(chromiumProblem());
  return found;
}

/** Installed Chromium, headless. playwright-core gives it a fresh temporary profile. */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: requireChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { browser, close: () => browser.close() };
}

/** Console errors and CSP violations a page reports, collected for the test to assert on. */
export function watchProblems(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  void page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return { problems };
}

/**
 * A one-time sign-in link of the hub at `url` (what `pincer dashboard` opens), asked for with the
 * token: `<the dashboard's origin>/#signin=<code>`.
 */
export async function signInLink(url: string, token: string, kind: 'browser' | 'desktop' = 'browser'): Promise<string> {
  const res = await fetch(`${url}/api/dashboard/link`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ kind }) });
  if (!res.ok) throw new Error(`the hub at ${url} gave no sign-in link: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { url: string }).url;
}

/** Signs a tab in the way the dashboard asks a person to: it opens a sign-in link of the hub. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(await signInLink(url, token));
  await page.locator('main h1', { hasText: 'Overview' }).waitFor();
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page (or one frame of it, a chat view) as it is now (WCAG 2 A/AA rules). */
export async function axeViolations(page: Page | Frame): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/**
 * Until the page has laid out what it rendered: its fonts loaded, the effects of its last render run (Preact
 * runs them in a timer queued from the next animation frame, so a frame then a timer comes after them) and
 * one more frame painted. What a layout check measures then is what the person sees, however slow the machine.
 */
export async function laidOut(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await document.fonts.ready;
    await new Promise<void>((r) => requestAnimationFrame(() => r()));
    await new Promise<void>((r) => setTimeout(r, 0));
    await new Promise<void>((r) => requestAnimationFrame(() => r()));
  });
}

/** How far the page scrolls sideways (0 when it fits the viewport). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
