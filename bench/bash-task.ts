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
  // A failed answer (a result refused by its own schema, a shell that did not start) must not pass for a quick one.
  if (!text.includes('"isError":false')) throw new Error(`Bash ${command} failed: ${text.slice(0, 300)}`);
}

/**
 * What a quick Bash call costs a client of each kind, against the same call from a client of neither
 * extension (Bash spawns the shell itself). For a client of the tasks extension the command runs under a
 * job supervisor (a Node process) so that it can outlive the hub as a task. For a client of MCP Apps Bash
 * runs it itself and keeps its output in memory for the call's job view (live-runs.ts); before that, it
 * ran under a supervisor too: BENCH_BASELINE_PINCER=<build>/dist/main/cli/pincer.js adds that build's hub
 * as one more subject. The subjects take turns call by call. `BENCH_ONLY=bashtask npm run bench`.
 */
export async function benchBashTask(): Promise<string[]> {
  const hub = await startHub();
  const baselinePath = process.env.BENCH_BASELINE_PINCER;
  const baseline = baselinePath ? await startHub({}, baselinePath) : undefined;
  const out: string[] = [];
  try {
    for (const command of ['true', 'echo hello']) {
      const subjects: { row: Row; run: () => Promise<void> }[] = [
        { row: { name: `Bash \`${command}\`, client of the tasks extension (job supervisor)`, samples: [] }, run: () => call(hub, command, 'tasks') },
        { row: { name: `Bash \`${command}\`, client of MCP Apps (output kept for its job view)`, samples: [] }, run: () => call(hub, command, 'apps') },
        ...(baseline ? [{ row: { name: `Bash \`${command}\`, client of MCP Apps, baseline build (job supervisor)`, samples: [] as number[] }, run: () => call(baseline, command, 'apps') }] : []),
        { row: { name: `Bash \`${command}\`, client of neither extension`, samples: [] }, run: () => call(hub, command, undefined) },
      ];
      // Warm every path once (first spawns, statements, JIT).
      for (const s of subjects) await s.run();
      // Each round starts with the next subject, so that none always follows the same one.
      for (let i = 0; i < N; i++) {
        for (let k = 0; k < subjects.length; k++) {
          const s = subjects[(i + k) % subjects.length]!;
          s.row.samples.push(await time(s.run));
        }
      }
      out.push(table(`Bash \`${command}\` answered directly, by the client's extensions (HTTP, 2026-07-28)`, subjects.map((s) => s.row)));
    }
  } finally {
    await hub.stop();
    await baseline?.stop();
  }
  return out;
}
