import { specFor, type Trust } from './schema.js';
import type { SettingsView } from './view.js';

/**
 * Whether a project file may set `key` to `value` over what the hub uses
 * (ARCHITECTURE §5). Returns why not, or undefined when the line applies. `value` has
 * already passed the key's schema.
 */
export function projectRefusal(key: string, value: string, hub: SettingsView, userFile: string): string | undefined {
  const spec = specFor(key);
  if (!spec) return `${key} is not a Pincer setting; ignored (check the spelling)`;
  const hubRaw = hub.raw(key) ?? spec.default;
  // A hub value its schema refuses counts as the default, as it does for the hub itself.
  const parse = (v: string): unknown => {
    const r = spec.schema.safeParse(v);
    if (r.success) return r.data;
    const d = spec.schema.safeParse(spec.default);
    return d.success ? d.data : undefined;
  };
  return refusal(key, spec.trust, parse(value), parse(hubRaw), value, hubRaw, userFile);
}

function refusal(key: string, trust: Trust, mine: unknown, hubs: unknown, mineRaw: string, hubRaw: string, userFile: string): string | undefined {
  switch (trust.level) {
    case 'project':
      return undefined;
    case 'user':
      return `a project cannot set ${key}: ${trust.why}. Only your own settings file (${userFile}) or an environment variable can; ignored`;
    case 'lower':
      if (typeof mine === 'number' && typeof hubs === 'number' && mine <= hubs) return undefined;
      return `a project may only lower ${key}, and ${mineRaw} is above the ${hubRaw} this hub uses; ignored`;
    case 'toward':
      if (mine === trust.safe || mine === hubs) return undefined;
      return `a project may only set ${key} to ${trust.safe}, not ${mineRaw}; ignored`;
    case 'subset': {
      const hubItems = new Set(listItems(hubRaw));
      const extra = listItems(mineRaw).filter((i) => !hubItems.has(i));
      if (extra.length === 0) return undefined;
      return `a project may only keep some of this hub's ${key}, and ${extra.join(', ')} ${extra.length === 1 ? 'is' : 'are'} not among them; ignored`;
    }
  }
}

function listItems(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}
