// The floor for an SDK-based server: the official SDK v2 with an echo tool and a bare shell tool, over stdio or Streamable HTTP.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { z } from 'zod';

function server(): McpServer {
  const s = new McpServer({ name: 'minimal', version: '1.0.0' });
  s.registerTool('echo', { description: 'Echo the text', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  // The least a shell tool can do: run the command with bash, answer with its output.
  s.registerTool('shell', { description: 'Run a bash command', inputSchema: z.object({ command: z.string() }) }, (args) => {
    return new Promise((resolve) =>
      execFile('bash', ['-c', args.command], (err, stdout, stderr) => resolve({ content: [{ type: 'text', text: stdout + stderr }], isError: err !== null })),
    );
  });
  return s;
}

if (process.argv[2] === 'http') {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const srv = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const sid = req.headers['mcp-session-id'] as string | undefined;
    let t = sid ? sessions.get(sid) : undefined;
    if (!t) {
      t = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void sessions.set(id, t!) });
      t.onclose = () => t!.sessionId && sessions.delete(t!.sessionId);
      await server().connect(t);
    }
    await t.handleRequest(req, res, body);
  });
  srv.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => process.stdout.write(`${(srv.address() as { port: number }).port}\n`));
} else {
  serveStdio(() => server());
}
