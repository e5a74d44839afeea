/**
 * `pincer serve --port N` / `--host H`: one-off overrides of HTTP_PORT / HTTP_HOST for this run. They
 * are given to the hub's settings as environment values (the environment of the process that starts
 * the hub is trusted, README "Security model", and outranks pincer-env.txt), not put into
 * process.env: the commands and jobs the hub runs never see them. The file is left as it is.
 */
export function listenOverrides(o: { port?: string; host?: string }): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {};
  if (o.port !== undefined) {
    const port = o.port.trim();
    const n = Number(port);
    if (port !== 'auto' && !(/^\d+$/.test(port) && n >= 1 && n <= 65535)) {
      return { error: `--port "${o.port}" is not a port: give a number from 1 to 65535, or "auto" for a free one (HTTP_PORT in pincer-env.txt sets it for every run).` };
    }
    env.HTTP_PORT = port;
  }
  if (o.host !== undefined) {
    if (o.host.trim() === '') return { error: '--host is empty: give an address such as 127.0.0.1 (HTTP_HOST in pincer-env.txt sets it for every run).' };
    env.HTTP_HOST = o.host.trim();
  }
  return { env };
}
