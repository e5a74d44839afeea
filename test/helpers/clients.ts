import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PINCER_BIN, pincerEnv } from './env.js';

export interface StdioOptions {
  home: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** The official v2 client spawning `pincer stdio --standalone` (or other args). */
export async function connectV2(opts: StdioOptions & { modern?: boolean; capabilities?: Record<string, unknown> }): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PINCER_BIN, ...(opts.args ?? ['stdio', '--standalone'])],
    env: pincerEnv(opts.home, opts.env),
    cwd: opts.cwd ?? opts.home,
    stderr: 'pipe',
  });
  const client = new Client(
    { name: 'pincer-test-v2', version: '1.0.0' },
    { capabilities: opts.capabilities ?? {}, ...(opts.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
  );
  await client.connect(transport);
  return { client, transport };
}

/** The v1 `@modelcontextprotocol/sdk` client most clients in the field still run. */
export async function connectV1(opts: StdioOptions): Promise<{ client: V1Client; transport: V1StdioTransport }> {
  const transport = new V1StdioTransport({
    command: process.execPath,
    args: [PINCER_BIN, ...(opts.args ?? ['stdio', '--standalone'])],
    env: pincerEnv(opts.home, opts.env),
    cwd: opts.cwd ?? opts.home,
    stderr: 'pipe',
  });
  const client = new V1Client({ name: 'pincer-test-v1', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport };
}

export function textOf(result: unknown): string {
  const content = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
  return content.filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n');
}
