import net from 'node:net';

/**
 * A port the OS just had free, outside the 7717–7817 range that hubs with
 * HTTP_PORT=auto walk through: tests that check "the same port after a
 * handover" must not race other tests' hubs for it.
 */
export async function osFreePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
