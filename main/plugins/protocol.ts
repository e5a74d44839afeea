/**
 * The messages between the hub and a module plugin's own thread (plugin-worker.ts ↔ worker-entry.ts).
 * Both ends are Pincer's code; only values the plugin produced travel inside them, already shaped
 * into plain tool, prompt and resource results by the worker (results.ts). No imports: the worker
 * entry loads nothing but this, results.ts and the plugin.
 */

/** A function in the plugin's export, as the hub sees the export's JSON (modules.ts checks it is one). */
export const FUNCTION_MARK = '[pincer: function]';

/** Lines a plugin may write to stdout and stderr per minute into the hub's log (counted in its thread; the rest is dropped there). */
export const OUTPUT_LINES_PER_MINUTE = 60;
export const OUTPUT_LINE_CHARS = 1000;

/** Which of the plugin's functions a call runs, by its place in the export. */
export type ItemRef =
  | { kind: 'tool'; index: number }
  | { kind: 'prompt'; index: number }
  | { kind: 'prompt-complete'; index: number }
  | { kind: 'resource'; index: number }
  | { kind: 'template'; index: number }
  | { kind: 'template-complete'; index: number };

/** What the handler's `ctx` knows without asking the hub. */
export interface CallContextData {
  client: { name?: string; capabilities: Record<string, unknown> };
}

/** The `ctx` methods that run in the hub (context.ts), called from the plugin's thread. */
export const HUB_CONTEXT_METHODS = ['progress', 'log', 'workdir', 'elicit', 'sample', 'listRoots', 'askClient', 'askUser', 'startTask'] as const;
export type HubContextMethod = (typeof HUB_CONTEXT_METHODS)[number];

/** An error as it crosses the boundary; the plugin's stack keeps its file and line. */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  /** A JSON-RPC code the plugin put on the error (a protocol error it asks for). */
  code?: number;
  /** `ctx.requireCapability` failed for these. */
  capabilities?: string[];
  /** The error is the one the hub gave this `ctx` request: the hub throws its own (InputNeeded, a UserError…). */
  hubError?: number;
}

export type HostMessage =
  | { t: 'load'; file: string; version: string; maxExportChars: number }
  | { t: 'call'; id: number; ref: ItemRef; args: unknown[]; ctx?: CallContextData }
  | { t: 'abort'; id: number }
  | { t: 'ctx-reply'; id: number; ok: true; value: unknown }
  | { t: 'ctx-reply'; id: number; ok: false; error: WireError }
  | { t: 'ping'; n: number };

export type WorkerMessage =
  | { t: 'ready'; exported: string }
  | { t: 'load-failed'; error: WireError }
  | { t: 'done'; id: number; ok: true; value: unknown }
  | { t: 'done'; id: number; ok: false; error: WireError }
  | { t: 'ctx'; id: number; call: number; method: HubContextMethod; args: unknown[] }
  | { t: 'fault'; error: WireError; origin: 'exception' | 'rejection' }
  | { t: 'pong'; n: number }
  /** A line the plugin wrote, within its budget; `dropped` alone: it went past the budget (`count` lines not kept). */
  | { t: 'output'; stream: 'stdout' | 'stderr'; line: string }
  | { t: 'output-dropped'; first: boolean; count: number };
