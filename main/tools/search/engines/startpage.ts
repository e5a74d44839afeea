import type { Engine, EngineContext, EngineResponse, SearchResult } from '../engine-types.js';
import { EngineFailure } from '../engine-types.js';
import { absoluteHttp, checkHttp, dom, htmlText, type Dom } from '../blocking.js';
import { formBody, redirectTarget, unexpectedRedirect } from './common.js';

/*
 * Startpage, as SearXNG's startpage.py asks it: the search form carries an
 * `sc` token that Startpage checks; it comes from the home page's form
 * (form#search input[name=sc]) and is kept for an hour. The search is then a
 * POST of that form with the `preferences` cookie the form would have set.
 * Challenges are redirects to /sp/captcha. Results ride in the page's React
 * bootstrap call, `React.createElement(UIStartpage.AppSerpWeb, {...})`.
 */

const SC_TTL_MS = 3600_000;

function isCaptchaRedirect(res: EngineResponse): boolean {
  return redirectTarget(res)?.pathname.startsWith('/sp/captcha') ?? false;
}

async function scToken(ctx: EngineContext): Promise<string> {
  const cached = ctx.state.tokens.get('sc');
  if (cached && cached.expires > Date.now()) return cached.value;
  const home = await ctx.fetch({ url: `${ctx.base}/` });
  if (isCaptchaRedirect(home)) throw new EngineFailure('captcha', 'redirected the home page to its CAPTCHA (/sp/captcha)');
  checkHttp(home);
  const sc = dom(home.body).querySelector('form#search input[name="sc"]')?.getAttribute('value');
  if (!sc) throw new EngineFailure('unreadable', 'home page has no search form token (form#search input[name=sc])');
  ctx.state.tokens.set('sc', { value: sc, expires: Date.now() + SC_TTL_MS });
  return sc;
}

/** The cookie Startpage's own preferences page sets: key EEE value, joined by N1N. */
function preferences(): string {
  const prefs: [string, string][] = [
    ['date_time', 'world'],
    ['disable_family_filter', 'moderate'],
    ['disable_open_in_new_window', '0'],
    ['enable_post_method', '1'],
    ['enable_proxy_safety_suggest', '1'],
    ['enable_stay_control', '1'],
    ['instant_answers', '1'],
    ['lang_homepage', 's/device/en/'],
    ['num_of_results', '10'],
    ['suggestions', '1'],
    ['wt_unit', 'celsius'],
    ['language', 'english'],
    ['language_ui', 'english'],
  ];
  return prefs.map(([k, v]) => `${k}EEE${v}`).join('N1N');
}

const MARKER = 'React.createElement(UIStartpage.AppSerpWeb,';

interface StartpageItem {
  clickUrl?: string;
  title?: string;
  description?: string;
}
interface StartpagePayload {
  render?: { presenter?: { regions?: { mainline?: { display_type?: string; results?: StartpageItem[] }[] } } };
}

/** The object literal passed to the bootstrap call: balanced braces, skipping strings. */
function bootstrapObject(d: Dom): StartpagePayload | undefined {
  for (const script of d.querySelectorAll('script')) {
    const src = script.textContent ?? '';
    const at = src.indexOf(MARKER);
    if (at < 0) continue;
    const start = src.indexOf('{', at + MARKER.length);
    let depth = 0;
    let inString = false;
    for (let i = start; i >= 0 && i < src.length; i++) {
      const c = src[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        try {
          return JSON.parse(src.slice(start, i + 1)) as StartpagePayload;
        } catch {
          // Not JSON after all: the caller reads the rendered list instead.
          return undefined;
        }
      }
    }
  }
  return undefined;
}

/**
 * The same results as the server rendered them: div.result, each with its
 * title link (a.result-title > h2) and p.description. Ads sit in other
 * containers (div.a-bg-result …), so they are not taken.
 */
function renderedResults(d: Dom, base: string): SearchResult[] {
  const out: SearchResult[] = [];
  for (const item of d.querySelectorAll('div.result')) {
    const a = item.querySelector('a.result-title');
    const url = absoluteHttp(a?.getAttribute('href'), base);
    const title = htmlText((a?.querySelector('h2') ?? a)?.innerHTML);
    if (url && title) out.push({ title, url, snippet: htmlText(item.querySelector('p.description')?.innerHTML) });
  }
  return out;
}

export const startpage: Engine = {
  name: 'startpage',
  weight: 1.1,
  defaultBase: 'https://www.startpage.com',
  async request(ctx) {
    const sc = await scToken(ctx);
    ctx.state.cookies.set('preferences', preferences());
    return {
      url: `${ctx.base}/sp/search`,
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ctx.base, Referer: `${ctx.base}/` },
      body: formBody({ query: ctx.query, cat: 'web', t: 'device', sc, with_date: '', abd: '1', abe: '1', qsr: 'all', qadf: 'moderate', language: 'english', lui: 'english' }),
    };
  },
  parse(res, ctx) {
    if (isCaptchaRedirect(res)) {
      // A token Startpage no longer accepts also ends here: the next try (after the rest) fetches a new one.
      ctx.state.tokens.delete('sc');
      throw new EngineFailure('captcha', 'redirected to its CAPTCHA (/sp/captcha)');
    }
    checkHttp(res);
    if (res.status >= 300) unexpectedRedirect(res);
    const d = dom(res.body);
    const payload = bootstrapObject(d);
    if (!payload) {
      // The bootstrap data could not be read as JSON; the page's own rendering of the results still can.
      const rendered = renderedResults(d, ctx.base);
      if (rendered.length > 0) return rendered;
      // The token may have gone stale: the next search fetches a new one.
      ctx.state.tokens.delete('sc');
      throw new EngineFailure('unreadable', 'returned a page without its results data (UIStartpage.AppSerpWeb)');
    }
    const out: SearchResult[] = [];
    for (const region of payload.render?.presenter?.regions?.mainline ?? []) {
      if (region.display_type !== 'web-google') continue;
      for (const item of region.results ?? []) {
        const url = absoluteHttp(item.clickUrl, ctx.base);
        const title = htmlText(item.title);
        if (url && title) out.push({ title, url, snippet: htmlText(item.description) });
      }
    }
    return out;
  },
};
