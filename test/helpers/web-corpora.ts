import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT } from './env.js';
import { optional, skipUnless } from './prerequisites.js';

/*
 * Real web material for WebSearch and ReadDocs tests and the ReadDocs quality benchmark: files
 * other public repositories publish, kept outside Pincer's tree (test/fixtures/web/README.md
 * lists them with their licences). The folder holds one `<owner>+<name>/files/` per repository
 * with the files under the repository's own paths, as they stood at the commit that
 * test/fixtures/web/corpora.json names (with each file's SHA-256).
 *
 * Where: PINCER_WEB_CORPORA, else `../shared/web-corpora` beside the repository (CI puts a copy of
 * shared/ there), else beside the main checkout of a git worktree. `npm run corpora` fetches it.
 */

const WORKTREE_MAIN = (() => {
  // A git worktree's .git is a file; its common dir is the main checkout's .git.
  try {
    const common = execFileSync('git', ['-C', ROOT, 'rev-parse', '--path-format=absolute', '--git-common-dir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return path.dirname(common);
  } catch {
    return undefined; // not a git checkout (an unpacked source archive): only ROOT counts
  }
})();

/** The folders looked in, in order; the first that exists is used. */
export const CORPORA_CANDIDATES: string[] = process.env.PINCER_WEB_CORPORA
  ? [path.resolve(process.env.PINCER_WEB_CORPORA)]
  : [...new Set([ROOT, WORKTREE_MAIN].filter((d): d is string => Boolean(d)).map((d) => path.resolve(d, '..', 'shared', 'web-corpora')))];

export const CORPORA_ROOT = CORPORA_CANDIDATES.find((d) => fs.existsSync(d)) ?? CORPORA_CANDIDATES[0]!;

export const SOURCES = {
  readability: 'mozilla/readability',
  articleBenchmark: 'scrapinghub/article-extraction-benchmark',
  einoExt: 'cloudwego/eino-ext',
  webSearchMcp: 'sanguinary-bus/web-search-mcp',
  celina: 'desimoose/celina',
  shortlist: 'stevezau/shortlist',
  unlimProxy: 'Mishmix/unlim-proxy-engine',
} as const;

export function corpusDir(repo: string, root = CORPORA_ROOT): string {
  return path.join(root, repo.replace('/', '+'), 'files');
}

/** Why a corpus cannot be read here, or undefined when it can. */
export function missing(repo: string): string | undefined {
  if (fs.existsSync(corpusDir(repo))) return undefined;
  const looked = CORPORA_CANDIDATES.map((d) => corpusDir(repo, d)).join(' or ');
  return `real-web corpus ${repo} not found at ${looked}: run "npm run corpora" (or set PINCER_WEB_CORPORA to the folder holding <owner>+<name>/files/)`;
}

/** The `skip` option of a test that reads these corpora (see prerequisites.ts: under CI their absence fails). */
export function needsCorpora(...repos: string[]): string | false {
  return skipUnless(...repos.map(missing));
}

/** True when the corpus is here; a test that falls back to made-up pages without it (under CI its absence fails). */
export function hasCorpus(repo: string): boolean {
  return optional(missing(repo));
}

function show(repo: string, file: string): Buffer {
  return fs.readFileSync(path.join(corpusDir(repo), file));
}

function list(repo: string, dir: string): string[] {
  return fs.readdirSync(path.join(corpusDir(repo), dir)).sort();
}

export interface ArticlePage {
  corpus: string;
  id: string;
  /** The page's bytes as the corpus keeps them. */
  html: Buffer;
  /** The Content-Type the bytes are to be read with: Readability's test pages are stored as UTF-8 whatever their <meta> says. */
  contentType: string;
  /** The article's main text, as the corpus's authors established it. */
  truth: string;
  url: string;
}

/**
 * Mozilla Readability's test pages: real pages saved from the web, each
 * with the article Readability's authors expect (expected.html), whose text
 * is the ground truth here.
 */
export function readabilityPages(): ArticlePage[] {
  const repo = SOURCES.readability;
  return list(repo, 'test/test-pages').map((id) => {
    const expected = show(repo, `test/test-pages/${id}/expected.html`).toString('utf8');
    return { corpus: 'readability-test-pages', id, html: show(repo, `test/test-pages/${id}/source.html`), contentType: 'text/html; charset=utf-8', truth: expected, url: `http://fakehost/test/${id}.html` };
  });
}

/**
 * Zyte's article-extraction benchmark: 181 real article pages (gzip, bytes
 * as served) with a hand-made ground truth of each article body.
 */
export function articleBenchmarkPages(): ArticlePage[] {
  const repo = SOURCES.articleBenchmark;
  const truth = JSON.parse(show(repo, 'ground-truth.json').toString('utf8')) as Record<string, { articleBody?: string; url?: string }>;
  return Object.entries(truth).map(([id, t]) => ({
    corpus: 'article-extraction-benchmark',
    id,
    html: zlib.gunzipSync(show(repo, `html/${id}.html.gz`)),
    // Saved without the HTTP headers: the page's own <meta>, or sniffing, decides.
    contentType: 'text/html',
    truth: t.articleBody ?? '',
    url: t.url ?? `https://example.invalid/${id}`,
  }));
}

/**
 * Real DuckDuckGo HTML result pages (html.duckduckgo.com/html/, 2025) that
 * cloudwego/eino-ext keeps in its tests: a page of results for "eino" and
 * two "no results" pages.
 */
export function duckDuckGoPages(): { results: string; noResults: string[] } {
  const src = show(SOURCES.einoExt, 'components/tool/duckduckgo/v2/text_search_test.go').toString('utf8');
  const pages = [...src.matchAll(/:= `(<!DOCTYPE html[\s\S]*?)`/g)].map((m) => m[1]!);
  const results = pages.find((p) => p.includes('result__a'));
  if (!results) throw new Error('the DuckDuckGo corpus has no result page');
  return { results, noResults: pages.filter((p) => p !== results && p.includes('no-results')) };
}

/** What a saved engine answer is: a page of results, or the engine's refusal of the request. */
export type SerpKind = 'results' | 'challenge' | 'refusal' | 'javascript-only';

export interface SerpPageSource {
  /** The Pincer engine that asks for this page. */
  engine: string;
  repo: string;
  file: string;
  kind: SerpKind;
  /** The query the page answers (what it echoes), when it is a result page. */
  query?: string;
  what: string;
}

/**
 * Real answers of search engines, saved by other projects for their own
 * tests (2026): result pages, and the engines' challenge and refusal pages.
 * Some were saved through a browser, and sanguinary-bus/web-search-mcp's are
 * reformatted by Prettier (same elements and attributes, other whitespace).
 */
export const SERP_PAGES: SerpPageSource[] = [
  { engine: 'bing', repo: SOURCES.webSearchMcp, file: 'tests/fixtures/http-bing.html', kind: 'results', query: 'javascript tutorial', what: 'Bing results for "javascript tutorial" fetched over HTTP (2026-04)' },
  { engine: 'bing', repo: SOURCES.celina, file: 'tests/fixtures/bing.html', kind: 'results', query: 'does caffeine affect sleep', what: 'Bing results for "does caffeine affect sleep" (2026-07)' },
  { engine: 'bing', repo: SOURCES.webSearchMcp, file: 'tests/fixtures/bing.html', kind: 'challenge', what: "Bing's Cloudflare Turnstile challenge in place of results (2026-04)" },
  { engine: 'brave', repo: SOURCES.webSearchMcp, file: 'tests/fixtures/brave.html', kind: 'results', query: 'javascript tutorial', what: 'Brave Search results (2026-04)' },
  { engine: 'mojeek', repo: SOURCES.webSearchMcp, file: 'tests/fixtures/mojeek.html', kind: 'results', query: 'javascript tutorial', what: 'Mojeek results (2026-04)' },
  { engine: 'yahoo', repo: SOURCES.webSearchMcp, file: 'tests/fixtures/yahoo.html', kind: 'results', query: 'javascript tutorial', what: 'Yahoo results (2026-04)' },
  { engine: 'startpage', repo: SOURCES.webSearchMcp, file: 'tests/fixtures/http-startpage.html', kind: 'results', query: 'javascript tutorial', what: 'Startpage results fetched over HTTP, with a shopping ad (2026-04)' },
  { engine: 'startpage', repo: SOURCES.webSearchMcp, file: 'tests/fixtures/startpage.html', kind: 'results', query: 'javascript tutorial', what: 'Startpage results through a browser, with a banner ad (2026-04)' },
  { engine: 'duckduckgo', repo: SOURCES.celina, file: 'tests/fixtures/ddg_html.html', kind: 'results', query: 'does caffeine affect sleep', what: 'DuckDuckGo HTML results (2026-07)' },
  { engine: 'duckduckgo_lite', repo: SOURCES.celina, file: 'tests/fixtures/ddg_lite.html', kind: 'challenge', what: "DuckDuckGo Lite's \"select all squares containing a duck\" challenge (2026-07)" },
  { engine: 'wikipedia', repo: SOURCES.celina, file: 'tests/fixtures/wiki_search.json', kind: 'results', query: 'caffeine sleep', what: 'Wikipedia search API answer (list=search, 2026-07)' },
  { engine: 'searxng', repo: SOURCES.shortlist, file: 'tests/fixtures/searxng_search.json', kind: 'results', query: 'what to watch next if you liked Severance — similar recent, well-reviewed movies and TV shows', what: 'a SearXNG instance answering format=json (2026-08)' },
  { engine: 'google', repo: SOURCES.unlimProxy, file: 'tests/fixtures/google_captcha.html', kind: 'challenge', what: 'Google\'s "sorry" reCAPTCHA page (form#captcha-form, 2026-08)' },
  { engine: 'google', repo: SOURCES.unlimProxy, file: 'tests/fixtures/google_search_ok.html', kind: 'javascript-only', what: 'Google\'s JavaScript-only result page (noscript refresh to /httpservice/retry/enablejs; first 30 000 bytes, 2026-08)' },
  { engine: 'qwant', repo: SOURCES.webSearchMcp, file: 'tests/fixtures/http-qwant.html', kind: 'refusal', what: 'Qwant\'s "Service unavailable" page behind DataDome, in place of results (2026-04)' },
  { engine: 'searxng', repo: SOURCES.webSearchMcp, file: 'tests/fixtures/searx.html', kind: 'refusal', what: 'a public SearXNG instance (searx.be) checking the browser before it answers (2026-04)' },
];

export function serpPage(src: SerpPageSource): string {
  return show(src.repo, src.file).toString('utf8');
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * The page as the engine would have served it for another query, as far as
 * its query echo goes: the <title> and the search box (value="…"). The
 * results stay those of the saved query.
 */
export function withQueryEcho(page: string, saved: string, asked: string): string {
  const esc = escapeAttr(asked);
  return page
    .replace(/<title>([^<]*)<\/title>/i, (_m, t: string) => `<title>${t.split(saved).join(esc)}</title>`)
    .split(`value="${saved}"`)
    .join(`value="${esc}"`);
}
