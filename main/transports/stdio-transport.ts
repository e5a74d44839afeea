import type { Readable, Writable } from 'node:stream';
import { LineFramer, MAX_LINE_BYTES } from './line-framer.js';
import { RPC, rpcErrorBody, type RpcCode } from '../core/wire-errors.js';
import { isSpecType, parseJSONRPCMessage, specTypeSchemas, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { ignoreFailure, logger } from '../core/log.js';

const log = logger('stdio');


/**
 * A JSON-RPC error for a message that could not be handled at all. JSON-RPC
 * answers an unreadable request with `id: null`, which the SDK's message type
 * does not allow for; hence the one cast.
 */
export function rpcError(id: string | number | null, code: RpcCode, message: string): JSONRPCMessage {
  return rpcErrorBody(code, message, id) as unknown as JSONRPCMessage;
}

/** The id of a message that failed validation, when it has a usable one. */
export function salvageId(value: unknown): string | number | null {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const id = (value as { id?: unknown }).id;
    if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  }
  return null;
}


/** The request methods an MCP client may send, as the SDK's own ClientRequest union names them. */
const CLIENT_METHODS: ReadonlySet<string> = new Set(unionMethods(specTypeSchemas.ClientRequest));

function unionMethods(schema: unknown): string[] {
  if (!schema || typeof schema !== 'object' || !('options' in schema) || !Array.isArray(schema.options)) return [];
  return schema.options.flatMap((o: unknown) => {
    const method = o && typeof o === 'object' && 'shape' in o && o.shape && typeof o.shape === 'object' && 'method' in o.shape ? o.shape.method : undefined;
    const value = method && typeof method === 'object' && 'value' in method ? method.value : undefined;
    return typeof value === 'string' ? [value] : [];
  });
}

/**
 * A request that is well formed except for by-position (array) params: MCP
 * methods take named params, so an unknown method is -32601 and a known one
 * -32602, as JSON-RPC 2.0 says the method decides.
 */
function arrayParamsReply(value: unknown): JSONRPCMessage | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as { jsonrpc?: unknown; method?: unknown; params?: unknown };
  if (v.jsonrpc !== '2.0' || typeof v.method !== 'string' || !Array.isArray(v.params)) return undefined;
  const id = salvageId(value);
  if (id === null) return undefined;
  if (!CLIENT_METHODS.has(v.method)) return rpcError(id, RPC.MethodNotFound, `Method not found: ${v.method}. MCP methods are initialize, tools/list, tools/call, resources/*, prompts/* and ping.`);
  return rpcError(id, RPC.InvalidParams, `Invalid params: ${v.method} takes named params (a JSON object such as {"name": …}), not an array.`);
}

/** initialize whose params are not {protocolVersion, capabilities, clientInfo}: -32602 with a sentence, not a validation dump. */
function initializeReply(message: JSONRPCMessage): JSONRPCMessage | undefined {
  const m = message as { id?: string | number; method?: string; params?: unknown };
  if (m.method !== 'initialize' || m.id === undefined || isSpecType.InitializeRequestParams(m.params)) return undefined;
  return rpcError(
    m.id,
    RPC.InvalidParams,
    'Invalid params: initialize needs params.protocolVersion (a string such as "2025-11-25"), params.capabilities (an object, {} for none) and params.clientInfo ({"name": …, "version": …}).',
  );
}

/**
 * Classifies one parsed value: a valid message, or the JSON-RPC error to
 * answer with (-32600 for a bad shape, -32601/-32602 for array params or a
 * malformed initialize), or nothing for an invalid notification/response
 * that deserves no reply.
 */
export function classifyValue(value: unknown): { message: JSONRPCMessage } | { reply: JSONRPCMessage } | { ignore: string } {
  const byPosition = arrayParamsReply(value);
  if (byPosition) return { reply: byPosition };
  let message: JSONRPCMessage;
  try {
    message = plainRequestOrNotification(value) ?? parseJSONRPCMessage(value);
  } catch {
    const id = salvageId(value);
    const hasMethod = value && typeof value === 'object' && 'method' in value;
    if (id === null && hasMethod) return { ignore: 'invalid notification' };
    if (value && typeof value === 'object' && !hasMethod && ('result' in value || 'error' in value)) return { ignore: 'invalid response' };
    return { reply: rpcError(id, RPC.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 request (needs "jsonrpc": "2.0", a string "method" and a string or number "id")') };
  }
  const badInit = initializeReply(message);
  return badInit ? { reply: badInit } : { message };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown) => typeof v === 'string' || Number.isInteger(v);
const ENVELOPE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * The common case checked without zod: a request or notification whose envelope
 * the SDK's schema accepts as it is. The SDK validates each request again against
 * its method's schema, so a second full zod pass here only cost time (bench/RESULTS.md "hotpath").
 * Anything less plain (responses, task metadata) returns undefined and gets the full parse.
 */
export function plainRequestOrNotification(value: unknown): JSONRPCMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0' || typeof value.method !== 'string') return undefined;
  for (const k in value) if (!ENVELOPE_KEYS.has(k)) return undefined;
  if ('id' in value && !isId(value.id)) return undefined;
  if ('params' in value) {
    const params = value.params;
    if (params === undefined) return undefined;
    if (!isObject(params)) return undefined;
    if ('_meta' in params) {
      const meta = params._meta;
      if (!isObject(meta)) return undefined;
      for (const k in meta) if (k !== 'progressToken' || !isId(meta[k])) return undefined;
    }
  }
  return value as JSONRPCMessage;
}

/** The error code of a reply `classifyValue` made (undefined for a result). */
export function replyCode(reply: JSONRPCMessage): number | undefined {
  return 'error' in reply ? reply.error.code : undefined;
}

/** Classifies one line of input: bad JSON is answered with -32700, the rest as classifyValue says. */
export function classifyLine(line: string): { message: JSONRPCMessage } | { reply: JSONRPCMessage } | { ignore: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { reply: rpcError(null, RPC.ParseError, `Parse error: ${(err as Error).message}`) };
  }
  return classifyValue(value);
}

/**
 * Newline-delimited JSON-RPC over a pair of streams that answers malformed
 * input with the standard errors instead of dropping it, and discards lines
 * past MAX_LINE_BYTES without ever holding them in memory (the one line framer, line-framer.ts).
 */
export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  private readonly framer: LineFramer;

  constructor(
    private input: Readable = process.stdin,
    private output: Writable = process.stdout,
    maxBytes = MAX_LINE_BYTES,
  ) {
    this.framer = new LineFramer({ line: (text) => this.handleLine(text), oversize: (max) => this.reply(rpcError(null, RPC.InvalidRequest, `Invalid Request: message larger than ${max} bytes was discarded`)) }, maxBytes);
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
  }

  private onInputError = (err: Error) => this.onerror?.(err);

  private onEnd = () => {
    void this.close();
  };

  private onData = (chunk: Buffer) => this.framer.push(chunk);

  private handleLine(line: string): void {
    const r = classifyLine(line);
    if ('message' in r) this.onmessage?.(r.message);
    else if ('reply' in r) this.reply(r.reply);
    else this.onerror?.(new Error(`ignored ${r.ignore}`));
  }

  private reply(message: JSONRPCMessage): void {
    // An error reply to a client whose stdout is gone: the transport's own error handler reports the closed stream.
    void this.send(message).catch(ignoreFailure(log, 'an error reply on stdio'));
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const ok = this.output.write(JSON.stringify(message) + '\n');
      if (ok) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.onclose?.();
  }
}
