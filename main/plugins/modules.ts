import type { z } from 'zod';
import path from 'node:path';
import { UriTemplate, type CallToolResult, type GetPromptResult, type ReadResourceResult } from '@modelcontextprotocol/server';
import type { Contribution, ContributedPrompt, ContributedResource, ContributedTemplate } from '../calls/contributions.js';
import type { AnyTool, ToolContext } from '../tools/types.js';
import { errorMessage } from '../core/errors.js';
import { pluginTool, type ObjectSchema } from './tool.js';
import { pluginContext, type PluginContext } from './context.js';
import { CapabilityMissing, InputNeeded, NEED_INPUT } from '../tools/client-asks.js';
import type { ItemRef } from './protocol.js';
import { LoadFailure, PluginStopped, PluginWorker, type HubContext } from './plugin-worker.js';
import { PluginShape, ToolSpec, PromptSpec, ResourceSpec, TemplateSpec, lineOf, lineOfText } from './spec.js';
import type { PluginProblem } from './problems.js';

/** Repeated faults (errors escaping its code, exits, freezes) within this window disable a plugin until its file changes. */
export const MAX_FAULTS = 5;
export const FAULT_WINDOW_MS = 10 * 60_000;

export interface ModulePluginHooks {
  /** A call failed in the plugin (its code threw): the dashboard and log show it. */
  onFailure(message: string, err?: unknown): void;
  /** A fault of the plugin (named with its line), counted against it. */
  onFault(problem: PluginProblem): void;
  /** The plugin was disabled after repeated faults: its tools go until its file changes. */
  onDisabled(reason: string): void;
}

export interface LoadedModule {
  contribution: Contribution;
  problems: PluginProblem[];
  /** Tools the file declares with `enabled: false` (served by no one; the dashboard lists them). */
  off: string[];
}

/**
 * One module plugin (`<PINCER_HOME>/plugins/*.mjs|js`), run in its own thread (plugin-worker.ts). Its
 * export becomes tools, prompts, resources and templates whose functions are calls into that thread;
 * an item declared wrongly is a problem with its line and the others still load. Errors that escape
 * its code, a thread that exits and one that freezes are its faults: the call in flight fails naming
 * it, the thread starts again on the next call, and MAX_FAULTS within FAULT_WINDOW_MS disable it.
 */
export class ModulePlugin {
  private worker?: PluginWorker;
  private restarting?: Promise<PluginWorker>;
  private faults: number[] = [];
  private closed = false;
  /** Why it was disabled, once it was. */
  disabled?: string;
  readonly origin: string;

  constructor(
    private file: string,
    private version: string,
    private hooks: ModulePluginHooks,
  ) {
    this.origin = path.basename(file);
  }

  async load(): Promise<LoadedModule> {
    const empty = { contribution: { tools: [], prompts: [], resources: [], templates: [] }, problems: [], off: [] };
    let json: string;
    try {
      const worker = this.newWorker();
      json = await worker.load();
      this.worker = worker;
    } catch (err) {
      const thrown = err instanceof LoadFailure ? err.thrown : undefined;
      return { ...empty, problems: [{ file: this.file, line: thrown ? lineOf(thrown, this.file) : 1, message: `failed to load: ${errorMessage(err)}` }] };
    }
    const shape = PluginShape.safeParse(JSON.parse(json));
    if (!shape.success) {
      this.close();
      const i = shape.error.issues[0]!;
      return { ...empty, problems: [{ file: this.file, line: 1, message: `export ${i.path.join('.') || 'default'}: ${i.message}. docs/PLUGINS.md shows the shape.` }] };
    }
    return this.contribution(shape.data);
  }

  private newWorker(): PluginWorker {
    return new PluginWorker(this.file, this.version, {
      fault: (error, origin) => this.fault(`an error escaped its code (${origin === 'rejection' ? 'a promise nothing awaited' : 'a timer or callback'}): ${error.message}`, lineOf(error, this.file)),
      gone: (reason) => this.fault(reason, 1),
    });
  }

  /** The running thread, started again after an exit or a freeze (not once disabled or closed). */
  private thread(): Promise<PluginWorker> {
    if (this.worker?.running) return Promise.resolve(this.worker);
    if (this.disabled) return Promise.reject(new PluginStopped(`it is disabled: ${this.disabled}`));
    if (this.closed) return Promise.reject(new PluginStopped('it was reloaded or the hub is stopping; send the call again'));
    this.restarting ??= (async () => {
      const worker = this.newWorker();
      try {
        await worker.load();
      } catch (err) {
        throw new PluginStopped(`it could not be started again: ${errorMessage(err)}`);
      }
      if (this.closed || this.disabled) {
        worker.close();
        throw new PluginStopped('it was reloaded or disabled meanwhile; send the call again');
      }
      this.worker = worker;
      return worker;
    })().finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  private fault(reason: string, line: number): void {
    if (this.closed || this.disabled) return;
    const now = Date.now();
    this.faults = [...this.faults.filter((t) => now - t < FAULT_WINDOW_MS), now];
    this.hooks.onFault({ file: this.file, line, message: reason });
    if (this.faults.length >= MAX_FAULTS) {
      this.disabled = `${MAX_FAULTS} faults within ${FAULT_WINDOW_MS / 60_000} minutes (the last: ${reason}). Fix the plugin and save its file to load it again.`;
      this.worker?.close(`it is disabled: ${this.disabled}`);
      this.hooks.onDisabled(this.disabled);
    }
  }

  private call(ref: ItemRef, args: unknown[], opts: { signal?: AbortSignal; ctx?: PluginContext } = {}): Promise<unknown> {
    const hub: HubContext | undefined = opts.ctx && hubSide(opts.ctx);
    return this.thread().then((w) =>
      w.call(ref, args, { ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.ctx ? { ctx: { client: opts.ctx.client } } : {}), ...(hub ? { hub } : {}) }),
    );
  }

  /** Each item checked on its own: one declared wrongly is a problem with its line; `enabled: false` keeps a tool out. */
  private contribution(spec: z.infer<typeof PluginShape>): LoadedModule {
    const problems: PluginProblem[] = [];
    const each = <S extends z.ZodType>(list: unknown[], schema: S, what: string, key: string): { item: z.infer<S>; index: number }[] =>
      list.flatMap((raw, index) => {
        const r = schema.safeParse(raw);
        if (r.success) return [{ item: r.data, index }];
        const i = r.error.issues[0]!;
        const named = stringField(raw, key);
        problems.push({ file: this.file, line: lineOfText(this.file, named), message: `export ${what}.${index}${named ? ` (${named})` : ''}.${i.path.join('.')}: ${i.message}` });
        return [];
      });
    const tools = each(spec.tools, ToolSpec, 'tools', 'name').flatMap(({ item, index }) => {
      if (item.enabled === false) return [];
      try {
        return [this.tool(item, index)];
      } catch (err) {
        // The JSON Schema validator compiles the input schema now and refuses one it cannot use.
        problems.push({ file: this.file, line: lineOfText(this.file, item.name), message: `export tools.${index} (${item.name}).inputSchema is not a JSON Schema Pincer can check arguments with: ${errorMessage(err)}` });
        return [];
      }
    });
    const prompts = each(spec.prompts, PromptSpec, 'prompts', 'name').map(({ item, index }) => this.prompt(item, index));
    const resources = each(spec.resources, ResourceSpec, 'resources', 'uri').map(({ item, index }) => this.resource(item, index));
    const templates = each(spec.resourceTemplates, TemplateSpec, 'resourceTemplates', 'uriTemplate').map(({ item, index }) => this.template(item, index));
    const off = spec.tools.flatMap((raw) => (raw && typeof raw === 'object' && 'enabled' in raw && raw.enabled === false ? [stringField(raw, 'name') ?? '(unnamed)'] : []));
    return { contribution: { tools, prompts, resources, templates }, problems, off };
  }

  private tool(t: z.infer<typeof ToolSpec>, index: number): AnyTool {
    return pluginTool({
      name: t.name,
      ...(t.title ? { title: t.title } : {}),
      description: t.description,
      inputSchema: t.inputSchema as ObjectSchema,
      ...(t.outputSchema ? { outputSchema: t.outputSchema as ObjectSchema } : {}),
      ...(t.annotations ? { annotations: t.annotations } : {}),
      ...(t.execution?.taskSupport && t.execution.taskSupport !== 'forbidden' ? { taskSupport: t.execution.taskSupport, ...(t.deferTask ? { deferTask: true } : {}) } : {}),
      origin: this.origin,
      onFailure: (m) => this.hooks.onFailure(m),
      run: async (args, ctx: ToolContext) => {
        try {
          return (await this.call({ kind: 'tool', index }, [args], { signal: ctx.signal, ctx: pluginContext(ctx, t.name) })) as CallToolResult;
        } catch (err) {
          throw capabilityOf(err, t.name);
        }
      },
    });
  }

  private prompt(p: z.infer<typeof PromptSpec>, index: number): ContributedPrompt {
    return {
      prompt: { name: p.name, ...(p.title ? { title: p.title } : {}), ...(p.description ? { description: p.description } : {}), ...(p.arguments ? { arguments: p.arguments } : {}) },
      get: async (args, ctx) => {
        try {
          return (await this.call({ kind: 'prompt', index }, [args], { signal: ctx.signal, ctx: pluginContext(ctx, p.name) })) as GetPromptResult;
        } catch (err) {
          // Asking the client on 2026-07-28: the prompt answers input_required and is asked again.
          if (err instanceof InputNeeded) return { messages: [], _meta: { [NEED_INPUT]: { inputRequests: err.inputRequests, replay: err.replay } } };
          return this.failing(`Prompt ${p.name}`)(err);
        }
      },
      ...(p.complete ? { complete: (a: string, v: string, c: Record<string, string>) => this.call({ kind: 'prompt-complete', index }, [a, v, c]).then(strings).catch(this.failing(`Completing ${p.name}`)) } : {}),
    };
  }

  private resource(r: z.infer<typeof ResourceSpec>, index: number): ContributedResource {
    return {
      resource: { uri: r.uri, name: r.name, ...(r.title ? { title: r.title } : {}), ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}) },
      read: (uri, signal) => this.call({ kind: 'resource', index }, [uri], { signal }).then((v) => v as ReadResourceResult).catch(this.failing(`Reading ${r.uri}`)),
    };
  }

  private template(t: z.infer<typeof TemplateSpec>, index: number): ContributedTemplate {
    const matcher = new UriTemplate(t.uriTemplate);
    return {
      template: { uriTemplate: t.uriTemplate, name: t.name, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}), ...(t.mimeType ? { mimeType: t.mimeType } : {}) },
      match: (uri) => {
        const vars = matcher.match(uri);
        if (!vars) return undefined;
        return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
      },
      read: (uri, variables, signal) => this.call({ kind: 'template', index }, [uri, variables], { signal }).then((v) => v as ReadResourceResult).catch(this.failing(`Reading ${uri}`)),
      ...(t.complete ? { complete: (a: string, v: string, c: Record<string, string>) => this.call({ kind: 'template-complete', index }, [a, v, c]).then(strings).catch(this.failing(`Completing ${t.uriTemplate}`)) } : {}),
    };
  }

  /** A prompt, completion or read that failed in the plugin: recorded, and the request fails naming it. */
  private failing(what: string): (err: unknown) => never {
    return (err) => {
      const message = `${what} failed in its plugin (${this.origin}): ${errorMessage(err)}`;
      this.hooks.onFailure(message, err);
      throw new Error(message);
    };
  }

  close(): void {
    this.closed = true;
    this.worker?.close();
  }
}

/** The hub's side of the handler's ctx: what the plugin's thread may ask for (PluginWorker's HubContext). */
function hubSide(pc: PluginContext): HubContext {
  return { progress: pc.progress, log: pc.log, workdir: pc.workdir, elicit: pc.elicit, sample: pc.sample, listRoots: pc.listRoots, askClient: pc.askClient, askUser: pc.askUser, startTask: pc.startTask };
}

/** `ctx.requireCapability` failed in the thread: the hub's CapabilityMissing, which becomes -32021 on 2026-07-28. */
function capabilityOf(err: unknown, tool: string): unknown {
  const caps = err && typeof err === 'object' && 'capabilities' in err && Array.isArray(err.capabilities) ? (err.capabilities as unknown[]).map(String) : undefined;
  return caps ? new CapabilityMissing(caps, tool) : err;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function stringField(v: unknown, key: string): string | undefined {
  const f = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return typeof f === 'string' ? f : undefined;
}
