import type { ElectronApi } from './electron-api.js';
import type { EngineTransport } from '../tools/search/search-service.js';

/** WebSearch through Chromium's network stack (system proxy, Chrome's TLS fingerprint), which engines block far less than Node's. */
export function electronNetTransport(electron: Pick<ElectronApi, 'net'>): EngineTransport {
  return async (req) => {
    const timeout = AbortSignal.timeout(req.timeoutMs);
    const res = await electron.net.fetch(req.url, {
      method: req.method ?? 'GET',
      headers: { 'User-Agent': req.userAgent, 'Accept-Language': 'en-US,en;q=0.9', ...req.headers },
      body: req.body,
      signal: AbortSignal.any([req.signal, timeout]),
      redirect: 'manual',
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (k !== 'set-cookie') headers[k] = v;
    });
    return { status: res.status, url: res.url || req.url, headers, setCookies: res.headers.getSetCookie(), body: await res.text() };
  };
}
