import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import sharp from 'sharp';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { sharedMatrixHub } from '../helpers/matrix-hub.js';
import { PINCER_BIN, pincerEnv } from '../helpers/env.js';
import { contentText, runScenario, type DrivenClient } from '../helpers/clients.js';

/**
 * LangChain's MCP adapters (`@langchain/mcp-adapters`, on SDK v1, so
 * 2025-11-25): tools as LangChain tools, invoked as an agent invokes them.
 * A tool result with isError comes back as a thrown ToolException, which
 * LangChain agents hand to the model as the tool's message.
 */
const ENV = { ASK_REPLY_S: '2' };

type Connection = ConstructorParameters<typeof MultiServerMCPClient>[0] extends infer C ? (C extends { mcpServers: Record<string, infer S> } ? S : never) : never;

function drivenLangChain(label: string, connection: Connection): { driven: DrivenClient; client: MultiServerMCPClient } {
  const client = new MultiServerMCPClient({ mcpServers: { pincer: connection }, throwOnLoadError: true, prefixToolNameWithServerName: false, useStandardContentBlocks: true });
  const tools = () => client.getTools();
  const driven: DrivenClient = {
    label,
    listTools: async () => (await tools()).map((t) => t.name),
    async call(name, args) {
      const tool = (await tools()).find((t) => t.name === name);
      assert.ok(tool, `LangChain made no tool ${name}`);
      try {
        return { text: contentText(await tool.invoke(args)), isError: false };
      } catch (err) {
        return { text: (err as Error).message, isError: true };
      }
    },
    resources: {
      list: async () => ((await client.listResources('pincer')).pincer ?? []).map((r) => r.uri),
      read: async (uri) => (await client.readResource('pincer', uri)).map((c) => c.text ?? '').join('\n'),
    },
    close: () => client.close(),
  };
  return { driven, client };
}

describe('LangChain MCP adapters', { concurrency: 4 }, () => {
  const m = sharedMatrixHub(ENV);

  const cases: [string, () => Connection][] = [
    ['pincer stdio (bridge)', () => ({ transport: 'stdio', command: process.execPath, args: [PINCER_BIN, 'stdio'], env: pincerEnv(m.home, ENV), cwd: m.home })],
    ['pincer stdio --standalone', () => ({ transport: 'stdio', command: process.execPath, args: [PINCER_BIN, 'stdio', '--standalone'], env: pincerEnv(m.home, ENV), cwd: m.home })],
    ['/mcp', () => ({ transport: 'http', url: `${m.hub.url}/mcp`, headers: { Authorization: `Bearer ${m.hub.token}` } })],
    ['/sse', () => ({ transport: 'sse', url: `${m.hub.url}/sse`, headers: { Authorization: `Bearer ${m.hub.token}` } })],
  ];
  for (const [label, connection] of cases) {
    test(`scenario over ${label}`, async (t) => {
      const { driven } = drivenLangChain(`langchain ${label}`, connection());
      try {
        await runScenario(t, driven, m.opts);
      } finally {
        await driven.close();
      }
    });
  }

  test('ReadImage: the image is in the tool message the model reads', async () => {
    const file = path.join(m.home, 'dot.png');
    await sharp({ create: { width: 8, height: 4, channels: 3, background: '#00ff00' } }).png().toFile(file);
    const { client } = drivenLangChain('langchain image', cases[2]![1]());
    const tool = (await client.getTools()).find((t) => t.name === 'ReadImage')!;
    // What an agent puts in the ToolMessage: invoked with a tool call, the content blocks.
    const message = (await tool.invoke({ type: 'tool_call', id: 'img', name: 'ReadImage', args: { file_path: file } })) as { content: { type: string; mimeType?: string; mime_type?: string }[] };
    assert.ok(
      message.content.some((b) => b.type === 'image' && (b.mimeType ?? b.mime_type) === 'image/png'),
      JSON.stringify(message.content).slice(0, 300),
    );
    await client.close();
  });
});
