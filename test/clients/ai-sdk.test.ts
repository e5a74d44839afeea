import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import sharp from 'sharp';
import { createMCPClient, ElicitationRequestSchema, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { sharedMatrixHub } from '../helpers/matrix-hub.js';
import { PINCER_BIN, pincerEnv } from '../helpers/env.js';
import { contentText, runScenario, type DrivenClient } from '../helpers/clients.js';

/**
 * The Vercel AI SDK's MCP client (`@ai-sdk/mcp` 2.x), as an agent built on it
 * runs tools: `client.tools()` and each tool's `execute`, whose output goes to
 * the model through `toModelOutput`. With protocol discovery on (its default)
 * it speaks 2026-07-28; off, it does the 2025 initialize handshake.
 */
// The AI SDK waits only 1 s for its server/discover probe over stdio, then falls back to initialize
// (2025-11-25). Both `pincer stdio` forms answer the probe before anything slow: the bridge before it
// has reached the hub, a standalone one before it has loaded the server (main/cli/early-discover.ts).
// That is a time, measured in bench/ (`BENCH_ONLY=discover`, bench/RESULTS.md); a loaded machine can
// take longer than 1 s just to start Node, so here the stdio transport waits for the answer as the
// SDK's HTTP transports do (its waitsForProtocolVersionDiscovery), and the test checks what is negotiated.
const ENV = { ASK_REPLY_S: '2' };

type ToolSet = Awaited<ReturnType<MCPClient['tools']>>;
type CallResult = { content?: unknown; isError?: boolean };

async function execute(tools: ToolSet, name: string, args: Record<string, unknown>): Promise<CallResult> {
  const tool = tools[name];
  assert.ok(tool?.execute, `the AI SDK made no tool ${name}`);
  return (await tool.execute(args, { toolCallId: `call-${name}`, messages: [], context: {} })) as CallResult;
}

function drivenAiSdk(label: string, client: MCPClient): DrivenClient {
  let tools: ToolSet | undefined;
  return {
    label,
    listTools: async () => Object.keys((tools = await client.tools())),
    async call(name, args) {
      tools ??= await client.tools();
      const r = await execute(tools, name, args);
      return { text: contentText(r.content), isError: r.isError === true };
    },
    resources: {
      list: async () => (await client.listResources()).resources.map((r) => r.uri),
      read: async (uri) => (await client.readResource({ uri })).contents.map((c) => ('text' in c ? String(c.text) : '')).join('\n'),
    },
    prompts: {
      list: async () => (await client.listPrompts()).prompts.map((p) => p.name),
      get: async (name, args) => (await client.getPrompt({ name, arguments: args })).messages.map((m) => contentText([m.content])).join('\n'),
    },
    close: () => client.close(),
  };
}

describe('Vercel AI SDK MCP client', { concurrency: 4 }, () => {
  const m = sharedMatrixHub(ENV);

  const stdio = (standalone: boolean) =>
    Object.assign(new StdioMCPTransport({ command: process.execPath, args: [PINCER_BIN, 'stdio', ...(standalone ? ['--standalone'] : [])], env: pincerEnv(m.home, ENV), cwd: m.home }), { waitsForProtocolVersionDiscovery: true });
  const http = (type: 'http' | 'sse', endpoint: string) => ({ type, url: `${m.hub.url}${endpoint}`, headers: { Authorization: `Bearer ${m.hub.token}` } });

  const cases: { label: string; modern: boolean; negotiates?: string; transport: () => Parameters<typeof createMCPClient>[0]['transport'] }[] = [];
  for (const modern of [false, true]) {
    const gen = modern ? '2026-07-28' : '2025-11-25';
    cases.push(
      { label: `${gen} pincer stdio (bridge)`, modern, transport: () => stdio(false) },
      { label: `${gen} pincer stdio --standalone`, modern, transport: () => stdio(true) },
      { label: `${gen} /mcp`, modern, transport: () => http('http', '/mcp') },
    );
  }
  // The 2024-11-05 HTTP+SSE transport, carrying the AI SDK's 2025-11-25 protocol.
  cases.push({ label: 'HTTP+SSE /sse', modern: false, negotiates: '2025-11-25', transport: () => http('sse', '/sse') });

  for (const c of cases) {
    test(`scenario over ${c.label}`, async (t) => {
      const client = await createMCPClient({ transport: c.transport(), protocolVersionDiscovery: c.modern, clientName: 'matrix-ai-sdk' });
      try {
        const want = c.negotiates ?? c.label.slice(0, 10);
        await t.test(`ai-sdk ${c.label}: negotiates ${want}`, () => {
          assert.equal(client.initializeResult.protocolVersion, want);
        });
        await runScenario(t, drivenAiSdk(`ai-sdk ${c.label}`, client), m.opts);
      } finally {
        await client.close();
      }
    });
  }

  test('ReadImage: the image reaches the model (toModelOutput), with schemas automatic and declared', async () => {
    const file = path.join(m.home, 'dot.png');
    await sharp({ create: { width: 8, height: 4, channels: 3, background: '#ff0000' } }).png().toFile(file);
    for (const modern of [false, true]) {
      const client = await createMCPClient({ transport: http('http', '/mcp'), protocolVersionDiscovery: modern });
      // Declared schemas are what makes the AI SDK prefer structuredContent; ReadImage declares no output schema.
      const declared = await client.tools({ schemas: { ReadImage: { inputSchema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } as never } } });
      for (const tools of [await client.tools(), declared]) {
        const tool = tools.ReadImage!;
        const output = await tool.execute!({ file_path: file }, { toolCallId: 'img', messages: [], context: {} });
        const model = (await tool.toModelOutput!({ toolCallId: 'img', input: { file_path: file }, output: output as never })) as { type: string; value: { type: string; mediaType?: string }[] };
        assert.equal(model.type, 'content');
        assert.ok(model.value.some((p) => p.type === 'file' && p.mediaType === 'image/png'), JSON.stringify(model).slice(0, 300));
      }
      await client.close();
    }
  });

  test('with elicitation the AI SDK client answers AskUserQuestion itself (2025-11-25)', async () => {
    const client = await createMCPClient({ transport: http('http', '/mcp'), protocolVersionDiscovery: false, capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.onElicitationRequest(ElicitationRequestSchema, (req) => {
      asked.push(req.params.message);
      const field = Object.keys((req.params.requestedSchema as { properties: Record<string, unknown> }).properties)[0]!;
      return { action: 'accept', content: { [field]: 'yes' } };
    });
    const tools = await client.tools();
    const r = await execute(tools, 'AskUserQuestion', { questions_json: JSON.stringify({ questions: [{ text: 'Ship it?', options: ['yes', 'no'] }] }) });
    assert.deepEqual(asked, ['Ship it?']);
    assert.match(contentText(r.content), /The person answered:\n- Ship it\?\n  → yes/);
    await client.close();
  });
});
