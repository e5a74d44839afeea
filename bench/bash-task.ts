import { table, type Row } from './lib.js';
import { startHub, time, type Hub } from './harness.js';

const N = Number(process.env.BENCH_CALLS ?? 50);
const TASKS = 'io.modelcontextprotocol/tasks';

const APPS = 'io.modelcontextprotocol/ui';
const EXTENSIONS = { tasks: { [TASKS]: {} }, apps: { [APPS]: { mimeTypes: ['text/html;profile=mcp-app'] } } };

/** One 2026-07-28 tools/call over HTTP, declaring the tasks extension, MCP Apps or neither (the only difference between the rows). */
async function call(hub: Hub, command: string, ext: keyof typeof EXTENSIONS | undefined): Promise<void> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': ext ? { extensions: EXTENSIONS[ext] } : {},
  };
  const r = await fetch(`${hub.url}/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'Bash' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command }, _meta: meta } }),
  });
  const text = await r.text();
  if (!text.includes('"resultType":"complete"')) throw new Error(`Bash ${command} was not answered directly: ${text.slice(0, 200)}`);
}

/**
 * What answering Bash as a possible task costs (issue 27): for a client of the tasks extension a command
 * runs under a job supervisor (a Node process) so that it can outlive the hub; ended within
 * BASH_TASK_AFTER_MS it is still answered directly. Peer: the same call from a client without the extension
 * (Bash spawns the shell itself). A client of MCP Apps pays the same for its job view (the job is what the
 * view follows). `BENCH_ONLY=bashtask npm run bench`.
 */
export async function benchBashTask(): Promise<string[]> {
  const hub = await startHub();
  const rows: Row[] = [
    { name: 'Bash `true`, client of the tasks extension (job supervisor)', samples: [] },
    { name: 'Bash `true`, client of MCP Apps (job supervisor, for its job view)', samples: [] },
    { name: 'Bash `true`, client without either extension', samples: [] },
  ];
  try {
    for (let i = 0; i < N; i++) {
      rows[0]!.samples.push(await time(() => call(hub, 'true', 'tasks')));
      rows[1]!.samples.push(await time(() => call(hub, 'true', 'apps')));
      rows[2]!.samples.push(await time(() => call(hub, 'true', undefined)));
    }
  } finally {
    await hub.stop();
  }
  return [table('Bash answered directly: job supervisor vs in-process spawn (HTTP, 2026-07-28)', rows)];
}
