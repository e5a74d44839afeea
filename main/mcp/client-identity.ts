import path from 'node:path';
import { logger } from '../core/log.js';

const log = logger('client-identity');

/** Header names of the contract between `pincer stdio` (the bridge) and the hub. */
export const CLIENT_HEADER = 'x-pincer-client';
export const CWD_HEADER = 'x-pincer-cwd';

/**
 * Who a client is, beyond one MCP session or one stateless request: `id` is
 * the identity callbacks, questions and the working folder are kept under;
 * `cwd` the folder the client runs in, when it said so.
 */
export interface ClientHandle {
  id?: string;
  cwd?: string;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined> | undefined;

function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  // Not `instanceof Headers`: reading the global loads Node's bundled undici (~2 MB of RSS) on a hub's
  // first session, and node's header records are plain objects (a header named "get" is a string).
  if (isWebHeaders(headers)) return headers.get(name) ?? undefined;
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isWebHeaders(headers: NonNullable<HeaderSource>): headers is Headers {
  return typeof (headers as { get?: unknown }).get === 'function';
}

const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Reads X-Pincer-Client and X-Pincer-Cwd. A bad value (not an id, bad
 * percent-encoding, a relative path, control characters) is ignored with a
 * log line: the client is then served as if it had not sent the header.
 */
export function clientHandleFrom(headers: HeaderSource): ClientHandle {
  const handle: ClientHandle = {};
  const id = headerValue(headers, CLIENT_HEADER);
  if (id !== undefined) {
    if (ID_PATTERN.test(id)) handle.id = id;
    else log.warn(`ignoring ${CLIENT_HEADER}: expected 1-128 letters, digits, '.', '_', ':' or '-', got ${JSON.stringify(id.slice(0, 40))}`);
  }
  const raw = headerValue(headers, CWD_HEADER);
  if (raw !== undefined) {
    let dir: string | undefined;
    try {
      dir = decodeURIComponent(raw);
    } catch {
      log.warn(`ignoring ${CWD_HEADER}: not valid percent-encoding (${JSON.stringify(raw.slice(0, 80))})`);
    }
    if (dir !== undefined) {
      if (CONTROL.test(dir)) log.warn(`ignoring ${CWD_HEADER}: it contains control characters`);
      else if (!path.isAbsolute(dir)) log.warn(`ignoring ${CWD_HEADER}: ${JSON.stringify(dir.slice(0, 200))} is not an absolute path`);
      else if (!isFilesystemRoot(dir)) handle.cwd = path.normalize(dir);
    }
  }
  return handle;
}

/**
 * A client started in a filesystem root (Claude Desktop starts its servers in
 * `/`) has told us nothing about where its work is: it gets BASH_CWD or home.
 */
export function isFilesystemRoot(dir: string): boolean {
  const normal = path.resolve(dir);
  return path.parse(normal).root === normal;
}

/**
 * The identity of a stateless 2026-07-28 HTTP client that sent no
 * X-Pincer-Client: the client name and version its requests carry. Two
 * running copies of one client program share it (and so each other's
 * callbacks); a client that wants its own sends X-Pincer-Client.
 */
export function statelessIdentity(client: { name: string; version?: string } | undefined): string {
  return `stateless:${client?.name ?? 'unnamed'}@${client?.version ?? ''}`;
}
