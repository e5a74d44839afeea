import type { GetPromptResult, ReadResourceResult, Resource, ResourceTemplateType, Prompt } from '@modelcontextprotocol/server';
import type { AnyTool, ToolContext } from '../tools/types.js';

/**
 * What the user's plugins add to the catalogue (main/plugins/ fills it):
 * tools, prompts, resources and resource templates, each owned by the plugin
 * that declared it, so reloading or dropping one plugin replaces only its own.
 * The built-in tools stay in the registry; this is the part that changes while
 * the hub runs.
 */
export interface ContributedPrompt {
  prompt: Prompt;
  /** The call's context as a tool gets it (a prompt may ask the client too); a result with `needInput` `_meta` asks first. */
  get(args: Record<string, string>, ctx: ToolContext): Promise<GetPromptResult>;
  /** Values for one argument, given what is typed so far and the other arguments already filled. */
  complete?(argument: string, value: string, context: Record<string, string>): Promise<string[]>;
}

export interface ContributedResource {
  resource: Resource;
  read(uri: string, signal: AbortSignal): Promise<ReadResourceResult>;
}

export interface ContributedTemplate {
  template: ResourceTemplateType;
  /** The template's variables when `uri` matches it, else undefined. */
  match(uri: string): Record<string, string> | undefined;
  read(uri: string, variables: Record<string, string>, signal: AbortSignal): Promise<ReadResourceResult>;
  complete?(variable: string, value: string, context: Record<string, string>): Promise<string[]>;
}

export interface Contribution {
  tools: AnyTool[];
  prompts: ContributedPrompt[];
  resources: ContributedResource[];
  templates: ContributedTemplate[];
}

export const EMPTY_CONTRIBUTION: Contribution = { tools: [], prompts: [], resources: [], templates: [] };

export type ContributionKind = 'tools' | 'prompts' | 'resources';

/** One plugin file as the dashboard shows it: what it adds and what is wrong with it (by line). */
export interface PluginFileStatus {
  file: string;
  kind: 'command' | 'module';
  tools: string[];
  prompts: string[];
  resources: string[];
  problems: { file: string; line: number; message: string }[];
  /** Tools the file turns off itself (`enabled: false`): served to no client. */
  off: string[];
  /** Why a module plugin was disabled (repeated faults), until its file changes. */
  disabled?: string;
}

/** Every plugin's contribution, by owner; `onChange` hears which lists changed. */
export class Contributions {
  private byOwner = new Map<string, Contribution>();
  private listeners = new Set<(kinds: ContributionKind[]) => void>();
  private files: PluginFileStatus[] = [];
  private closers: (() => void)[] = [];

  /** The plugin files and their problems, as the plugin host last found them. */
  status(): readonly PluginFileStatus[] {
    return this.files;
  }

  setStatus(files: PluginFileStatus[]): void {
    this.files = files;
  }

  /** Whatever loads plugins stops with the runtime. */
  onClose(fn: () => void): void {
    this.closers.push(fn);
  }

  close(): void {
    for (const fn of this.closers.splice(0)) fn();
    this.listeners.clear();
  }

  /** Replaces one owner's contribution (an empty one removes it). Names taken by an earlier owner or a built-in are the caller's to refuse. */
  set(owner: string, c: Contribution): void {
    const before = this.byOwner.get(owner) ?? EMPTY_CONTRIBUTION;
    if (c.tools.length + c.prompts.length + c.resources.length + c.templates.length === 0) this.byOwner.delete(owner);
    else this.byOwner.set(owner, c);
    const kinds: ContributionKind[] = [];
    if (!same(before.tools, c.tools)) kinds.push('tools');
    if (!same(before.prompts, c.prompts)) kinds.push('prompts');
    if (!same(before.resources, c.resources) || !same(before.templates, c.templates)) kinds.push('resources');
    if (kinds.length) for (const l of this.listeners) l(kinds);
  }

  owners(): string[] {
    return [...this.byOwner.keys()];
  }

  onChange(listener: (kinds: ContributionKind[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  tools(): AnyTool[] {
    return [...this.byOwner.values()].flatMap((c) => c.tools);
  }

  prompts(): ContributedPrompt[] {
    return [...this.byOwner.values()].flatMap((c) => c.prompts);
  }

  resources(): ContributedResource[] {
    return [...this.byOwner.values()].flatMap((c) => c.resources);
  }

  templates(): ContributedTemplate[] {
    return [...this.byOwner.values()].flatMap((c) => c.templates);
  }

  prompt(name: string): ContributedPrompt | undefined {
    return this.prompts().find((p) => p.prompt.name === name);
  }

  resource(uri: string): ContributedResource | undefined {
    return this.resources().find((r) => r.resource.uri === uri);
  }

  /** The first template matching `uri`, with its variables. */
  templateFor(uri: string): { template: ContributedTemplate; variables: Record<string, string> } | undefined {
    for (const t of this.templates()) {
      const variables = t.match(uri);
      if (variables) return { template: t, variables };
    }
    return undefined;
  }
}

/** The same items in the same order (a reload makes new ones; a re-publish keeps them). */
function same<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
