#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { resolveHome } from '../core/paths.js';
import { VERSION } from '../core/version.js';
import { runStandaloneStdio } from './stdio.js';

const HELP = `pincer ${VERSION} — local tools for AI clients over MCP

Usage:
  pincer stdio --standalone   serve MCP over stdio, the whole server in this process
  pincer --version            print the version

Data directory: $PINCER_HOME (default ~/.pincer)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(VERSION + '\n');
    return 0;
  }
  const home = resolveHome();
  switch (command) {
    case 'stdio': {
      const { values } = parseArgs({ args: rest, options: { standalone: { type: 'boolean', default: false } }, strict: true });
      await runStandaloneStdio(home);
      void values;
      return -1;
    }
    default:
      process.stderr.write(`pincer: unknown command "${command}". Run "pincer --help" for the commands.\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`pincer: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
