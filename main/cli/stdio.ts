import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createRuntime } from '../calls/runtime.js';
import { createPincerServer } from '../mcp/server.js';
import { configureLogging, logger } from '../core/log.js';
import { pincerPaths } from '../core/paths.js';
import { GuardedStdioTransport } from '../transports/stdio-transport.js';
import { isFilesystemRoot } from '../mcp/client-identity.js';

const log = logger('stdio');

/**
 * `pincer stdio --standalone`: the whole server in this process. stdout carries
 * protocol messages only; everything else goes to stderr and the log file.
 */
export async function runStandaloneStdio(home: string): Promise<void> {
  configureLogging({ logsDir: pincerPaths(home).logsDir, fileName: 'stdio.log', stderr: true });
  // One client, so its project folder (where the client started us) narrows what its calls see.
  // A process started in a filesystem root (Claude Desktop starts servers in `/`) has no project folder.
  const folder = isFilesystemRoot(process.cwd()) ? undefined : process.cwd();
  const runtime = createRuntime({ home, projectDir: folder, leanHeap: false });
  const handle = serveStdio(
    // The client started this process in its working folder: that is where its commands run.
    () => createPincerServer(runtime, { transport: 'stdio', client: { cwd: folder } }),
    { transport: new GuardedStdioTransport(), onerror: (err) => log.debug(`protocol: ${err.message.slice(0, 300)}`) },
  );
  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    log.info(`shutting down (${why})`);
    await handle.close().catch(() => undefined);
    runtime.close();
    // Background jobs are detached; they keep running.
    process.exit(0);
  };
  process.stdin.on('end', () => void shutdown('stdin closed'));
  process.stdin.on('close', () => void shutdown('stdin closed'));
  process.stdin.resume();
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.stdout.on('error', () => void shutdown('stdout closed'));
}
