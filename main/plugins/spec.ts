import { z } from 'zod';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { TOOL_NAME } from './command-tools.js';
import { FUNCTION_MARK } from './protocol.js';
import { MAX_DESCRIPTION_CHARS, MAX_SCHEMA_CHARS, schemaTooLarge } from './limits.js';

// What a module plugin may export (docs/PLUGINS.md), checked in the hub against the export's JSON
// as its thread sends it (functions marked with FUNCTION_MARK), one item at a time.

const fn = z.literal(FUNCTION_MARK, { error: 'must be a function' });
const objectSchema = z
  .looseObject({ type: z.literal('object', { error: 'must be a JSON Schema with type: "object"' }) })
  .refine((s) => !schemaTooLarge(s), { error: `is longer than ${MAX_SCHEMA_CHARS} characters as JSON; every client receives it in every tools/list` });
const description = z
  .string()
  .min(1, 'description tells the model when to use the tool')
  .max(MAX_DESCRIPTION_CHARS, `description is longer than ${MAX_DESCRIPTION_CHARS} characters; every client receives it in every tools/list (Claude Code shows the model only the first 2048). Shorten it.`);

export const ToolSpec = z.looseObject({
  name: z.string().regex(TOOL_NAME, 'name may use letters, digits, _, - and . only (at most 64 characters)'),
  title: z.string().max(200).optional(),
  description,
  inputSchema: objectSchema.default({ type: 'object', properties: {} }),
  outputSchema: objectSchema.optional(),
  annotations: z.looseObject({}).optional(),
  /** MCP's tool execution hints; `taskSupport` makes a call a task for clients of the tasks extension. */
  execution: z.looseObject({ taskSupport: z.enum(['forbidden', 'optional', 'required']).optional() }).optional(),
  /** With taskSupport: the call stays on its request (asking the client in round trips) until the handler calls ctx.startTask(). */
  deferTask: z.boolean().optional(),
  /** The seed's registerMCPTool flag: `false` keeps the tool out of every list and call. */
  enabled: z.boolean().optional(),
  handler: fn,
});
export const PromptSpec = z.looseObject({
  name: z.string().min(1).max(200),
  title: z.string().max(200).optional(),
  description: description.optional(),
  arguments: z.array(z.looseObject({ name: z.string().min(1), description: z.string().max(MAX_DESCRIPTION_CHARS).optional(), required: z.boolean().optional() })).optional(),
  get: fn,
  complete: fn.optional(),
});
export const ResourceSpec = z.looseObject({ uri: z.string().min(1), name: z.string().min(1), title: z.string().optional(), description: description.optional(), mimeType: z.string().optional(), read: fn });
export const TemplateSpec = z.looseObject({ uriTemplate: z.string().min(1), name: z.string().min(1), title: z.string().optional(), description: description.optional(), mimeType: z.string().optional(), read: fn, complete: fn.optional() });
export const PluginShape = z.looseObject({
  tools: z.array(z.unknown(), { error: 'tools must be a list' }).default([]),
  prompts: z.array(z.unknown(), { error: 'prompts must be a list' }).default([]),
  resources: z.array(z.unknown(), { error: 'resources must be a list' }).default([]),
  resourceTemplates: z.array(z.unknown(), { error: 'resourceTemplates must be a list' }).default([]),
});

/** The line of `file` an error points at (a syntax error's position, else the top frame in the file), else 1. */
export function lineOf(err: unknown, file: string): number {
  const text = err instanceof Error ? `${err.stack ?? ''}` : err && typeof err === 'object' && 'stack' in err ? String(err.stack) : '';
  const url = pathToFileURL(file).href;
  for (const candidate of [url, file]) {
    const at = text.indexOf(candidate);
    if (at < 0) continue;
    const m = /^(?:\?[^:]*)?:(\d+)/.exec(text.slice(at + candidate.length));
    if (m) return Number(m[1]);
  }
  return 1;
}

/** The first line of the plugin's source that holds `text` (a tool's name in quotes), else 1: where a problem with an exported item is. */
export function lineOfText(file: string, text: string | undefined): number {
  if (!text) return 1;
  try {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes(`'${text}'`) || l.includes(`"${text}"`) || l.includes(`\`${text}\``));
    return at < 0 ? 1 : at + 1;
  } catch {
    // The file went meanwhile: the problem is still named by its file.
    return 1;
  }
}
