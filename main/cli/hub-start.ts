import { describeNode, INSTALL_NODE, MIN_NODE, runningNode, supportedNodeAtHand, tooOldMessage, type NodeAt } from '../core/node-version.js';

// Builtins through getBuiltinModule: see hub-client.ts (this module is on the bridge's path).
const fs = process.getBuiltinModule('node:fs');
const { constants } = process.getBuiltinModule('node:os');

/** Why the hub could not start: its own words, as `pincer serve` wrote them to hub-start.log. */
export class HubStartError extends Error {
  readonly code = 'HUB_START_FAILED';
  constructor(
    message: string,
    readonly logFile: string,
  ) {
    super(message);
  }
}

/**
 * The Node to start the hub with: the bridge's own when it can run Pincer, else the checkout's
 * pinned one (a client config that says `"command": "node"` on a machine whose `node` is too
 * old). `note` is the one line the bridge logs when it had to fall back. Throws, naming both
 * Nodes and what to do, when none can: a hub started anyway would only crash in native code.
 */
export async function hubNode(logFile: string): Promise<{ node: NodeAt; note?: string }> {
  const node = await supportedNodeAtHand();
  const running = runningNode();
  if (node === undefined) {
    throw new HubStartError(`${tooOldMessage(running, 'the Pincer hub', `point the client's config at a newer Node ("command": "/path/to/node"; "pincer connect <client>" writes one), or ${INSTALL_NODE}`)}`, logFile);
  }
  if (node.path === running.path) return { node };
  return { node, note: `the client started Pincer with ${describeNode(running)}, older than it needs (${MIN_NODE}); the hub runs on ${describeNode(node)}. Point the client at that Node ("pincer connect <client>" does) to skip this.` };
}

/** How a process ended, in words: "exited with code 1", "was ended by SIGKILL", "crashed (SIGSEGV)". */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal !== null) {
    const crash = signal === 'SIGSEGV' || signal === 'SIGBUS' || signal === 'SIGILL' || signal === 'SIGABRT' || signal === 'SIGFPE';
    return crash ? `crashed (${signal})` : `was ended by ${signal}`;
  }
  if (code !== null && code > 128 && process.platform !== 'win32') {
    // A shell or wrapper in between reports a signal as 128 + its number.
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
    if (name) return `exited with code ${code} (${name})`;
  }
  return `exited with code ${code ?? 'none'}`;
}

/**
 * Why a hub this bridge started did not come up: how it ended and the last lines it wrote to
 * hub-start.log in this attempt (without the "pincer serve:" prefix), or that it wrote none.
 */
export function startFailure(logFile: string, from: number, ended: string): string {
  let text = '';
  try {
    const fd = fs.openSync(logFile, 'r');
    try {
      const size = Math.min(fs.fstatSync(fd).size - from, 8192);
      const buf = Buffer.alloc(Math.max(0, size));
      fs.readSync(fd, buf, 0, buf.length, from);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Unreadable log: how it ended still says something.
  }
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.replace(/^pincer serve:\s*/, '').trim())
    .filter((l) => l !== '');
  if (lines.length === 0) return `it ${ended} without writing anything (${logFile} has nothing from this start)`;
  return `it ${ended}: ${lines.slice(-5).join(' | ')} (from ${logFile})`;
}
