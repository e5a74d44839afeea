import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as GeminiSdkClient } from 'mcp-sdk-gemini/client/index.js';
import { StreamableHTTPClientTransport as GeminiSdkHttp } from 'mcp-sdk-gemini/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { startHubProcess, type HubProcess } from '../helpers/hub.js';
import { tempHome, waitFor } from '../helpers/env.js';
import { connectV2, closeStdioClient, textOf } from '../helpers/clients.js';

/**
 * A plugin tool whose output schema is closed (`additionalProperties: false`) gets results that still
 * validate when a reminder is pending: the clients' own validation (SDK v2 on both generations, the
 * SDK v1 client Claude Code runs, the SDK 1.23.0 Gemini CLI pins) accepts every result, and the fire
 * stays undelivered until a result that can carry it in its structured content goes out.
 */

// The closed shapes as the libraries that make them emit them: zod's .strict(), and pydantic's
// `extra="forbid"` (title, properties, required, additionalProperties: false).
const ZOD_CLOSED = z.toJSONSchema(z.object({ count: z.number() }).strict());
const PYDANTIC_CLOSED = { additionalProperties: false, properties: { count: { title: 'Count', type: 'integer' } }, required: ['count'], title: 'Out', type: 'object' };
const OPEN = { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] };

const PLUGIN = `export default {
  tools: [
    { name: 'closed.zod', description: 'A closed output schema (zod .strict())', inputSchema: { type: 'object' }, outputSchema: ${JSON.stringify(ZOD_CLOSED)}, handler: () => ({ count: 1 }) },
    { name: 'closed.pydantic', description: 'A closed output schema (pydantic extra=forbid)', inputSchema: { type: 'object' }, outputSchema: ${JSON.stringify(PYDANTIC_CLOSED)}, handler: () => ({ count: 2 }) },
    { name: 'open.count', description: 'An open output schema', inputSchema: { type: 'object' }, outputSchema: ${JSON.stringify(OPEN)}, handler: () => ({ count: 3 }) },
    { name: 'closed.wrong', description: 'Returns what its schema forbids', inputSchema: { type: 'object' }, outputSchema: ${JSON.stringify(ZOD_CLOSED)}, handler: () => ({ count: 'four', extra: true }) },
  ],
};
`;

type Result = { structuredContent?: Record<string, unknown>; content: unknown; isError?: boolean; _meta?: Record<string, unknown> };

interface Connected {
  label: string;
  listTools(): Promise<unknown>;
  callTool(name: string, args?: Record<string, unknown>): Promise<Result>;
  close(): Promise<void>;
}

function fireState(home: string, message: string): { delivered: number } | undefined {
  const db = new Database(path.join(home, 'pincer.db'), { readonly: true });
  try {
    return db.prepare('SELECT delivered FROM callback_fires WHERE message = ?').get(message) as { delivered: number } | undefined;
  } finally {
    db.close();
  }
}

describe('closed output schemas and pending notices', { concurrency: 2 }, () => {
  const h = tempHome();
  let hub: HubProcess;
  before(async () => {
    fs.mkdirSync(path.join(h.home, 'plugins'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(h.home, 'plugins', 'shapes.mjs'), PLUGIN, { mode: 0o600 });
    hub = await startHubProcess(h.home);
  });
  after(async () => {
    await hub?.stop();
    h.cleanup();
  });
  const auth = () => ({ headers: { Authorization: `Bearer ${hub.token}` } });

  const v2 = (label: string, client: Client, close: () => Promise<void>): Connected => ({
    label,
    listTools: () => client.listTools(),
    callTool: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as Result,
    close,
  });
  const clients: { label: string; connect(): Promise<Connected> }[] = [];
  for (const modern of [false, true]) {
    const gen = modern ? '2026-07-28' : '2025-11-25';
    const pin = modern ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {};
    clients.push({
      label: `SDK v2 ${gen} /mcp`,
      connect: async () => {
        const client = new Client({ name: 'closed-schema', version: '1' }, pin);
        await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: auth() }));
        return v2(`SDK v2 ${gen} /mcp`, client, () => client.close());
      },
    });
    clients.push({
      label: `SDK v2 ${gen} pincer stdio`,
      connect: async () => {
        const c = await connectV2({ home: h.home, args: ['stdio'], modern });
        return v2(`SDK v2 ${gen} pincer stdio`, c.client, () => closeStdioClient(c));
      },
    });
  }
  // The SDK v1 client Claude Code runs, and the SDK 1.23.0 Gemini CLI pins: the same API, each validating itself.
  type SdkV1Like = { listTools(): Promise<unknown>; callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>; close(): Promise<void> };
  const v1Style = (label: string, open: (url: URL, requestInit: RequestInit) => Promise<SdkV1Like>) =>
    clients.push({
      label,
      connect: async () => {
        const client = await open(new URL(`${hub.url}/mcp`), auth());
        return { label, listTools: () => client.listTools(), callTool: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as Result, close: () => client.close() };
      },
    });
  v1Style('SDK v1 (Claude Code) /mcp', async (url, requestInit) => {
    const client = new V1Client({ name: 'closed-schema-v1', version: '1' });
    await client.connect(new V1HttpTransport(url, { requestInit }));
    return client;
  });
  v1Style('SDK 1.23.0 (Gemini CLI) /mcp', async (url, requestInit) => {
    const client = new GeminiSdkClient({ name: 'gemini-cli-mcp-client', version: '0.0.1' });
    await client.connect(new GeminiSdkHttp(url, { requestInit }));
    return client;
  });

  test('the published closed schemas really refuse an added key (what the clients threw on before)', async () => {
    const c = await clients[0]!.connect();
    try {
      const { tools } = (await c.listTools()) as { tools: { name: string; outputSchema?: Record<string, unknown> }[] };
      const validator = new AjvJsonSchemaValidator();
      for (const name of ['closed.zod', 'closed.pydantic']) {
        const schema = tools.find((t) => t.name === name)?.outputSchema;
        assert.ok(schema, `${name} publishes its output schema`);
        assert.equal(schema.additionalProperties, false, `${name}'s schema is published as written`);
        const check = validator.getValidator(schema as never);
        assert.equal(check({ count: 1 }).valid, true);
        assert.equal(check({ count: 1, pincer_notices: ['x'] }).valid, false);
      }
    } finally {
      await c.close();
    }
  });

  for (const entry of clients) {
    test(`${entry.label}: closed-schema results validate with a reminder pending; the reminder comes in the next result that can carry it`, async () => {
      const c = await entry.connect();
      try {
        // The clients validate against the schemas they cached from tools/list.
        await c.listTools();
        const message = `closed-${entry.label.replace(/\W+/g, '-')}-${Date.now()}`;
        await c.callTool('SetCallback', { action: 'set', message, delay_seconds: 1, repeat_count: 1 });
        await waitFor(() => fireState(h.home, message), `the callback "${message}" to fire`);

        for (const [name, count] of [['closed.zod', 1], ['closed.pydantic', 2]] as const) {
          const r = await c.callTool(name);
          assert.equal(r.isError, undefined, `${name}: ${textOf(r)}`);
          assert.deepEqual(r.structuredContent, { count });
          assert.equal(fireState(h.home, message)?.delivered, 0, `${name}: the fire is not counted delivered in a result that could not carry it`);
        }

        const open = await c.callTool('open.count');
        assert.equal(open.isError, undefined, textOf(open));
        assert.deepEqual(open.structuredContent, { count: 3, pincer_notices: [`[Callback] Timer fired: ${message}`] });
        assert.match(textOf(open), new RegExp(`^\\[Callback\\] Timer fired: ${message}`));
        assert.deepEqual(open._meta?.['dev.pincer/notices'], [`[Callback] Timer fired: ${message}`]);
        assert.equal(fireState(h.home, message)?.delivered, 1, 'delivered once it went out in a result that validates');

        const again = await c.callTool('open.count');
        assert.deepEqual(again.structuredContent, { count: 3 }, 'delivered once');

        const wrong = await c.callTool('closed.wrong');
        assert.equal(wrong.isError, true);
        assert.match(textOf(wrong), /^closed\.wrong returned a result that does not match the outputSchema it publishes: .+Fix the tool's handler or its outputSchema\.$/s);
      } finally {
        await c.close();
      }
    });
  }
});
