import { startHub, HubAlreadyRunning } from '../http/hub.js';
import { configureLogging, logger } from '../core/log.js';
import { pincerPaths } from '../core/paths.js';

const log = logger('serve');

/** `pincer serve`: the hub, headless, until SIGINT/SIGTERM. */
export async function runServe(home: string, opts: { quiet: boolean }): Promise<number> {
  const paths = pincerPaths(home);
  configureLogging({ logsDir: paths.logsDir, fileName: 'hub.log', stderr: !opts.quiet });
  let hub;
  try {
    hub = await startHub({ home });
  } catch (err) {
    if (err instanceof HubAlreadyRunning) {
      process.stderr.write(`pincer serve: ${err.message}\n`);
      return 3;
    }
    process.stderr.write(`pincer serve: ${(err as Error).message}\n`);
    return 1;
  }
  for (const w of hub.warnings) process.stderr.write(`${w}\n`);
  const token = hub.runtime.services.settings.get('AUTH_TOKEN');
  const source = hub.runtime.services.settings.source('AUTH_TOKEN') === 'env' ? 'the AUTH_TOKEN environment variable' : `AUTH_TOKEN in ${paths.settingsFile}`;
  if (!opts.quiet) {
    process.stdout.write(
      [
        `Pincer hub listening on ${hub.url}`,
        `Token: ${source} (print it with "pincer token", rotate with "pincer token rotate")`,
        '',
        'Streamable HTTP clients (Cursor ~/.cursor/mcp.json; VS Code uses "servers" instead of "mcpServers"):',
        JSON.stringify({ mcpServers: { pincer: { url: `${hub.url}/mcp`, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
        '',
        `Legacy SSE clients: ${hub.url}/sse · plain JSON-RPC: POST ${hub.url}/api/mcp/jsonrpc · health: ${hub.url}/api/mcp/health`,
        'Press Ctrl+C to stop. Background jobs keep running.',
        '',
      ].join('\n'),
    );
  }
  await new Promise<void>((resolve) => {
    const stop = (sig: string) => {
      log.info(`received ${sig}`);
      void hub.close().then(resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}
