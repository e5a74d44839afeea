import type { Engine, EngineResponse, SearchResult } from '../engine-types.js';
import { EngineFailure } from '../engine-types.js';
import { absoluteHttp, checkHttp, dom, hasCaptchaScript, htmlText, param } from '../blocking.js';
import { query, redirectTarget } from './common.js';

/*
 * Google's web page needs JavaScript since 2025; SearXNG (google.py, 2026-08)
 * asks its no-JS "WML" endpoint, /wml/search, with an old Nokia user agent,
 * `Accept: *\/*` and the CONSENT cookie. Challenges are redirects to
 * /sorry/… or sorry.google.com; a page that only says "enable JavaScript"
 * means this way in is closed and the engine needs a browser.
 */

const NOKIA_UA = 'Nokia7610/2.0 (5.0509.0) SymbianOS/7.0s Series60/2.1 Profile/MIDP-2.0 Configuration/CLDC-1.0';

function sorry(res: EngineResponse): boolean {
  const to = redirectTarget(res);
  if (to && (to.hostname === 'sorry.google.com' || to.pathname.startsWith('/sorry'))) return true;
  try {
    const u = new URL(res.url);
    return u.hostname === 'sorry.google.com' || u.pathname.startsWith('/sorry');
  } catch {
    // No parsable final URL: not the sorry page.
    return false;
  }
}

export const google: Engine = {
  name: 'google',
  weight: 1.2,
  defaultBase: 'https://www.google.com',
  request(ctx) {
    ctx.state.cookies.set('CONSENT', 'YES+');
    return { url: `${ctx.base}/wml/search?${query({ q: ctx.query, sca_esv: '1', hl: 'en', lr: '', ie: 'utf8', oe: 'utf8' })}`, headers: { Accept: '*/*' }, userAgent: NOKIA_UA };
  },
  parse(res) {
    if (sorry(res)) throw new EngineFailure('captcha', 'redirected to its "sorry" CAPTCHA page');
    // Any other redirect from the search endpoint is Google's consent or bot wall.
    if (res.status >= 300 && res.status < 400) throw new EngineFailure('captcha', `redirected to ${res.headers.location ?? 'nowhere'} instead of answering`);
    checkHttp(res);
    const d = dom(res.body.replace(/^\s*<\?xml[^>]*\?>/, ''));
    const refresh = d.querySelector('meta[http-equiv="refresh" i]')?.getAttribute('content') ?? '';
    // The "sorry" page posts form#captcha-form to a relative "index" and loads reCAPTCHA; it also has a hidden input named q.
    if (/\/sorry\//.test(refresh) || d.querySelector('a[href*="/sorry/index"], form[action*="/sorry/"], form#captcha-form') || hasCaptchaScript(d)) throw new EngineFailure('captcha', 'answered with its "sorry" CAPTCHA page');
    if (/enablejs/.test(refresh) || d.querySelector('noscript meta[content*="enablejs"], a[href*="/httpservice/retry/enablejs"]')) {
      throw new EngineFailure('needs-browser', 'served its JavaScript-only page; Google cannot be read without a browser from this network');
    }
    const out: SearchResult[] = [];
    for (const item of d.querySelectorAll('div.zMzFAb')) {
      const a = item.querySelector('a.fuLhoc');
      const href = a?.getAttribute('href') ?? '';
      const url = absoluteHttp(href.startsWith('/url?') ? param('q', href) : href, 'https://www.google.com/');
      const title = htmlText(a?.querySelector('span.CVA68e')?.innerHTML);
      if (!url || !title) continue;
      out.push({ title, url, snippet: htmlText(item.querySelector('div.taTFJ span.FrIlee')?.innerHTML) });
    }
    // The WML page always has its search form; without it, this is not a result page.
    if (out.length === 0 && !d.querySelector('form input[name="q"]')) throw new EngineFailure('unreadable', 'returned a page without results or search form; its markup may have changed');
    return out;
  },
};
