import type { IncomingHttpHeaders } from 'node:http';

/**
 * SEP-2243 on the 2026-07-28 Streamable HTTP leg: a tool may mark arguments
 * with `x-mcp-header: Name`, and the client then mirrors each one into an
 * `Mcp-Param-Name` header so that a proxy can route on it without reading the
 * body. A proxy that routes on the header while the hub acts on the body is
 * exactly the split the spec forbids, so the hub refuses (400, HeaderMismatch)
 * a `tools/call` whose mirrored headers are missing, disagree with the
 * arguments, are malformed, or are sent twice. The SDK does this only for tools
 * registered through its McpServer.registerTool, which Pincer's catalogue is not
 * (ARCHITECTURE §1, protocol generations).
 */


const PARAM_PREFIX = 'mcp-param-';
/** Headers the spec mirrors from every modern request; one copy each, or a proxy and the hub may read different ones. */
const STANDARD = new Set(['mcp-protocol-version', 'mcp-method', 'mcp-name']);
const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** RFC 9110 field-value characters: visible ASCII, space and tab (the parser already dropped the outer spaces). */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** RFC 9110 token: what an x-mcp-header name must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export interface ParamHeaderDeclaration {
  /** The argument's path through `properties` (nested objects are allowed). */
  path: string[];
  /** The x-mcp-header value, as declared. */
  name: string;
  type?: string;
}

/**
 * The x-mcp-header declarations of a tool's published inputSchema, reached through `properties`
 * chains only (the spec's "statically reachable" rule); a name that is not a valid token is not one.
 */
export function paramHeaderDeclarations(schema: unknown): ParamHeaderDeclaration[] {
  const out: ParamHeaderDeclaration[] = [];
  const visit = (node: unknown, path: string[], depth: number): void => {
    if (!node || typeof node !== 'object' || depth > 32) return;
    const s = node as Record<string, unknown>;
    const name = s['x-mcp-header'];
    if (path.length > 0 && typeof name === 'string' && TOKEN.test(name)) out.push({ path, name, type: typeof s.type === 'string' ? s.type : undefined });
    const props = s.properties;
    if (props && typeof props === 'object') for (const [key, child] of Object.entries(props)) visit(child, [...path, key], depth + 1);
  };
  visit(schema, [], 0);
  return out;
}

/** A refused request: the header it is about and why, in words a client's developer can act on. */
export interface ParamHeaderRefusal {
  header: string;
  message: string;
}

/**
 * Why a modern request's Mcp-* headers cannot be trusted to say what its body says, or undefined.
 * `rawHeaders` is node's list (names and values alternating) — the only place a repeated header
 * is still two headers; `inputSchemaOf` gives the published inputSchema of a tool by name.
 */
export function paramHeaderProblem(headers: IncomingHttpHeaders, rawHeaders: readonly string[], body: unknown, inputSchemaOf: (name: string) => unknown): ParamHeaderRefusal | undefined {
  const call = toolCallOf(body);
  const declared = call ? paramHeaderDeclarations(inputSchemaOf(call.name)) : [];
  const recognized = new Set(declared.map((d) => PARAM_PREFIX + d.name.toLowerCase()));
  const seen = new Map<string, number>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i]!.toLowerCase();
    if (STANDARD.has(lower) || recognized.has(lower)) seen.set(lower, (seen.get(lower) ?? 0) + 1);
  }
  for (const [lower, count] of seen) {
    if (count > 1) return { header: display(lower), message: `the ${display(lower)} header is sent ${count} times; send it once` };
  }
  if (!call) return undefined;
  for (const decl of declared) {
    const header = `Mcp-Param-${decl.name}`;
    const raw = headers[PARAM_PREFIX + decl.name.toLowerCase()];
    const sent = Array.isArray(raw) ? raw.join(', ') : raw;
    const value = valueAt(call.arguments, decl.path);
    const where = `arguments.${decl.path.join('.')}`;
    if (sent !== undefined && !FIELD_VALUE.test(sent)) {
      return { header, message: `the ${header} header has characters a header value may not carry (non-ASCII or control characters); send such a value Base64-encoded as =?base64?…?=` };
    }
    const bodyText = primitiveText(value);
    if (bodyText === undefined) {
      if (sent === undefined) continue; // null or absent: no header is expected
      return { header, message: `the ${header} header is sent but ${where} is ${value === undefined ? 'absent' : 'not a string, integer or boolean'}; send the header only with its argument` };
    }
    if (sent === undefined) return { header, message: `${where} is ${JSON.stringify(value)} but the ${header} header is missing; a client mirrors every x-mcp-header argument (tools/list shows them)` };
    const decoded = decode(sent);
    if (decoded === undefined) return { header, message: `the ${header} header's =?base64?…?= value is not canonical Base64 of UTF-8 text` };
    const same = (decl.type === 'integer' || decl.type === 'number') && typeof value === 'number' && DECIMAL.test(decoded) ? Number(decoded) === value : decoded === bodyText;
    if (!same) return { header, message: `the ${header} header says ${JSON.stringify(decoded)} but ${where} is ${JSON.stringify(value)}` };
  }
  return undefined;
}

function toolCallOf(body: unknown): { name: string; arguments: unknown } | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const m = body as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== 'tools/call' || m.id === undefined || !m.params || typeof m.params !== 'object') return undefined;
  const p = m.params as { name?: unknown; arguments?: unknown };
  return typeof p.name === 'string' ? { name: p.name, arguments: p.arguments } : undefined;
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!node || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The spec's string form of a mirrored value: strings as they are, integers in decimal, booleans lowercase. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

/** A header value as sent, or the text inside the Base64 sentinel; undefined when the sentinel's payload is broken. */
function decode(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END) && value.length >= SENTINEL_START.length + SENTINEL_END.length)) return value;
  const b64 = value.slice(SENTINEL_START.length, value.length - SENTINEL_END.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

function display(lower: string): string {
  if (lower === 'mcp-protocol-version') return 'MCP-Protocol-Version';
  return lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}
