import type { CompleteRequestParams, CompleteResult } from '@modelcontextprotocol/server';
import type { Services } from '../tools/types.js';
import type { Contributions } from './contributions.js';
import { errorMessage } from '../core/errors.js';
import { logger } from '../core/log.js';

const log = logger('completion');

/** MCP caps one answer at 100 values; `total` and `hasMore` tell the client there were more. */
const MAX_VALUES = 100;

export type Completion = CompleteResult['completion'];

/** Why a completion request names nothing Pincer serves (the adapter answers -32602). */
export type CompletionOutcome = { completion: Completion } | { unknown: string };

/**
 * `completion/complete` for every prompt and resource template Pincer serves:
 * a skill completes its `arguments` from the values its front matter lists,
 * a plugin's prompt or template asks the plugin. A skill's values start with
 * what is typed (case-insensitively), in the order declared.
 */
export async function complete(services: Services, contributions: Contributions, params: CompleteRequestParams): Promise<CompletionOutcome> {
  const { ref, argument } = params;
  const context = params.context?.arguments ?? {};
  if (ref.type === 'ref/prompt') {
    const plugin = contributions.prompt(ref.name);
    if (plugin) {
      if (!plugin.prompt.arguments?.some((a) => a.name === argument.name)) return { unknown: `Prompt ${ref.name} has no argument ${argument.name}.` };
      return { completion: cap(await ask(`prompt ${ref.name}`, () => plugin.complete?.(argument.name, argument.value, context))) };
    }
    const skill = services.skills.get(ref.name);
    if (!skill || !services.skills.isEnabled(skill.name)) return { unknown: `Prompt not found: ${ref.name}. prompts/list shows the available prompts.` };
    if (argument.name !== 'arguments') return { unknown: `Prompt ${ref.name} has one argument, "arguments"; it has no argument ${argument.name}.` };
    return { completion: rank(skill.completions ?? [], argument.value) };
  }
  const template = contributions.templates().find((t) => t.template.uriTemplate === ref.uri);
  if (!template) return { unknown: `Resource template not found: ${ref.uri}. resources/templates/list shows the available templates.` };
  return { completion: cap(await ask(`template ${ref.uri}`, () => template.complete?.(argument.name, argument.value, context))) };
}

/** A plugin's values; one that throws offers none (and says why in the log) rather than failing the client's typing. */
async function ask(what: string, fn: () => Promise<string[]> | undefined): Promise<string[]> {
  try {
    const values = await fn();
    return Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
  } catch (err) {
    log.warn(`completion of ${what} failed: ${errorMessage(err)}`, { err });
    return [];
  }
}

/** A skill's declared values that start with what is typed. */
function rank(values: readonly string[], typed: string): Completion {
  const t = typed.toLowerCase();
  return cap(values.filter((v) => v.toLowerCase().startsWith(t)));
}

/** A plugin matches its own way (fuzzy, by prefix, from a service): its values are kept in its order. */
function cap(values: readonly string[]): Completion {
  const unique = [...new Set(values)];
  return { values: unique.slice(0, MAX_VALUES), total: unique.length, hasMore: unique.length > MAX_VALUES };
}
