import type { ProtocolErrorCode } from '@modelcontextprotocol/server';

/*
 * Every error code Pincer sends, declared once (ARCHITECTURE §6). Two vocabularies, kept apart as the
 * SDK keeps them: the numbers of JSON-RPC protocol errors (RPC; a refusal answered over HTTP carries
 * one status with it, RPC_REFUSALS), and the strings of REST, dashboard and tool-call answers
 * (`{ success: false, error: { code, message } }`), each mapped to its one HTTP status (HTTP_STATUS).
 * No other module of main/ writes a code or an error status as a literal (test/wire-vocabulary.test.ts).
 * Plain values and types only, no runtime import: the bridge and `answer-all` load it.
 */

type Standard = 'ParseError' | 'InvalidRequest' | 'MethodNotFound' | 'InvalidParams' | 'InternalError' | 'ResourceNotFound' | 'MissingRequiredClientCapability';

/** The JSON-RPC error numbers Pincer sends. The standard ones are the SDK's ProtocolErrorCode numbers (the type checks it). */
export const RPC = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** resources/read of a resource that does not exist (MCP's code; the SDK keeps it for peers that send it). */
  ResourceNotFound: -32002,
  /** The request's own capabilities lack what it needs (2026-07-28). */
  MissingRequiredClientCapability: -32021,
  /** SEP-2243: the request's headers disagree with its body (the SDK's HEADER_MISMATCH_ERROR_CODE, which it does not export). */
  HeaderMismatch: -32020,
  /**
   * Pincer's own, in JSON-RPC's server-error range: Pincer cannot serve the request here and now — a
   * method, media type or origin the route does not take, a limit reached, a hub restarting or one that
   * could not start (the bridge's "Pincer: <reason>"). Over HTTP its status says which (RPC_REFUSALS).
   */
  ServerError: -32000,
  /** No such MCP session (it expired or was closed, or the hub restarted), as the SDK's transports answer. */
  SessionNotFound: -32001,
  /** No valid token (HTTP 401). */
  Unauthorized: -32001,
} as const satisfies { [K in Standard]: (typeof ProtocolErrorCode)[K] } & Record<string, number>;
export type RpcCode = (typeof RPC)[keyof typeof RPC];

/** JSON-RPC 2.0 reserves these for implementation-defined server errors; a plugin may throw one to fail a call as a protocol error. */
export function isServerErrorCode(code: unknown): code is number {
  return typeof code === 'number' && Number.isInteger(code) && code >= -32768 && code <= -32000;
}

/** A JSON-RPC refusal answered over HTTP, before any MCP server read the request: each name with its one code and status. */
export const RPC_REFUSALS = {
  PARSE_ERROR: { code: RPC.ParseError, status: 400 },
  INVALID_REQUEST: { code: RPC.InvalidRequest, status: 400 },
  BODY_TOO_LARGE: { code: RPC.InvalidRequest, status: 413 },
  METHOD_NOT_FOUND: { code: RPC.MethodNotFound, status: 404 },
  INVALID_PARAMS: { code: RPC.InvalidParams, status: 400 },
  HEADER_MISMATCH: { code: RPC.HeaderMismatch, status: 400 },
  INTERNAL: { code: RPC.InternalError, status: 500 },
  BAD_REQUEST: { code: RPC.ServerError, status: 400 },
  UNAUTHORIZED: { code: RPC.Unauthorized, status: 401 },
  FORBIDDEN: { code: RPC.ServerError, status: 403 },
  SESSION_NOT_FOUND: { code: RPC.SessionNotFound, status: 404 },
  METHOD_NOT_ALLOWED: { code: RPC.ServerError, status: 405 },
  NOT_ACCEPTABLE: { code: RPC.ServerError, status: 406 },
  UNSUPPORTED_MEDIA_TYPE: { code: RPC.ServerError, status: 415 },
  MISDIRECTED: { code: RPC.ServerError, status: 421 },
  UPGRADE_REQUIRED: { code: RPC.ServerError, status: 426 },
  /** Too many sessions or streams, a hub handing over, a dashboard session that could not be stored. */
  UNAVAILABLE: { code: RPC.ServerError, status: 503 },
} as const satisfies Record<string, { code: RpcCode; status: number }>;
export type RpcRefusal = keyof typeof RPC_REFUSALS;

/** A JSON-RPC error message (`id: null` when the request's id could not be read). */
export function rpcErrorBody(code: RpcCode, message: string, id: string | number | null = null, data?: unknown): { jsonrpc: '2.0'; id: string | number | null; error: { code: RpcCode; message: string; data?: unknown } } {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}

/**
 * Why a tool, a hub service or a route refuses what the user or model can fix (`UserError`, core/errors.ts).
 * Surfaces map the code, never the message text, to their wire form.
 */
export const USER_ERROR_CODES = [
  /** An argument or request body is missing, empty, malformed, out of range, or contradicts another. */
  'INVALID_INPUT',
  /** The thing named (a file, job, task, step, question, callback, skill, call, route) does not exist. */
  'NOT_FOUND',
  /** It exists, but its state forbids the action: already settled or finished, a slot taken, a mode not on. */
  'CONFLICT',
  /** A configured count is full (JOB_MAX_CONCURRENT, CALLBACK_MAX): wait or free one. */
  'LIMIT_REACHED',
  /** Input or fetched content past a size limit (IMAGE_MAX_FILE_BYTES, READDOCS_MAX_BYTES, a handover request …). */
  'TOO_LARGE',
  /** A kind or format Pincer cannot handle (not an image, HEIC, a content type, a URL scheme). */
  'UNSUPPORTED',
  /** The operating system or the user's settings forbid it (permission denied, a skill turned off). */
  'DENIED',
  /** A prerequisite on this machine is missing or unusable (no bash, a working folder gone, a read-only database, no search engine, no token yet). */
  'UNAVAILABLE',
  /** pincer.db was deleted or replaced under the hub (store/file-guard.ts); nothing was written. */
  'STORE_UNAVAILABLE',
  /** A deadline passed (a fetch's timeout). */
  'TIMEOUT',
  /** The caller cancelled. */
  'CANCELLED',
  /** A remote server failed: it could not be reached or answered an HTTP error. */
  'UPSTREAM',
] as const;
export type ErrorCode = (typeof USER_ERROR_CODES)[number];

/** Why the hub did not run a tool, or that the tool failed (calls/calls.ts); TOOL_NOT_FOUND is "unknown tool" on every surface. */
export const CALL_ERROR_CODES = ['TOOL_NOT_FOUND', 'SERVING_PAUSED', 'TOOL_DISABLED', 'INVALID_ARGUMENTS', 'STORE_UNAVAILABLE', 'TOOL_FAILED'] as const;
export type CallErrorCode = (typeof CALL_ERROR_CODES)[number];

/** Why a settings edit or lookup was refused (core/settings/settings-errors.ts). */
export const SETTINGS_ERROR_CODES = [
  /** A key that is not letters, digits and _. */
  'SETTING_NAME_INVALID',
  /** A value its key's schema rejects, or one with control or separator characters. */
  'SETTING_VALUE_INVALID',
  /** The edit would leave the hub without AUTH_TOKEN, locking everyone out. */
  'TOKEN_REQUIRED',
  /** AUTH_TOKEN comes from the environment: the file's cannot replace it. */
  'TOKEN_FROM_ENV',
  /** `forProject` was given something other than an absolute folder path. */
  'PROJECT_DIR_INVALID',
  /** The user's file is there but cannot be read (not a regular file, too large, no permission): editing one key would lose it. */
  'SETTINGS_FILE_UNUSABLE',
  /** The edit would make the user's file larger than the loader reads: it would be dropped whole. */
  'SETTINGS_FILE_TOO_LARGE',
  /** The edit holds text that does not survive a round trip through UTF-8. */
  'SETTINGS_ENCODING_INVALID',
  /** The disk holding the settings file is full (or the user's quota is used up): nothing was saved. */
  'SETTINGS_DISK_FULL',
  /** The settings file could not be written for another reason the system gave (read-only, permission): nothing was saved. */
  'SETTINGS_FILE_UNWRITABLE',
] as const;
export type SettingsErrorCode = (typeof SETTINGS_ERROR_CODES)[number];

/** Why a hub refused a signed handover or stop request (hub/handover.ts); `pincer serve` reads TRAY_OWNS_HUB. */
export const HANDOVER_ERROR_CODES = ['HANDOVER_BAD_REQUEST', 'HANDOVER_NOT_SIGNED', 'HANDOVER_REPLAYED', 'HANDOVER_IN_PROGRESS', 'TRAY_OWNS_HUB', 'HANDOVER_REFUSED'] as const;
export type HandoverErrorCode = (typeof HANDOVER_ERROR_CODES)[number];

/** The dashboard's sign-in routes' own refusals (http/dashboard/sign-in-routes.ts, auth.ts). */
export const ROUTE_ERROR_CODES = [
  /** Neither the token nor a dashboard session (sign-out without the session it ends, a link asked for unsigned). */
  'UNAUTHORIZED',
  /** The dashboard session sent has ended (sign-out, age, a token change, its hub stopped). */
  'SESSION_ENDED',
  /** A sign-in code used already, too old, or of a hub that stopped. */
  'LINK_INVALID',
  /** A link request not signed with this data folder's hub-secret for this hub. */
  'NOT_SIGNED',
  /** A signed link request that is stale or was used already. */
  'REPLAYED',
  /** A browser's dashboard session asked for what only the token or the desktop window may do. */
  'NEEDS_TOKEN',
] as const;

/** Every string code a REST, dashboard or WebSocket answer carries. */
export type WireCode = ErrorCode | CallErrorCode | SettingsErrorCode | HandoverErrorCode | (typeof ROUTE_ERROR_CODES)[number];

/** The one HTTP status of each code, wherever it is answered. */
export const HTTP_STATUS: Record<WireCode, number> = {
  INVALID_INPUT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_REACHED: 429,
  TOO_LARGE: 413,
  UNSUPPORTED: 415,
  DENIED: 403,
  UNAVAILABLE: 503,
  STORE_UNAVAILABLE: 503,
  TIMEOUT: 504,
  CANCELLED: 499,
  UPSTREAM: 502,
  TOOL_NOT_FOUND: 404,
  SERVING_PAUSED: 503,
  TOOL_DISABLED: 403,
  INVALID_ARGUMENTS: 400,
  // A tool's own failure is a normal result the model reads.
  TOOL_FAILED: 200,
  SETTING_NAME_INVALID: 400,
  SETTING_VALUE_INVALID: 400,
  TOKEN_REQUIRED: 400,
  TOKEN_FROM_ENV: 409,
  PROJECT_DIR_INVALID: 400,
  SETTINGS_FILE_UNUSABLE: 409,
  SETTINGS_FILE_TOO_LARGE: 400,
  SETTINGS_ENCODING_INVALID: 400,
  SETTINGS_DISK_FULL: 507,
  SETTINGS_FILE_UNWRITABLE: 503,
  HANDOVER_BAD_REQUEST: 400,
  HANDOVER_NOT_SIGNED: 403,
  HANDOVER_REPLAYED: 403,
  HANDOVER_IN_PROGRESS: 409,
  TRAY_OWNS_HUB: 409,
  // The hub failed handling it (hub.log says why).
  HANDOVER_REFUSED: 500,
  UNAUTHORIZED: 401,
  SESSION_ENDED: 401,
  LINK_INVALID: 401,
  NOT_SIGNED: 403,
  REPLAYED: 403,
  NEEDS_TOKEN: 403,
};

/** Which call outcomes are protocol errors on JSON-RPC surfaces; the rest are tool results with `isError: true`. */
export const CALL_RPC_ERROR: Partial<Record<CallErrorCode, RpcCode>> = {
  TOOL_NOT_FOUND: RPC.InvalidParams,
};

/** The body of a refused REST or dashboard request. */
export function errorBody(code: WireCode, message: string, extra: Record<string, unknown> = {}): { success: false; error: { code: WireCode; message: string } } & Record<string, unknown> {
  return { success: false, error: { code, message }, ...extra };
}

/** OAuth's own error for the OAuth paths Pincer does not serve (http/oauth-absent.ts): 404, RFC 6749's shape. */
export const OAUTH_ABSENT = { status: 404, error: 'not_found' } as const;
