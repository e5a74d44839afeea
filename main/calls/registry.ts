import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/server';
import type { AnyTool, Services, ToolGroup } from '../tools/types.js';
import { toolKey } from '../core/settings/schema.js';
import type { SettingsView } from '../core/settings/view.js';
import type { Contributions } from './contributions.js';
import { viewMeta } from '../tools/views/links.js';

/**
 * Where a structured result carries the notices waiting for its client (fired
 * callbacks): clients that hand the model only `structuredContent` (Claude
 * Code, Codex, Mastra) would otherwise never show them. ARCHITECTURE §1.
 */
export const NOTICES_KEY = 'pincer_notices';
/** The same notices in a result's `_meta`, for programs that read neither text nor structured content. */
export const NOTICES_META = 'dev.pincer/notices';
const NOTICES_SCHEMA = z
  .array(z.string())
  .optional()
  .describe('Messages waiting for you, such as fired SetCallback reminders; the same text opens the result\'s content.');

/**
 * The tool catalogue as clients see it: which tools are on (TOOLS and
 * TOOL_<NAME>), and their published JSON Schemas, generated once from zod.
 */
export class ToolRegistry {
  private schemaCache = new Map<string, { input: Tool['inputSchema']; output?: Tool['outputSchema'] }>();
  private current: { tools: AnyTool[]; byName: Map<string, AnyTool> };

  /** `contributions`: the user's plugins' tools, after the built-ins (a plugin never replaces a built-in). */
  constructor(private builtins: AnyTool[], private services: Services, contributions?: Contributions) {
    this.current = { tools: builtins, byName: new Map(builtins.map((t) => [t.name, t])) };
    contributions?.onChange((kinds) => {
      if (!kinds.includes('tools')) return;
      const tools = [...builtins];
      const byName = new Map(builtins.map((t) => [t.name, t]));
      for (const t of contributions.tools()) {
        if (byName.has(t.name)) continue;
        tools.push(t);
        byName.set(t.name, t);
        this.schemaCache.delete(t.name);
      }
      this.current = { tools, byName };
    });
  }

  get tools(): readonly AnyTool[] {
    return this.current.tools;
  }

  get byName(): ReadonlyMap<string, AnyTool> {
    return this.current.byName;
  }

  isBuiltin(name: string): boolean {
    return this.builtins.some((t) => t.name === name);
  }

  /** `settings`: a client's project view when it has one; the process's settings otherwise. */
  servingPaused(settings: SettingsView = this.services.settings): boolean {
    return !settings.get('TOOLS');
  }

  isEnabled(name: string, settings: SettingsView = this.services.settings): boolean {
    return settings.flag(this.keyOf(name));
  }

  /** TOOL_<NAME> of each tool, made once (asked on every call and every tools/list). */
  private keys = new Map<string, string>();
  private keyOf(name: string): string {
    let key = this.keys.get(name);
    if (key === undefined) {
      key = toolKey(name);
      if (this.builtins.some((t) => t.name === name)) this.keys.set(name, key);
    }
    return key;
  }

  /**
   * Tools a client may see now, optionally limited to one group. `apps`: the client declared MCP Apps, so
   * the tools only its chat views call are among them (tools/views/).
   */
  visible(group?: ToolGroup, settings: SettingsView = this.services.settings, apps = false): AnyTool[] {
    if (this.servingPaused(settings)) return [];
    return this.tools.filter((t) => this.isEnabled(t.name, settings) && (!group || t.group === group) && (apps || !t.view?.appOnly));
  }

  /** `apps`: the client declared MCP Apps, so a tool shown in a view carries it in `_meta.ui`. */
  describe(tool: AnyTool, apps = false): Tool {
    const schemas = this.schemas(tool);
    const def: Tool = {
      name: tool.name,
      title: tool.title,
      description: typeof tool.description === 'function' ? tool.description(this.services) : tool.description,
      inputSchema: schemas.input,
      annotations: tool.annotations,
    };
    if (schemas.output) def.outputSchema = schemas.output;
    if (tool.taskSupport) def.execution = { taskSupport: tool.taskSupport };
    if (apps && tool.view) def._meta = viewMeta(tool.view);
    return def;
  }

  schemas(tool: AnyTool): { input: Tool['inputSchema']; output?: Tool['outputSchema'] } {
    let s = this.schemaCache.get(tool.name);
    if (!s && tool.jsonSchemas) {
      // A plugin's tool publishes the JSON Schema its author wrote.
      s = tool.jsonSchemas;
      this.schemaCache.set(tool.name, s);
    }
    if (!s) {
      s = { input: toJsonSchema(tool.inputSchema, 'input') as Tool['inputSchema'] };
      // Every structured result may carry the notices (fired callbacks) waiting for the client, so the
      // schema says so: clients validate structuredContent against it, and some read nothing else.
      if (tool.outputSchema) s.output = toJsonSchema(tool.outputSchema.extend({ [NOTICES_KEY]: NOTICES_SCHEMA }), 'output') as Tool['outputSchema'];
      this.schemaCache.set(tool.name, s);
    }
    return s;
  }
}

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  splitTypeArrays(json);
  // Older clients choke on a draft they do not know; the shape is plain JSON Schema either way.
  delete json.$schema;
  if (json.type !== 'object') return { type: 'object', properties: {} };
  json.properties ??= {};
  return json;
}

/**
 * `{"type": ["string", "null"]}` is legal JSON Schema, but clients that map tool
 * schemas onto a one-type dialect (Gemini's OpenAPI subset; the Inspector's
 * --strict check) reject it; `anyOf` with one type per branch means the same.
 */
function splitTypeArrays(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) splitTypeArrays(n);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  for (const v of Object.values(obj)) splitTypeArrays(v);
  if (!Array.isArray(obj.type)) return;
  const types: unknown[] = obj.type;
  const { description, type: _type, ...rest } = obj;
  for (const k of Object.keys(obj)) delete obj[k];
  obj.anyOf = types.map((t) => (t === 'null' ? { type: 'null' } : { ...rest, type: t }));
  if (description !== undefined) obj.description = description;
}

/** "command: expected string, received number" — one line per problem, named by path. */
export function formatZodError(err: z.ZodError): string {
  return err.issues
    .map((i) => {
      const where = i.path.length ? i.path.join('.') : 'arguments';
      return `${where}: ${i.message}`;
    })
    .join('; ');
}
