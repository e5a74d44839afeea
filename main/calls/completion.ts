import { z } from 'zod';
import type { CompleteResult } from '@modelcontextprotocol/server';
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

const REF_TYPES = 'ref/prompt (with the prompt\'s name) or ref/resource (with a resource template\'s uri)';

/**
 * `completion/complete`'s params, checked here rather than by the SDK, whose failure for a spec
 * method is an internal error carrying the validator's dump: each mistake is one sentence (-32602).
 */
export const CompleteParams = z.looseObject({
  ref: z.discriminatedUnion(
    'type',
    [
      z.looseObject({ type: z.literal('ref/prompt'), name: z.string({ error: 'ref.name must be the prompt\'s name (a string)' }) }),
      z.looseObject({ type: z.literal('ref/resource'), uri: z.string({ error: 'ref.uri must be the resource template\'s URI template (a string)' }) }),
    ],
    { error: (issue) => (issue.input === undefined ? `ref is missing: give ${REF_TYPES}` : `ref.type must be ${REF_TYPES}`) },
  ),
  argument: z.looseObject(
    { name: z.string({ error: 'argument.name must be the argument\'s name (a string)' }), value: z.string({ error: 'argument.value must be what is typed so far (a string, "" for nothing)' }) },
    { error: 'argument is missing: give { "name": …, "value": … }' },
  ),
  context: z.looseObject({ arguments: z.record(z.string(), z.string(), { error: 'context.arguments must map argument names to strings' }).optional() }, { error: 'context must be an object' }).optional(),
});
export type CompleteParams = z.infer<typeof CompleteParams>;

/** The params as `complete` takes them, or the one sentence saying what is wrong with them. */
export function completeParams(raw: unknown): { params: CompleteParams } | { invalid: string } {
  const r = CompleteParams.safeParse(raw);
  if (r.success) return { params: r.data };
  const issue = r.error.issues[0]!;
  // A discriminated union reports a wrong `type` at `ref`; a nested field's own message names its path.
  return { invalid: `Invalid params for completion/complete: ${issue.message}.` };
}

/**
 * `completion/complete` for every prompt and resource template Pincer serves:
 * a skill completes its `arguments` from the values its front matter lists,
 * a plugin's prompt or template asks the plugin. A skill's values start with
 * what is typed (case-insensitively), in the order declared.
 */
export async function complete(services: Services, contributions: Contributions, params: CompleteParams): Promise<CompletionOutcome> {
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
