import { z } from 'zod';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UriTemplate, type CallToolResult, type GetPromptResult, type ReadResourceResult } from '@modelcontextprotocol/server';
import type { Contribution, ContributedPrompt, ContributedResource, ContributedTemplate } from '../calls/contributions.js';
import { errorMessage } from '../core/errors.js';
import { pluginTool, type ObjectSchema } from './tool.js';
import { pluginContext, InputNeeded } from './context.js';
import { NEED_INPUT } from '../tools/types.js';
import { TOOL_NAME } from './command-tools.js';
import type { PluginProblem } from './problems.js';

const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', { error: 'must be a function' });
const objectSchema = z.looseObject({ type: z.literal('object', { error: 'must be a JSON Schema with type: "object"' }) });

const ToolSpec = z.looseObject({
  name: z.string().regex(TOOL_NAME, 'name may use letters, digits, _, - and . only (at most 64 characters)'),
  title: z.string().optional(),
  description: z.string().min(1, 'description tells the model when to use the tool'),
  inputSchema: objectSchema.default({ type: 'object', properties: {} }),
  outputSchema: objectSchema.optional(),
  annotations: z.looseObject({}).optional(),
  /** MCP's tool execution hints; `taskSupport` makes a call a task for clients of the tasks extension. */
  execution: z.looseObject({ taskSupport: z.enum(['forbidden', 'optional', 'required']).optional() }).optional(),
  /** With taskSupport: the call stays on its request (asking the client in round trips) until the handler calls ctx.startTask(). */
  deferTask: z.boolean().optional(),
  handler: fn,
});
const PromptSpec = z.looseObject({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(z.looseObject({ name: z.string().min(1), description: z.string().optional(), required: z.boolean().optional() })).optional(),
  get: fn,
  complete: fn.optional(),
});
const ResourceSpec = z.looseObject({ uri: z.string().min(1), name: z.string().min(1), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional(), read: fn });
const TemplateSpec = z.looseObject({ uriTemplate: z.string().min(1), name: z.string().min(1), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional(), read: fn, complete: fn.optional() });
const PluginSpec = z.looseObject({
  tools: z.array(ToolSpec).default([]),
  prompts: z.array(PromptSpec).default([]),
  resources: z.array(ResourceSpec).default([]),
  resourceTemplates: z.array(TemplateSpec).default([]),
});

/** Calls a plugin's function, whatever it is declared as (the schema above checked that it is one). */
function invoke(f: (...args: never[]) => unknown, ...args: unknown[]): Promise<unknown> {
  return Promise.resolve((f as (...a: unknown[]) => unknown)(...args));
}

/** The line of `file` an error points at (a syntax error's position, else the top frame in the file), else 1. */
export function lineOf(err: unknown, file: string): number {
  const text = err instanceof Error ? `${err.stack ?? ''}` : '';
  const url = pathToFileURL(file).href;
  for (const candidate of [url, file]) {
    const at = text.indexOf(candidate);
    if (at < 0) continue;
    const m = /^(?:\?[^:]*)?:(\d+)/.exec(text.slice(at + candidate.length));
    if (m) return Number(m[1]);
  }
  return 1;
}

/** How long a module plugin may take to load (import and its default export's setup). */
export const LOAD_TIMEOUT_MS = 5000;

function withinLoadTime<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`it did not finish loading within ${LOAD_TIMEOUT_MS / 1000} s (a top-level await or setup that never ends?)`)), LOAD_TIMEOUT_MS);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export interface LoadedModule {
  contribution: Contribution;
  problems: PluginProblem[];
}

/**
 * Imports one module plugin (`<PINCER_HOME>/plugins/*.mjs|js`) and turns what it
 * exports into tools, prompts, resources and templates. A module that throws,
 * or exports something malformed, is a problem with its file and line; what it
 * declared correctly still loads. `version` busts Node's module cache when the
 * file changed.
 */
export async function loadModulePlugin(file: string, version: string, onFailure: (message: string, err?: unknown) => void): Promise<LoadedModule> {
  const origin = path.basename(file);
  const problems: PluginProblem[] = [];
  let exported: unknown;
  try {
    // A module that never finishes loading (a top-level await on something that never comes) must not hold the hub's start.
    exported = await withinLoadTime(
      (async () => {
        const mod: unknown = await import(`${pathToFileURL(file).href}?v=${encodeURIComponent(version)}`);
        const value: unknown = mod && typeof mod === 'object' && 'default' in mod ? mod.default : mod;
        return typeof value === 'function' ? invoke(value as () => unknown) : value;
      })(),
    );
  } catch (err) {
    return { contribution: { tools: [], prompts: [], resources: [], templates: [] }, problems: [{ file, line: lineOf(err, file), message: `failed to load: ${errorMessage(err)}` }] };
  }
  const parsed = PluginSpec.safeParse(exported ?? {});
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    return { contribution: { tools: [], prompts: [], resources: [], templates: [] }, problems: [{ file, line: 1, message: `export ${i.path.join('.') || 'default'}: ${i.message}. docs/PLUGINS.md shows the shape.` }] };
  }
  const spec = parsed.data;
  const failing = (what: string) => (err: unknown): never => {
    const message = `${what} failed in its plugin (${origin}): ${errorMessage(err)}`;
    onFailure(message, err);
    throw new Error(message);
  };
  const tools = spec.tools.map((t) =>
    pluginTool({
      name: t.name,
      ...(t.title ? { title: t.title } : {}),
      description: t.description,
      inputSchema: t.inputSchema as ObjectSchema,
      ...(t.outputSchema ? { outputSchema: t.outputSchema as ObjectSchema } : {}),
      ...(t.annotations ? { annotations: t.annotations } : {}),
      ...(t.execution?.taskSupport && t.execution.taskSupport !== 'forbidden' ? { taskSupport: t.execution.taskSupport, ...(t.deferTask ? { deferTask: true } : {}) } : {}),
      origin,
      onFailure: (m) => onFailure(m),
      run: async (args, ctx) => toolResult(await invoke(t.handler, args, pluginContext(ctx, t.name)), Boolean(t.outputSchema)),
    }),
  );
  const prompts: ContributedPrompt[] = spec.prompts.map((p) => ({
    prompt: { name: p.name, ...(p.title ? { title: p.title } : {}), ...(p.description ? { description: p.description } : {}), ...(p.arguments ? { arguments: p.arguments } : {}) },
    get: async (args, ctx) => {
      try {
        return promptResult(await invoke(p.get, args, pluginContext(ctx, p.name)));
      } catch (err) {
        // Asking the client on 2026-07-28: the prompt answers input_required and is asked again.
        if (err instanceof InputNeeded) return { messages: [], _meta: { [NEED_INPUT]: { inputRequests: err.inputRequests, replay: err.replay } } };
        return failing(`Prompt ${p.name}`)(err);
      }
    },
    ...(p.complete ? { complete: (a: string, v: string, c: Record<string, string>) => invoke(p.complete!, a, v, c).then(stringList).catch(failing(`Completing ${p.name}`)) } : {}),
  }));
  const resources: ContributedResource[] = spec.resources.map((r) => ({
    resource: { uri: r.uri, name: r.name, ...(r.title ? { title: r.title } : {}), ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}) },
    read: (uri, signal) => invoke(r.read, uri, { signal }).then((v) => resourceResult(v, uri, r.mimeType)).catch(failing(`Reading ${r.uri}`)),
  }));
  const templates: ContributedTemplate[] = spec.resourceTemplates.map((t) => {
    const matcher = new UriTemplate(t.uriTemplate);
    return {
      template: { uriTemplate: t.uriTemplate, name: t.name, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}), ...(t.mimeType ? { mimeType: t.mimeType } : {}) },
      match: (uri) => {
        const vars = matcher.match(uri);
        if (!vars) return undefined;
        return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
      },
      read: (uri, variables, signal) => invoke(t.read, uri, variables, { signal }).then((v) => resourceResult(v, uri, t.mimeType)).catch(failing(`Reading ${uri}`)),
      ...(t.complete ? { complete: (a: string, v: string, c: Record<string, string>) => invoke(t.complete!, a, v, c).then(stringList).catch(failing(`Completing ${t.uriTemplate}`)) } : {}),
    };
  });
  return { contribution: { tools, prompts, resources, templates }, problems };
}

/** What a tool handler returned, as a tool result: a string is text, a result is kept, anything else is JSON. */
function toolResult(v: unknown, structured: boolean): CallToolResult {
  if (v === undefined || v === null) return { content: [] };
  if (typeof v === 'string') return { content: [{ type: 'text', text: v }] };
  if (typeof v === 'object' && 'content' in v && Array.isArray(v.content)) return v as CallToolResult;
  const text = JSON.stringify(v, null, 2) ?? String(v);
  if (structured && typeof v === 'object' && !Array.isArray(v)) return { content: [{ type: 'text', text }], structuredContent: v as Record<string, unknown> };
  return { content: [{ type: 'text', text }] };
}

function promptResult(v: unknown): GetPromptResult {
  if (typeof v === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: v } }] };
  if (Array.isArray(v)) return { messages: v as GetPromptResult['messages'] };
  if (v && typeof v === 'object' && 'messages' in v) return v as GetPromptResult;
  throw new Error('a prompt returns a string, a list of messages or { messages }');
}

function resourceResult(v: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  const mime = mimeType ? { mimeType } : {};
  if (typeof v === 'string') return { contents: [{ uri, ...mime, text: v }] };
  if (v instanceof Uint8Array) return { contents: [{ uri, ...mime, blob: Buffer.from(v).toString('base64') }] };
  if (v && typeof v === 'object') {
    if ('contents' in v && Array.isArray(v.contents)) return v as ReadResourceResult;
    if ('text' in v && typeof v.text === 'string') return { contents: [{ uri, ...mime, ...(v as object), text: v.text }] };
    if ('blob' in v && typeof v.blob === 'string') return { contents: [{ uri, ...mime, ...(v as object), blob: v.blob }] };
  }
  throw new Error('a resource returns a string, bytes, { text }, { blob } or { contents }');
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
