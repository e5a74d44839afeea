import type { Dispatcher } from 'undici';
import { UserError, type ErrorCode } from '../../core/errors.js';
import { formatBytes, formatDuration } from '../../core/format.js';
import { ignoreFailure, logger } from '../../core/log.js';

const log = logger('fetch');

export const CHROME_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';

let proxyAgent: Dispatcher | undefined;
/** Honours HTTP_PROXY / HTTPS_PROXY / NO_PROXY like curl does. undici loads on first use. */
export async function undici() {
  const u = await import('undici');
  proxyAgent ??= new u.EnvHttpProxyAgent();
  return { fetch: u.fetch, request: u.request, dispatcher: proxyAgent };
}

/** Why a fetch failed, for callers that act on it (WebSearch rests an engine by it). */
export type FetchErrorCode = 'timeout' | 'cancelled' | 'network' | 'too-large' | 'http-status';

const FETCH_ERROR_CODE: Record<FetchErrorCode, ErrorCode> = { timeout: 'TIMEOUT', cancelled: 'CANCELLED', network: 'UPSTREAM', 'too-large': 'TOO_LARGE', 'http-status': 'UPSTREAM' };

export class FetchError extends UserError {
  constructor(
    readonly failure: FetchErrorCode,
    message: string,
  ) {
    super(message, FETCH_ERROR_CODE[failure]);
    this.name = 'FetchError';
  }
}

function failure(err: unknown): FetchErrorCode {
  const e = err as { name?: string; cause?: { code?: string; name?: string } };
  const code = e.cause?.code ?? '';
  if (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  return e.name === 'AbortError' ? 'cancelled' : 'network';
}

export interface Fetched {
  url: string;
  finalUrl: string;
  status: number;
  contentType: string;
  body: Buffer;
}

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  userAgent?: string;
  signal?: AbortSignal;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Name used in error messages ("ReadDocs"). */
  tool: string;
  /** Return 4xx/5xx responses instead of throwing. */
  allowErrors?: boolean;
}

/** One HTTP request with a deadline, a size cap, redirects followed, and errors a person can act on. */
export async function fetchUrl(url: string, o: FetchOptions): Promise<Fetched> {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const u = await undici();
  let res;
  try {
    res = await u.fetch(url, {
      method: o.method ?? 'GET',
      redirect: 'follow',
      signal,
      dispatcher: u.dispatcher,
      body: o.body,
      headers: {
        'User-Agent': o.userAgent || CHROME_UA,
        Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,application/json;q=0.8,*/*;q=0.7',
        'Accept-Language': 'en-US,en;q=0.9',
        ...o.headers,
      },
    });
  } catch (err) {
    throw new FetchError(failure(err), `${o.tool}: ${url}: ${networkError(err, o.timeoutMs)}`);
  }
  if (res.status >= 400 && !o.allowErrors) {
    // Dropping a body we refuse: a stream already ended or errored has nothing left to cancel.
    await res.body?.cancel().catch(ignoreFailure(log, 'dropping the body of an HTTP error'));
    throw new FetchError('http-status', `${o.tool}: ${url} answered HTTP ${res.status} ${res.statusText || ''}`.trimEnd() + (res.status === 404 ? ' — the page does not exist.' : res.status === 403 || res.status === 401 ? ' — access is denied.' : res.status === 429 ? ' — too many requests; try later.' : '.'));
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > o.maxBytes) {
    // Dropping a body we refuse: a stream already ended or errored has nothing left to cancel.
    await res.body?.cancel().catch(ignoreFailure(log, 'dropping a body past its declared limit'));
    throw new FetchError('too-large', `${o.tool}: ${url} is ${formatBytes(declared)}, more than the ${formatBytes(o.maxBytes)} limit (READDOCS_MAX_BYTES).`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body ?? []) {
      size += (chunk as Uint8Array).length;
      if (size > o.maxBytes) {
        // Dropping a body we refuse: a stream already ended or errored has nothing left to cancel.
        await res.body?.cancel().catch(ignoreFailure(log, 'dropping a body past the size limit'));
        throw new FetchError('too-large', `${o.tool}: ${url} is larger than the ${formatBytes(o.maxBytes)} limit (READDOCS_MAX_BYTES).`);
      }
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new FetchError(failure(err), `${o.tool}: ${url}: ${networkError(err, o.timeoutMs)}`);
  }
  return { url, finalUrl: res.url || url, status: res.status, contentType: (res.headers.get('content-type') ?? '').toLowerCase(), body: Buffer.concat(chunks) };
}

/** Turns undici's nested causes into one sentence. */
export function networkError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string; name?: string } };
  const code = e.cause?.code ?? '';
  if (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return `timed out after ${formatDuration(timeoutMs)}.`;
  if (e.name === 'AbortError') return 'cancelled.';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name could not be resolved (DNS). Check the URL or the network.';
  if (code === 'ECONNREFUSED') return 'the connection was refused: nothing listens there.';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was reset by the server.';
  if (/CERT|SSL|TLS|self.signed|UNABLE_TO_VERIFY/i.test(code + ' ' + (e.cause?.message ?? ''))) return `TLS error: ${e.cause?.message ?? code}. The site's certificate is not trusted.`;
  if (code === 'UND_ERR_TOO_MANY_REDIRECTS' || /redirect/i.test(e.cause?.message ?? '')) return 'too many redirects.';
  return `${e.cause?.message ?? e.message ?? String(err)}`;
}
