import { parseHTML } from 'linkedom';
import type { Engine, EngineRequest, SearchResult } from '../types.js';
import { assertNotBlocked, clean, EngineUnreadable } from '../types.js';
import type { SettingsView } from '../../../core/settings/view.js';

export interface HtmlEngineSpec {
  name: string;
  weight: number;
  defaultBase: string;
  request(query: string, base: string, settings: SettingsView): EngineRequest;
  /** A result block, and within it the link, the title and the snippet. */
  item: string;
  link: string;
  title?: string;
  snippet: string;
  /** Unwraps the engine's click-tracking redirect to the real URL. */
  unwrap?(href: string): string;
  /** Text that means "no results" (as opposed to a page we cannot read). */
  noResults?: RegExp;
}

export function htmlEngine(spec: HtmlEngineSpec): Engine {
  return {
    name: spec.name,
    weight: spec.weight,
    defaultBase: spec.defaultBase,
    request: spec.request,
    parse(body: string, status: number): SearchResult[] {
      assertNotBlocked(body, status);
      const { document } = parseHTML(body);
      const out: SearchResult[] = [];
      for (const item of document.querySelectorAll(spec.item)) {
        const a = item.querySelector(spec.link);
        const href = a?.getAttribute('href');
        if (!a || !href) continue;
        let url = spec.unwrap ? spec.unwrap(href) : href;
        if (url.startsWith('//')) url = `https:${url}`;
        if (!/^https?:\/\//i.test(url)) continue;
        const title = clean((spec.title ? item.querySelector(spec.title) : a)?.textContent);
        if (!title) continue;
        out.push({ title, url, snippet: clean(item.querySelector(spec.snippet)?.textContent) });
      }
      if (out.length === 0 && !(spec.noResults?.test(body))) throw new EngineUnreadable('returned a page without recognisable results');
      return out;
    },
  };
}

export function param(name: string, href: string): string | undefined {
  try {
    return new URL(href, 'https://x.invalid').searchParams.get(name) ?? undefined;
  } catch {
    return undefined;
  }
}
