import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy that adds the hub's bearer token to every request, for MCP
 * tools that cannot send a header (the conformance suite takes only a URL).
 * Host and Origin keep their names and are pointed at the hub's port, so the
 * hub's DNS-rebinding checks see what the tool sent.
 */
export async function tokenProxy(hubPort: number, token: string): Promise<{ url: string; close(): Promise<void> }> {
  let own = 0;
  const repoint = (value: string | undefined): string | undefined => value?.replace(new RegExp(`:${own}(?=$|/)`), `:${hubPort}`);
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (headers.host) headers.host = repoint(headers.host);
    if (typeof headers.origin === 'string') headers.origin = repoint(headers.origin);
    const upstream = http.request({ host: '127.0.0.1', port: hubPort, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  own = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${own}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
