import { z } from 'zod';
import { fromJsonSchema, type CallToolResult, type ToolAnnotations, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { PROTOCOL_FAILURE, type AnyTool, type ToolContext } from '../tools/types.js';
import { UserError, errorMessage } from '../core/errors.js';
import { InputNeeded, CapabilityMissing } from '../tools/client-asks.js';
import { isServerErrorCode } from '../core/wire-errors.js';

/** A JSON Schema object as a plugin declares it (an object schema, the way MCP publishes tool inputs). */
export type ObjectSchema = { type: 'object'; [k: string]: unknown };

export interface PluginToolSpec {
  name: string;
  title?: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema?: ObjectSchema;
  annotations?: ToolAnnotations;
  taskSupport?: 'optional' | 'required';
  /** With taskSupport: the call becomes a task only when the handler calls ctx.startTask() (see ToolDefinition.deferTask). */
  deferTask?: boolean;
  /** Where it came from (file), for messages. */
  origin: string;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult>;
  /** Told when the handler throws (the plugin host records it for the dashboard). */
  onFailure?(message: string): void;
}

/** Any JSON value the plugin's schema accepts; the handler's own JSON Schema is the check. */
const anyObject = z.looseObject({});

/**
 * A plugin's tool as the registry holds it: its JSON Schema published as written,
 * arguments checked against it before the handler runs, and whatever the
 * handler throws turned into an error result naming the tool and its file —
 * never into a failure of the hub or of another plugin.
 */
export function pluginTool(spec: PluginToolSpec): AnyTool {
  const validator = fromJsonSchema<Record<string, unknown>>(spec.inputSchema);
  return {
    name: spec.name,
    title: spec.title ?? spec.name,
    group: 'plugins',
    description: spec.description,
    inputSchema: anyObject,
    annotations: spec.annotations ?? { title: spec.title ?? spec.name, readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    ...(spec.taskSupport ? { taskSupport: spec.taskSupport, ...(spec.deferTask ? { deferTask: true } : {}) } : {}),
    jsonSchemas: { input: spec.inputSchema, ...(spec.outputSchema ? { output: spec.outputSchema } : {}) },
    async handler(args, ctx) {
      const checked = await validator['~standard'].validate(args);
      if (checked.issues) throw new UserError(`${spec.name}: invalid arguments: ${issuesText(checked.issues)}. The input schema in tools/list shows what ${spec.name} takes.`, 'INVALID_INPUT');
      try {
        return await spec.run(args, ctx);
      } catch (err) {
        // Asking the client first, a capability it lacks (the call core answers both), or a refusal the hub gave.
        if (err instanceof InputNeeded || err instanceof CapabilityMissing || err instanceof UserError) throw err;
        // An error carrying a JSON-RPC code is the plugin saying "this is a protocol error", not a tool failure.
        const code = err && typeof err === 'object' && 'code' in err && isServerErrorCode(err.code) ? err.code : undefined;
        if (code !== undefined) return { content: [{ type: 'text', text: errorMessage(err) }], isError: true, _meta: { [PROTOCOL_FAILURE]: { code, message: errorMessage(err) } } };
        const message = `${spec.name} failed in its plugin (${spec.origin}): ${errorMessage(err)}`;
        spec.onFailure?.(message);
        throw new UserError(message, 'UPSTREAM');
      }
    },
  };
}

function issuesText(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues
    .map((i) => {
      const where = (i.path ?? []).map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.');
      // The JSON Schema validator names the value "data" ("data/count must be <= 100"): name the argument instead.
      const message = i.message.replace(/^data\/([\w/]+) /, (_m, p: string) => `${p.replace(/\//g, '.')}: `).replace(/^data /, '');
      return where ? `${where}: ${message}` : message;
    })
    .join('; ');
}
