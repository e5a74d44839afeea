import zlib from 'node:zlib';
import { FetchError, networkError, undici, CHROME_UA } from '../web/http-fetch.js';
import { decodeHtml } from '../web/decode.js';

/** What a transport gives back: the answer as it came, redirects not followed. */
export interface TransportResponse {
  status: number;
  url: string;
  /** Header names lower-cased; Set-Cookie lines apart. */
  headers: Record<string, string>;
  setCookies: string[];
  body: string;
}

export interface TransportRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  userAgent: string;
  signal: AbortSignal;
}

/** A transport for engine requests: Node's by default; the desktop app swaps in Chromium's network stack. */
export type EngineTransport = (req: TransportRequest) => Promise<TransportResponse>;

const MAX_BYTES = 5 * 1024 * 1024;
const MAX_DECODED_BYTES = 20 * 1024 * 1024;

/** Decompressed, but never past MAX_DECODED_BYTES: a small answer must not inflate into gigabytes. */
function decompress(body: Buffer, encoding: string): Buffer {
  const opts = { maxOutputLength: MAX_DECODED_BYTES };
  switch (encoding.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body, opts);
    case 'deflate':
      return zlib.inflateSync(body, opts);
    case 'br':
      return zlib.brotliDecompressSync(body, opts);
    default:
      return body;
  }
}

/**
 * Node's transport, on undici's `request` rather than `fetch`: fetch would
 * follow redirects (a redirect to a challenge page is the signal) and set
 * Sec-Fetch-Mode to "cors" over the engine's own "navigate".
 */
export const nodeTransport: EngineTransport = async (req) => {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = AbortSignal.any([req.signal, timeout]);
  const u = await undici();
  const fail = (err: unknown): never => {
    const code = timeout.aborted ? 'timeout' : req.signal.aborted ? 'cancelled' : 'network';
    throw new FetchError(code, `WebSearch: ${req.url}: ${code === 'timeout' ? networkError({ name: 'TimeoutError' }, req.timeoutMs) : networkError(err, req.timeoutMs)}`);
  };
  let res: Awaited<ReturnType<typeof u.request>>;
  try {
    res = await u.request(req.url, {
      method: (req.method ?? 'GET') as 'GET' | 'POST',
      headers: { 'User-Agent': req.userAgent || CHROME_UA, Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,application/json;q=0.8,*/*;q=0.7', 'Accept-Language': 'en-US,en;q=0.9', ...req.headers },
      body: req.body,
      signal,
      dispatcher: u.dispatcher,
    });
  } catch (err) {
    return fail(err);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BYTES) {
        res.body.destroy();
        throw new FetchError('too-large', `WebSearch: ${req.url} answered more than ${MAX_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof FetchError) throw err;
    return fail(err);
  }
  const headers: Record<string, string> = {};
  let setCookies: string[] = [];
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined) continue;
    if (k.toLowerCase() === 'set-cookie') setCookies = Array.isArray(v) ? v : [String(v)];
    else headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  let raw: Buffer;
  try {
    raw = decompress(Buffer.concat(chunks), headers['content-encoding'] ?? '');
  } catch {
    throw new FetchError('too-large', `WebSearch: ${req.url}: the answer's ${headers['content-encoding']} body is corrupt or inflates past ${MAX_DECODED_BYTES} bytes`);
  }
  return { status: res.statusCode, url: req.url, headers, setCookies, body: (await decodeHtml(raw, headers['content-type'] ?? '')).text };
};
