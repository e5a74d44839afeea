#!/usr/bin/env node
// The only static import: it runs on any Node, so a too-old one is named before anything needing a newer one loads.
import { describeNode, INSTALL_NODE, MIN_NODE, nodeSupported, runningNode, supportedNodeAtHand, tooOldMessage } from '../core/node-version.js';

const help = (version: string) => `pincer ${version} — local tools for AI clients over MCP

Usage:
  pincer                      with stdin not a terminal (a client spawned it): the same as pincer stdio
  pincer stdio                serve MCP over stdio through the hub (starts one if none runs)
  pincer stdio --standalone   serve MCP over stdio, the whole server in this process
  pincer serve [--quiet] [--takeover] [--port N] [--host H]
                              run the hub: Streamable HTTP, SSE, JSON-RPC, REST, WebSocket;
                              --quiet prints only the address it listens on;
                              takes over a headless hub, the tray app's only with --takeover;
                              --port / --host override HTTP_PORT / HTTP_HOST for this run;
                              --if-none: only if no hub runs (what pincer stdio starts)
  pincer status               is a hub running, where, with how many sessions
  pincer stop                 stop the running hub (background jobs keep running)
  pincer dashboard [--print]  open the dashboard in your browser, signed in (a one-time link);
                              --print prints the link instead
  pincer token                print the hub's bearer token
  pincer token rotate         replace the token (clients must use the new one)
  pincer connect <client> [--http] [--project DIR]
                              add Pincer to a client's config (claude-desktop, claude-code,
                              cursor, vscode, windsurf, gemini, codex); other entries are
                              left as they are. --http writes the hub's URL and token instead
                              of pincer stdio: the client then sends the token to whatever
                              holds the port (see the README's security model)
  pincer disconnect <client> [--project DIR]
                              remove Pincer's entry again
  pincer --version            print the version

Data directory: $PINCER_HOME (default ~/.pincer)`;

const COMMANDS = ['stdio', 'serve', 'status', 'stop', 'dashboard', 'token', 'connect', 'disconnect', 'help', 'version'] as const;

/** The bridge (`pincer stdio`) is a relay: it loads nothing native, and starts the hub with a supported Node (hub-node.ts). */
function isBridge(argv: string[]): boolean {
  const [command, ...rest] = argv.length === 0 && !process.stdin.isTTY ? ['stdio'] : argv;
  return command === 'stdio' && !rest.includes('--standalone');
}

/**
 * Every command checks the Node it runs on first. On one too old, a command runs again with the
 * checkout's pinned Node when there is one (so `npm link`ed or `node …/pincer.js` commands work on a
 * machine whose `node` is older), saying so in one line; otherwise it says which Node it found, which
 * it needs and what to do, and exits 1. Returns the exit code, or undefined to go on here.
 */
async function checkNode(argv: string[]): Promise<number | undefined> {
  const rerun = process.env.PINCER_NODE_RERUN;
  delete process.env.PINCER_NODE_RERUN;
  if (nodeSupported()) return undefined;
  // Node 22.3+ and 20.16+ have getBuiltinModule, all the bridge's own code needs; an older bridge runs again
  // on the pinned Node (a second, waiting process), or answers the client with the reason.
  if (isBridge(argv) && typeof process.getBuiltinModule === 'function') return undefined;
  const found = runningNode();
  const other = rerun === undefined ? await supportedNodeAtHand() : undefined;
  if (!other) {
    const bridge = isBridge(argv);
    const message = tooOldMessage(found, 'Pincer', bridge ? `point the client's config at a newer Node ("command": "/path/to/node"), or ${INSTALL_NODE}` : INSTALL_NODE);
    process.stderr.write(`pincer: ${message}\n`);
    // A client started this bridge: it gets the reason as the answer to its requests, not just a closed pipe.
    return bridge ? (await import('./answer-all.js')).answerEveryRequest(process.stdin, message) : 1;
  }
  process.stderr.write(`pincer: ${describeNode(found)} is older than Pincer needs (${MIN_NODE}); running with ${describeNode(other)}, which this checkout installed.\n`);
  return runWith(other.path);
}

/** This very command under another Node; signals reach it, its exit code is ours. */
async function runWith(node: string): Promise<number> {
  const { spawn } = await import('node:child_process');
  const { constants } = await import('node:os');
  const child = spawn(node, [...process.execArgv, process.argv[1]!, ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, PINCER_NODE_RERUN: '1' } });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
  return new Promise((resolve) => {
    child.once('error', (err) => {
      process.stderr.write(`pincer: could not start ${node}: ${err.message}\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}

/**
 * The version from package.json, read without the rest of Pincer: `--version` and `help` answer before the
 * Node check, so a script calling `pincer --version` pays Node's own start and no second Node (ROOT/dist/main/cli).
 */
async function packageVersion(): Promise<string> {
  const { readFileSync } = await import('node:fs');
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    // Another layout (a bundle): the module that knows.
    return (await import('../core/version.js')).VERSION;
  }
}

const VERSION_ARGS = ['--version', '-v', 'version'];
const HELP_ARGS = ['help', '--help', '-h'];

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && VERSION_ARGS.includes(argv[0]!)) {
    process.stdout.write((await packageVersion()) + '\n');
    return 0;
  }
  if (argv.length === 1 && HELP_ARGS.includes(argv[0]!)) {
    process.stdout.write(help(await packageVersion()) + '\n');
    return 0;
  }
  const refused = await checkNode(argv);
  if (refused !== undefined) return refused;
  const { VERSION } = await import('../core/version.js');
  const { resolveHome } = await import('../core/paths.js');
  // No arguments: a client spawning `pincer` (stdin a pipe) gets stdio; a person at a terminal gets help, on stderr.
  if (argv.length === 0) {
    if (!process.stdin.isTTY) argv = ['stdio'];
    else {
      process.stderr.write(help(VERSION) + '\n');
      return 0;
    }
  }
  const [command, ...rest] = argv;
  // `pincer serve --help` too: help, not "unknown option".
  if (command === 'help' || command === '--help' || command === '-h' || rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(help(VERSION) + '\n');
    return 0;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(VERSION + '\n');
    return 0;
  }
  return runCommand(command!, rest, resolveHome());
}

/** One command, its arguments parsed by usage.ts; each command loads only what it needs. */
async function runCommand(command: string, rest: string[], home: string): Promise<number> {
  const { pincerPaths, ensureHome } = await import('../core/paths.js');
  const { parseCommand, noArguments, UsageError } = await import('./usage.js');
  const paths = pincerPaths(home);
  // Whichever command runs first creates the data folder, and creates it private (0700) — once its command line is known good.
  const ready = () => ensureHome(paths);
  switch (command) {
    case 'stdio': {
      try {
        const { values } = await parseCommand('stdio', rest, { standalone: { type: 'boolean', default: false } });
        ready();
        // Each command loads only what it needs: a client waits for the bridge's start.
        if (values.standalone) await (await import('./stdio.js')).runStandaloneStdio(home);
        else await (await import('./bridge.js')).runBridge(home);
      } catch (err) {
        return refuseClient(err);
      }
      return -1;
    }
    case 'serve': {
      const { values } = await parseCommand('serve', rest, {
        quiet: { type: 'boolean', default: false },
        takeover: { type: 'boolean', default: false },
        'if-none': { type: 'boolean', default: false },
        port: { type: 'string' },
        host: { type: 'string' },
      });
      const overrides = (await import('./serve-options.js')).listenOverrides(values);
      if ('error' in overrides) throw new UsageError('serve', overrides.error.replace(/\.$/, ''));
      ready();
      // Before the hub loads anything: a hub not started with its V8 flags restarts itself with them (same pid).
      (await import('../core/node-flags.js')).adoptHubNodeFlags();
      return (await import('./serve.js')).runServe(home, { quiet: values.quiet, takeover: values.takeover, ifNone: values['if-none'], env: overrides.env });
    }
    case 'status':
    case 'stop': {
      await noArguments(command, rest);
      ready();
      const control = await import('./hub-control.js');
      return command === 'status' ? control.runStatus(paths) : control.runStop(paths);
    }
    case 'dashboard': {
      const { values } = await parseCommand('dashboard', rest, { print: { type: 'boolean', default: false } });
      ready();
      return (await import('./dashboard.js')).runDashboard(paths, { print: values.print });
    }
    case 'token': {
      const sub = (await parseCommand('token', rest, {}, 1)).positionals[0];
      if (sub !== undefined && sub !== 'rotate') throw new UsageError('token', `unknown subcommand "${sub}": use "pincer token" or "pincer token rotate"`);
      ready();
      const token = await import('./token.js');
      return sub === 'rotate' ? token.runTokenRotate(paths) : token.runToken(paths);
    }
    case 'connect':
    case 'disconnect': {
      // disconnect takes no --http: it removes whichever entry Pincer has.
      const { values, positionals } = await parseCommand(command, rest, { project: { type: 'string' }, ...(command === 'connect' ? { http: { type: 'boolean' } } : {}) } as const, 1);
      return (await import('./connect-command.js')).runConnect(command, { client: positionals[0], http: values.http === true, project: typeof values.project === 'string' ? values.project : undefined }, home, ready);
    }
    default: {
      const { closest, distance } = await import('fastest-levenshtein');
      const near = closest(command, [...COMMANDS]);
      process.stderr.write(`pincer: unknown command "${command}"${distance(command, near) <= 2 ? ` (did you mean ${near}?)` : ''}. Run "pincer help" for the commands.\n`);
      return 2;
    }
  }
}

/**
 * `pincer stdio` could not start (a mistyped option in the client's config, a data folder that is a file
 * or not the user's): said on stderr as for any command, and — when a client started it (stdin is not a
 * terminal) — answered to each of the client's requests, so the client shows the reason too.
 */
async function refuseClient(err: unknown): Promise<number> {
  const usage = err instanceof Error && err.name === 'UsageError';
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(usage ? `${message}\n` : `pincer: ${message}\n`);
  if (process.stdin.isTTY) return usage ? 2 : 1;
  return (await import('./answer-all.js')).answerEveryRequest(process.stdin, message, usage ? 2 : 1);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    // A usage error (usage.ts) is one line of its own, exit 2; anything else failed while running, exit 1.
    if (err instanceof Error && err.name === 'UsageError') {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`pincer: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
