import path from 'node:path';
import { startHub, HubAlreadyRunning, type ShutdownReason } from '../hub/hub.js';
import { CLIENT_IDS } from '../connect/clients.js';
import { PACKAGE_ROOT } from '../core/version.js';
import { connectService } from '../connect/connect-service.js';
import { cliLauncher, launcherEnv } from '../connect/cli-launcher.js';
import { configureLogging, logger } from '../core/log.js';
import { boundStdioFile } from '../core/log-file.js';
import { pincerPaths } from '../core/paths.js';
import { installLastResort } from '../core/last-resort.js';

const log = logger('serve');

/**
 * How this `pincer` is called from another terminal: `pincer` when that name on PATH leads to this very
 * script (`npm link`), else `npx pincer` (in the checkout). The checkout's own node_modules/.bin does not
 * count: npm puts it on the PATH of `npm start` only.
 */
function pincerCommand(): string {
  const fs = process.getBuiltinModule('node:fs');
  const self = process.argv[1];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!self || !path.isAbsolute(dir) || !path.relative(PACKAGE_ROOT, dir).startsWith('..')) continue;
    try {
      if (fs.realpathSync(path.join(dir, process.platform === 'win32' ? 'pincer.cmd' : 'pincer')) === fs.realpathSync(self)) return 'pincer';
    } catch {
      // No pincer in this folder: the next one.
    }
  }
  return 'npx pincer';
}

export interface ServeOptions {
  quiet: boolean;
  /** Take over even from the tray app. */
  takeover: boolean;
  /** Start only if no hub runs: what a bridge asks for; never takes over. */
  ifNone: boolean;
  /** Settings for this run only (`--port`, `--host`), above the environment's and the file's. */
  env?: Record<string, string>;
}

/**
 * `pincer serve`: the hub, headless, until SIGINT/SIGTERM or until a newcomer
 * with a better claim (the tray app, `serve --takeover`) takes it over. A
 * running headless hub is taken over; the tray app's only with `--takeover`.
 */
export async function runServe(home: string, opts: ServeOptions): Promise<number> {
  const paths = pincerPaths(home);
  // A hub a bridge started writes its stdout and stderr to logs/hub-start.log: rotated like hub.log, never unbounded.
  boundStdioFile(path.join(paths.logsDir, 'hub-start.log'));
  configureLogging({ logsDir: paths.logsDir, fileName: 'hub.log', stderr: !opts.quiet });
  installLastResort(log, { keepServing: true, ignoreStdoutErrors: true });
  let hub;
  try {
    hub = await startHub({
      home,
      env: opts.env && Object.keys(opts.env).length > 0 ? { ...process.env, ...opts.env } : undefined,
      role: 'headless',
      takeover: opts.ifNone ? 'never' : opts.takeover ? 'any' : 'headless',
      clientStarted: opts.ifNone === true,
      // The dashboard's Connect page writes what "pincer connect" writes: this very script and a Node that runs it.
      connect: connectService({ launcher: () => cliLauncher(process.argv[1]!, launcherEnv(home)) }),
    });
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
  // Quiet: the one line a script needs, the address (with --port auto it is not known beforehand).
  if (opts.quiet) process.stdout.write(`${hub.url}\n`);
  else {
    process.stdout.write(
      [
        `Pincer hub listening on ${hub.url}${hub.tookOverFrom ? ` (took over from ${hub.tookOverFrom.role === 'desktop' ? "the tray app's hub" : 'the headless hub'}, pid ${hub.tookOverFrom.pid}; its jobs keep running here)` : ''}`,
        `Dashboard: run "pincer dashboard" ("npx pincer dashboard" in a checkout): it opens ${hub.dashboardUrl}/ in your browser, signed in.`,
        `Token: kept as ${source}; "pincer token" prints it ("npx pincer token" in a checkout), "pincer token rotate" replaces it. It is also in the client config below.`,
        '',
        'Clients that can start a program: "pincer connect <client>" writes a pincer stdio entry, which checks that the hub is this one before it sends anything.',
        'Streamable HTTP clients (Cursor ~/.cursor/mcp.json; VS Code uses "servers" instead of "mcpServers") send the token to whatever holds the port:',
        JSON.stringify({ mcpServers: { pincer: { url: `${hub.url}/mcp`, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
        '',
        `Legacy SSE clients: ${hub.url}/sse · plain JSON-RPC: POST ${hub.url}/api/mcp/jsonrpc · health: ${hub.url}/api/mcp/health`,
        'Press Ctrl+C to stop. Background jobs keep running.',
        '',
        `Next, connect your AI client (${CLIENT_IDS.join(', ')}); from then on it starts Pincer by itself. In another terminal, or on the dashboard's Connect page:`,
        `  ${pincerCommand()} connect claude-code`,
        '',
      ].join('\n'),
    );
  }
  const running = hub;
  const stop = (sig: string) => {
    log.info(`received ${sig}`);
    void running.close(sig);
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return ended(await running.ended, opts.quiet);
}

/** Says how the hub ended (a signal needs no word) and gives the exit code. */
function ended(reason: ShutdownReason, quiet: boolean): number {
  switch (reason.kind) {
    case 'closed':
      return 0;
    case 'stop-request':
      if (!quiet) process.stdout.write(`Stopped by "pincer stop" (pid ${reason.by}); background jobs keep running.\n`);
      return 0;
    case 'home-lost':
      // Its data folder no longer leads to it: said on stderr even with --quiet (the log file may be gone with the folder).
      process.stderr.write(`pincer serve: stopped the hub (pid ${process.pid}): ${reason.reason}, so nothing could reach it any more. Background jobs keep running.\n`);
      return 1;
    case 'handover':
      if (!quiet) process.stdout.write(`Handed the hub over to ${reason.to.role === 'desktop' ? 'the Pincer tray app' : 'pincer serve'} (pid ${reason.to.pid}); background jobs keep running.\n`);
      return 0;
  }
}
