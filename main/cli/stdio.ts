import { configureLogging, logger, ignoreFailure } from '../core/log.js';
import { pincerPaths } from '../core/paths.js';
import { installLastResort } from '../core/last-resort.js';
import { isFilesystemRoot } from '../mcp/client-identity.js';
import { EarlyDiscover } from './early-discover.js';
import { answerEveryRequest } from './answer-all.js';
import { errorMessage } from '../core/errors.js';

const log = logger('stdio');
/** How long start-up waits for the client's first message before loading the server anyway. */
const FIRST_INPUT_WAIT_MS = 100;

/**
 * `pincer stdio --standalone`: the whole server in this process. stdout carries
 * protocol messages only; everything else goes to stderr and the log file.
 * The server's modules load after stdin is being read, so a 2026-07-28
 * `server/discover` is answered while they load (early-discover.ts).
 */
export async function runStandaloneStdio(home: string): Promise<void> {
  configureLogging({ logsDir: pincerPaths(home).logsDir, fileName: 'stdio.log', stderr: true, quietStderr: true });
  // The whole server, for one client: an unexpected error costs a call, not the session.
  installLastResort(log, { keepServing: true });
  const early = new EarlyDiscover(process.stdin, (line) => process.stdout.write(line + '\n'));
  // Loading the server parses megabytes of code without yielding to the event loop: read what the
  // client sent first (clients write as soon as they spawn us), so a probe is answered before that.
  await Promise.race([early.firstInput, new Promise((r) => setTimeout(r, FIRST_INPUT_WAIT_MS))]);
  let loaded;
  try {
    loaded = await loadServer(home);
  } catch (err) {
    // The client gets the reason as the answer to its requests (what it sent meanwhile included), not a closed pipe.
    log.error(`could not start the server: ${errorMessage(err)}`, { err });
    process.exit(await answerEveryRequest(early.handOver(), `pincer stdio --standalone could not start: ${errorMessage(err)}`));
  }
  const { serveStdio, createPincerServer, GuardedStdioTransport, TaskListenWire, runtime, taskListens, folder } = loaded;
  const input = early.handOver();
  // One client per process: its identity (its tasks, what its listens follow) is this process, for every server instance the entry opens.
  const callerId = `stdio:${process.getBuiltinModule('node:crypto').randomUUID()}`;
  const handle = serveStdio(
    // The client started this process in its working folder: that is where its commands run.
    () => createPincerServer(runtime, { transport: 'stdio', client: { cwd: folder }, callerId }),
    { transport: new TaskListenWire(new GuardedStdioTransport(input, process.stdout), taskListens, callerId), onerror: (err) => log.debug(`protocol: ${err.message.slice(0, 300)}`) },
  );
  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    log.info(`shutting down (${why})`);
    // Shutting down because the client left or signalled: the process exits next either way.
    await handle.close().catch(ignoreFailure(log, 'closing the stdio server'));
    runtime.close();
    // Background jobs are detached; they keep running.
    process.exit(0);
  };
  // The input ends when the client's stdin does, after what it sent was read (EarlyDiscover passes the end on).
  input.once('end', () => void shutdown('stdin closed'));
  process.stdin.resume();
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.stdout.on('error', () => void shutdown('stdout closed'));
}

/** The server's modules and this client's runtime: what can fail before the first answer (a database, a plugin folder). */
async function loadServer(home: string) {
  const [{ serveStdio }, { createRuntime }, { createPincerServer }, { GuardedStdioTransport }, { TaskListens }, { TaskListenWire }, { taskListenSource }] = await Promise.all([
    import('@modelcontextprotocol/server/stdio'),
    import('../calls/runtime.js'),
    import('../mcp/server.js'),
    import('../transports/stdio-transport.js'),
    import('../transports/task-listen.js'),
    import('../transports/task-listen-wire.js'),
    import('../mcp/task-methods.js'),
  ]);
  // One client, so its project folder (where the client started us) narrows what its calls see.
  // A process started in a filesystem root (Claude Desktop starts servers in `/`) has no project folder.
  const folder = isFilesystemRoot(process.cwd()) ? undefined : process.cwd();
  const runtime = createRuntime({ home, projectDir: folder, leanHeap: false });
  // The user's own plugins (PINCER_HOME only; the project folder never adds one).
  await (await import('../plugins/index.js')).startPlugins(runtime);
  // subscriptions/listen with taskIds, which the SDK's stdio entry would drop (task-listen-wire.ts).
  const taskListens = new TaskListens(taskListenSource(runtime));
  runtime.notifier.register(taskListens.peer);
  return { serveStdio, createPincerServer, GuardedStdioTransport, TaskListenWire, runtime, taskListens, folder };
}
