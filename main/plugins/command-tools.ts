import { z } from 'zod';
import path from 'node:path';
import type { AnyTool } from '../tools/types.js';
import { runBash } from '../tools/shell/bash.js';
import { pluginTool, type ObjectSchema } from './tool.js';
import type { PluginProblem } from './problems.js';
import { errorMessage } from '../core/errors.js';
import { readYaml, type YamlRead } from '../core/yaml-data.js';
import { MAX_DESCRIPTION_CHARS, MAX_SCHEMA_CHARS, schemaTooLarge } from './limits.js';

/** What may name a tool: letters, digits, `_`, `-`, `.` (MCP's tool-name characters), up to 64. */
export const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

const CommandToolFile = z.strictObject({
  name: z.string().regex(TOOL_NAME, 'name may use letters, digits, _, - and . only (at most 64 characters)'),
  title: z.string().max(200).optional(),
  description: z
    .string()
    .trim()
    .min(1, 'description tells the model when to use the tool; it must not be empty')
    .max(MAX_DESCRIPTION_CHARS, `description is longer than ${MAX_DESCRIPTION_CHARS} characters; every client receives it in every tools/list (Claude Code shows the model only the first 2048). Shorten it.`),
  params: z
    .looseObject({ type: z.literal('object', { error: 'params is a JSON Schema of the arguments: give it type: object and properties' }) })
    .refine((s) => !schemaTooLarge(s), { error: `params is longer than ${MAX_SCHEMA_CHARS} characters as JSON; every client receives it in every tools/list` })
    .default({ type: 'object', properties: {} }),
  run: z.string().trim().min(1, 'run is the command to execute; it must not be empty'),
  timeout_ms: z.number().int().min(1).max(600_000).optional(),
  /** The seed's registerMCPTool flag: `false` keeps the tool out of every list and call. */
  enabled: z.boolean().optional(),
});

/** `ARG_<NAME>`: the argument's name upper-cased, anything but letters and digits as `_`. */
export function argVariable(name: string): string {
  return `ARG_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** An argument's value as its variable carries it: strings as they are, anything else as JSON. */
function argValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

type YamlDoc = Extract<YamlRead, { ok: true }>['doc'];
type LineCounter = Extract<YamlRead, { ok: true }>['lines'];

/** The line of the value at `keyPath` in the document, else of its nearest parent that exists. */
function lineAt(doc: YamlDoc, lines: LineCounter, keyPath: (string | number)[]): number {
  for (let n = keyPath.length; n >= 0; n--) {
    const node = doc.getIn(keyPath.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return lines.linePos(node.range[0]).line;
  }
  return 1;
}

/** Two arguments whose names reach the command as the same `ARG_` variable (`a-b` and `a_b`): one would hide the other. */
function clashingArgs(params: Record<string, unknown>): { first: string; second: string; variable: string } | undefined {
  const props = params.properties;
  if (!props || typeof props !== 'object') return undefined;
  const seen = new Map<string, string>();
  for (const name of Object.keys(props)) {
    const variable = argVariable(name);
    const first = seen.get(variable);
    if (first !== undefined) return { first, second: name, variable };
    seen.set(variable, name);
  }
  return undefined;
}

/**
 * One command tool from its file (`<PINCER_HOME>/tools/*.yaml|yml|json`), or the
 * problem with it, by line; `off` names a tool its file turns off (`enabled: false`).
 * The arguments reach the command only as environment variables: the command text is
 * the user's own file, never spliced with input. Nothing in the text can make this throw.
 */
export function parseCommandTool(text: string, file: string, onFailure: (message: string) => void): { tool?: AnyTool; problem?: PluginProblem; off?: string } {
  const read = readYaml(text.replace(/^\uFEFF/, ''));
  if (!read.ok) return { problem: { file, line: read.line, message: read.message } };
  const { doc, lines } = read;
  const parsed = CommandToolFile.safeParse(read.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keyPath = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const where = keyPath.length ? `${keyPath.join('.')}: ` : '';
    return { problem: { file, line: lineAt(doc, lines, keyPath), message: `${where}${issue.message}` } };
  }
  const def = parsed.data;
  const clash = clashingArgs(def.params);
  if (clash) {
    return { problem: { file, line: lineAt(doc, lines, ['params', 'properties', clash.second]), message: `params.properties: "${clash.first}" and "${clash.second}" both reach the command as ${clash.variable}, so one would hide the other; rename one` } };
  }
  if (def.enabled === false) return { off: def.name };
  const schema: ObjectSchema = { ...def.params, type: 'object' };
  let tool: AnyTool;
  try {
    tool = pluginTool({
    name: def.name,
    ...(def.title ? { title: def.title } : {}),
    description: def.description,
    inputSchema: schema,
    annotations: { title: def.title ?? def.name, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    origin: path.basename(file),
    onFailure,
    run: (args, ctx) => {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) env[argVariable(k)] = argValue(v);
      return runBash(def.run, def.timeout_ms, ctx, env);
    },
  });
  } catch (err) {
    // The JSON Schema validator compiles params now and refuses one it cannot use.
    return { problem: { file, line: lineAt(doc, lines, ['params']), message: `params is not a JSON Schema Pincer can check arguments with: ${errorMessage(err)}` } };
  }
  // A command runs in the client's folder: on 2026-07-28 its roots are asked for first (mcp/client-roots.ts).
  return { tool: { ...tool, usesFolder: true } };
}
