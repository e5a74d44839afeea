import { z } from 'zod';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { AnyTool } from '../tools/types.js';
import { runBash } from '../tools/shell/bash.js';
import { pluginTool, type ObjectSchema } from './tool.js';
import type { PluginProblem } from './problems.js';

/** What may name a tool: letters, digits, `_`, `-`, `.` (MCP's tool-name characters), up to 64. */
export const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

const CommandToolFile = z.strictObject({
  name: z.string().regex(TOOL_NAME, 'name may use letters, digits, _, - and . only (at most 64 characters)'),
  title: z.string().optional(),
  description: z.string().trim().min(1, 'description tells the model when to use the tool; it must not be empty'),
  params: z
    .looseObject({ type: z.literal('object', { error: 'params is a JSON Schema of the arguments: give it type: object and properties' }) })
    .default({ type: 'object', properties: {} }),
  run: z.string().trim().min(1, 'run is the command to execute; it must not be empty'),
  timeout_ms: z.number().int().min(1).max(600_000).optional(),
});

/** `ARG_<NAME>`: the argument's name upper-cased, anything but letters and digits as `_`. */
export function argVariable(name: string): string {
  return `ARG_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** An argument's value as its variable carries it: strings as they are, anything else as JSON. */
function argValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * One command tool from its file (`<PINCER_HOME>/tools/*.yaml|yml|json`), or the
 * problem with it, by line. The arguments reach the command only as environment
 * variables: the command text is the user's own file, never spliced with input.
 */
export function parseCommandTool(text: string, file: string, onFailure: (message: string) => void): { tool?: AnyTool; problem?: PluginProblem } {
  const { parseDocument, LineCounter } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const lines = new LineCounter();
  const doc = parseDocument(text.replace(/^\uFEFF/, ''), { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    return { problem: { file, line: lines.linePos(e.pos[0]).line, message: e.message.split('\n')[0]! } };
  }
  const parsed = CommandToolFile.safeParse(doc.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keyPath = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    // The line of the value at fault, else of its nearest parent that exists.
    let line = 1;
    for (let n = keyPath.length; n >= 0; n--) {
      const node = doc.getIn(keyPath.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node?.range) {
        line = lines.linePos(node.range[0]).line;
        break;
      }
    }
    const where = keyPath.length ? `${keyPath.join('.')}: ` : '';
    return { problem: { file, line, message: `${where}${issue.message}` } };
  }
  const def = parsed.data;
  const schema: ObjectSchema = { ...def.params, type: 'object' };
  const tool = pluginTool({
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
  return { tool };
}
