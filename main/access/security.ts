import type { Duplex } from 'node:stream';
import crypto from 'node:crypto';
import type { Request, Response, NextFunction } from 'express';
import type { Settings } from '../core/settings/settings.js';
import { RPC_REFUSALS, rpcErrorBody, type RpcRefusal } from '../core/wire-errors.js';

/** 256 bits of randomness, URL-safe so it pastes into headers and configs as-is. */
export function generateToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** Constant-time comparison; hashing first makes unequal lengths take the same time too. */
export function tokensEqual(given: string, expected: string): boolean {
  if (!expected) return false;
  return crypto.timingSafeEqual(crypto.hash('sha256', given, 'buffer'), digestOf(expected));
}

// Every request checks the token: hash the expected one once per value, not per request.
let expectedDigest: { token: string; digest: Buffer } | undefined;
function digestOf(token: string): Buffer {
  if (expectedDigest?.token !== token) expectedDigest = { token, digest: crypto.hash('sha256', token, 'buffer') };
  return expectedDigest.digest;
}

const UPGRADE_REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 421: 'Misdirected Request', 426: 'Upgrade Required', 503: 'Service Unavailable' };

/** Answers a refused upgrade request (WebSocket, the bridge's pipe) with an HTTP error and a JSON-RPC error body, and closes it. */
export function refuseUpgrade(socket: Duplex, refusal: RpcRefusal, message: string): void {
  const { code, status } = RPC_REFUSALS[refusal];
  const body = JSON.stringify(rpcErrorBody(code, message));
  const auth = refusal === 'UNAUTHORIZED' ? 'WWW-Authenticate: Bearer realm="pincer"\r\n' : '';
  socket.end(`HTTP/1.1 ${status} ${UPGRADE_REASONS[status] ?? 'Error'}\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', '::1'];

export function isLoopbackAddress(host: string): boolean {
  return LOOPBACK_HOSTS.includes(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** `Host: name:port` → `name` (IPv6 keeps its brackets). */
export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon > 0 ? h.slice(0, colon) : h;
}

export interface GuardOptions {
  settings: Settings;
  port: () => number;
  /** Extra origins allowed besides the hub's own (the desktop app's window). */
  extraOrigins?: string[];
  /** The dashboard's host of this hub process (`<label>.pincer.localhost`, http/dashboard/origin.ts), once it listens. */
  dashboardHost?: () => string | undefined;
}

/** `<label>.pincer.localhost`: browsers resolve it to loopback themselves, so no DNS answer can rebind it. */
export const DASHBOARD_HOST = /^[0-9a-f]{32}\.pincer\.localhost$/;

/** A request refused before any server read it: its name (status and JSON-RPC code, core/wire-errors.ts) and why. */
export interface Refusal {
  refusal: RpcRefusal;
  message: string;
}

type Headers = Record<string, string | string[] | undefined>;

function header(h: Headers, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * DNS-rebinding defence: a request must name this machine in Host, and a
 * browser request must come from the hub's own origin. A page on any other
 * origin cannot talk to the hub, whatever it knows.
 */
export function hostOriginProblem(headers: Headers, opts: GuardOptions): Refusal | undefined {
  const bind = opts.settings.get('HTTP_HOST').toLowerCase();
  const remote = opts.settings.get('HTTP_ALLOW_REMOTE');
  const remoteAny = remote && (bind === '0.0.0.0' || bind === '::');
  const port = opts.port();
  const allowed = allowedFor(bind, remote && !remoteAny, port);
  const host = header(headers, 'host');
  if (!host || (!remoteAny && !allowed.hosts.has(hostnameOf(host)) && !DASHBOARD_HOST.test(hostnameOf(host)))) {
    return { refusal: 'MISDIRECTED', message: `Misdirected request: Host "${host ?? ''}" is not this Pincer hub. Connect to http://127.0.0.1:${port}.` };
  }
  const origin = header(headers, 'origin');
  if (origin !== undefined) {
    const o = origin.toLowerCase();
    // Of the dashboard hosts only this hub's own: a page left on an earlier hub's (or served there by another program) is not it.
    const dashboard = opts.dashboardHost?.();
    const own = allowed.origins.has(o) || (opts.extraOrigins ?? []).includes(o) || (remoteAny && o === `http://${hostnameOf(host)}:${port}`) || (dashboard !== undefined && o === `http://${dashboard}:${port}`);
    if (!own) {
      return { refusal: 'FORBIDDEN', message: `Forbidden: requests from the web origin ${origin} are not allowed. Only the Pincer dashboard may call the hub from a browser.` };
    }
  }
  return undefined;
}

// Every request is checked: the allowed hosts and origins are rebuilt only when the bind address or port changes.
let allowedCache: { key: string; hosts: Set<string>; origins: Set<string> } | undefined;
function allowedFor(bind: string, addBind: boolean, port: number): { hosts: Set<string>; origins: Set<string> } {
  const key = `${bind}|${addBind}|${port}`;
  if (allowedCache?.key === key) return allowedCache;
  const hosts = new Set(LOOPBACK_HOSTS);
  if (addBind) hosts.add(bind);
  const origins = new Set([...hosts].map((h) => `http://${h === '::1' ? '[::1]' : h}:${port}`));
  allowedCache = { key, hosts, origins };
  return allowedCache;
}

export function hostAndOriginGuard(opts: GuardOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const problem = hostOriginProblem(req.headers, opts);
    if (problem) {
      const { code, status } = RPC_REFUSALS[problem.refusal];
      res.status(status).json(rpcErrorBody(code, problem.message));
      return;
    }
    next();
  };
}

/** The token from `Authorization: Bearer …`; the token never travels in a cookie. */
export function presentedToken(headers: Headers): string | undefined {
  const auth = header(headers, 'authorization');
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  return undefined;
}

/** Whether a request carries the hub's token; a dashboard sign-in never stands in for it here (http/dashboard/auth.ts). */
export function tokenProblem(headers: Headers, settings: Settings): Refusal | undefined {
  const token = presentedToken(headers);
  if (token !== undefined && tokensEqual(token, settings.get('AUTH_TOKEN'))) return undefined;
  return {
    refusal: 'UNAUTHORIZED',
    message: token === undefined
      ? 'Unauthorized: send the header "Authorization: Bearer <token>". `pincer token` prints the token (AUTH_TOKEN in pincer-env.txt).'
      : 'Unauthorized: the token is wrong. `pincer token` prints the current one (it changes when rotated).',
  };
}

/** The headers of a 401: the challenge, and for an unauthenticated upload (not read on) a closed connection. */
export function unauthorizedHeaders(headers: Headers): Record<string, string> {
  const upload = headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
  return { 'WWW-Authenticate': 'Bearer realm="pincer"', ...(upload ? { Connection: 'close' } : {}) };
}

export function requireToken(settings: Settings) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const problem = tokenProblem(req.headers, settings);
    if (!problem) {
      next();
      return;
    }
    const { code, status } = RPC_REFUSALS[problem.refusal];
    res.status(status).set(unauthorizedHeaders(req.headers)).json(rpcErrorBody(code, problem.message));
  };
}
