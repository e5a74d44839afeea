import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/server';

// What a plugin's functions return, shaped into MCP results inside the plugin's own thread
// (worker-entry.ts), so that only plain data crosses to the hub. Type imports only: the worker
// loads no SDK.

/** The seed platform's error shape (`{ success: false, error }`, seed 002's errorResponse): a failed call, not a result. */
function seedFailure(v: object): boolean {
  return 'success' in v && v.success === false && 'error' in v;
}

/**
 * What a tool handler returned, as a tool result: a string is text, a tool result is kept, the seed's
 * `{ success: false, error }` is an error result, anything else is JSON (and structured content when
 * the tool declares an output schema).
 */
export function toolResult(v: unknown, structured: boolean): CallToolResult {
  if (v === undefined || v === null) return { content: [] };
  if (typeof v === 'string') return { content: [{ type: 'text', text: v }] };
  if (typeof v === 'object' && 'content' in v && Array.isArray(v.content)) return v as CallToolResult;
  const text = JSON.stringify(v, null, 2) ?? String(v);
  if (typeof v === 'object' && seedFailure(v)) return { content: [{ type: 'text', text }], isError: true };
  if (structured && typeof v === 'object' && !Array.isArray(v)) return { content: [{ type: 'text', text }], structuredContent: v as Record<string, unknown> };
  return { content: [{ type: 'text', text }] };
}

export function promptResult(v: unknown): GetPromptResult {
  if (typeof v === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: v } }] };
  if (Array.isArray(v)) return { messages: v as GetPromptResult['messages'] };
  if (v && typeof v === 'object' && 'messages' in v) return v as GetPromptResult;
  throw new Error('a prompt returns a string, a list of messages or { messages }');
}

export function resourceResult(v: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
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

export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
