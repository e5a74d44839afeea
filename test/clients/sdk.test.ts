import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport, SSEClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport as V1SseTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ElicitRequestSchema as V1ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { sharedMatrixHub } from '../helpers/matrix-hub.js';
import { waitFor } from '../helpers/env.js';
import { connectV1, connectV2, drivenSdk, runScenario, textOf, type DrivenClient } from '../helpers/clients.js';

/**
 * The official SDK clients, v2 (`@modelcontextprotocol/client`, both protocol
 * generations) and v1 (`@modelcontextprotocol/sdk`), over every transport:
 * `pincer stdio` relaying to the hub, `pincer stdio --standalone`, the hub's
 * /mcp and its /sse. One hub for the whole file.
 */
const ENV = { ASK_REPLY_S: '2' };

function authFetch(token: string) {
  return (url: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(url, { ...init, headers });
  };
}

describe('official SDK clients, every transport and protocol generation', { concurrency: 4 }, () => {
  const m = sharedMatrixHub(ENV);

  const auth = () => ({ headers: { Authorization: `Bearer ${m.hub.token}` } });
  const cases: { label: string; connect: () => Promise<DrivenClient> }[] = [];
  for (const modern of [false, true]) {
    const gen = modern ? '2026-07-28' : '2025-11-25';
    cases.push(
      {
        label: `v2 ${gen} pincer stdio (bridge)`,
        connect: async () => drivenSdk(`v2 ${gen} bridge`, (await connectV2({ home: m.home, args: ['stdio'], modern, env: ENV })).client),
      },
      {
        label: `v2 ${gen} pincer stdio --standalone`,
        connect: async () => drivenSdk(`v2 ${gen} standalone`, (await connectV2({ home: m.home, modern, env: ENV })).client),
      },
      {
        label: `v2 ${gen} /mcp`,
        connect: async () => {
          const client = new Client({ name: 'matrix-v2-http', version: '1' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
          await client.connect(new StreamableHTTPClientTransport(new URL(`${m.hub.url}/mcp`), { requestInit: auth() }));
          assert.equal(client.getNegotiatedProtocolVersion(), gen);
          return drivenSdk(`v2 ${gen} http`, client);
        },
      },
    );
  }
  cases.push(
    {
      label: 'v2 2024-11-05 /sse',
      connect: async () => {
        const client = new Client({ name: 'matrix-v2-sse', version: '1' });
        await client.connect(new SSEClientTransport(new URL(`${m.hub.url}/sse`), { requestInit: auth(), eventSourceInit: { fetch: authFetch(m.hub.token) } }));
        return drivenSdk('v2 sse', client);
      },
    },
    { label: 'v1 pincer stdio (bridge)', connect: async () => drivenSdk('v1 bridge', (await connectV1({ home: m.home, args: ['stdio'], env: ENV })).client) },
    { label: 'v1 pincer stdio --standalone', connect: async () => drivenSdk('v1 standalone', (await connectV1({ home: m.home, env: ENV })).client) },
    {
      label: 'v1 /mcp',
      connect: async () => {
        const client = new V1Client({ name: 'matrix-v1-http', version: '1' });
        await client.connect(new V1HttpTransport(new URL(`${m.hub.url}/mcp`), { requestInit: auth() }));
        return drivenSdk('v1 http', client);
      },
    },
    {
      label: 'v1 /sse',
      connect: async () => {
        const client = new V1Client({ name: 'matrix-v1-sse', version: '1' });
        await client.connect(new V1SseTransport(new URL(`${m.hub.url}/sse`), { requestInit: auth(), eventSourceInit: { fetch: authFetch(m.hub.token) } }));
        return drivenSdk('v1 sse', client);
      },
    },
  );

  for (const c of cases) {
    test(c.label, async (t) => {
      const client = await c.connect();
      try {
        await runScenario(t, client, m.opts);
      } finally {
        await client.close();
      }
    });
  }

  test('v2 client with elicitation answers AskUserQuestion in its own form (2025-11-25, /mcp)', async () => {
    const client = new Client({ name: 'matrix-v2-elicit', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (req) => {
      asked.push(req.params.message);
      const field = Object.keys((req.params as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema.properties)[0]!;
      return { action: 'accept', content: { [field]: 'yes' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${m.hub.url}/mcp`), { requestInit: auth() }));
    const r = await client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify({ questions: [{ text: 'Elicit me?', options: ['yes', 'no'] }] }) } });
    assert.deepEqual(asked, ['Elicit me?']);
    assert.match(textOf(r), /The person answered:\n- Elicit me\?\n  → yes/);
    await client.close();
  });

  for (const where of ['/mcp', 'pincer stdio --standalone'] as const) {
    test(`v2 client on 2026-07-28 answers AskUserQuestion in its own form through an input_required round trip (${where})`, async () => {
      const capabilities = { elicitation: { form: {} } };
      let client: Client;
      if (where === '/mcp') {
        client = new Client({ name: 'matrix-v2-mrtr', version: '1' }, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${m.hub.url}/mcp`), { requestInit: auth() }));
      } else client = (await connectV2({ home: m.home, modern: true, env: ENV, capabilities })).client;
      try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const asked: string[] = [];
      client.setRequestHandler('elicitation/create', (req) => {
        asked.push(req.params.message);
        const field = Object.keys((req.params as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema.properties)[0]!;
        return { action: 'accept', content: { [field]: 'no' } };
      });
      const question = `Round trip over ${where}?`;
      const r = await client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify({ questions: [{ text: question, options: ['yes', 'no'] }] }) } });
      assert.deepEqual(asked, [question]);
      assert.match(textOf(r), /The person answered:\n- Round trip over .*\n  → no/);
      const id = (r.structuredContent as { question_id: number }).question_id;
      // The record says the client answered.
      const history = (await (await fetch(`${m.hub.url}/api/questions`, { headers: m.hub.headers() })).json()) as { history: { id: number; status: string; answer: { via: string } | string }[] };
      const row = history.history.find((q) => q.id === id)!;
      assert.equal(row.status, 'answered');
      assert.equal(typeof row.answer === 'string' ? JSON.parse(row.answer).via : row.answer.via, 'client');
      } finally {
        await client.close();
      }
    });
  }

  test('2026-07-28: when the dashboard answers first, its answer stands and the form answer is withdrawn', async () => {
    const client = new Client({ name: 'matrix-v2-race', version: '1' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${m.hub.url}/mcp`), { requestInit: auth() }));
    const question = 'Who answers first?';
    client.setRequestHandler('elicitation/create', async (req) => {
      // The person answers in the dashboard while the client's form is still open.
      const pending = await waitFor(async () => {
        const body = (await (await fetch(`${m.hub.url}/api/questions`, { headers: m.hub.headers() })).json()) as { pending: { id: number; questions: { question: string }[] }[] };
        return body.pending.find((q) => q.questions[0]!.question === question);
      }, 'the question in the dashboard');
      const answered = await fetch(`${m.hub.url}/api/questions/${pending.id}/answer`, { method: 'POST', headers: m.hub.headers(), body: JSON.stringify({ answers: [{ question, selected: 'dashboard' }] }) });
      assert.equal(answered.status, 200);
      const field = Object.keys((req.params as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema.properties)[0]!;
      return { action: 'accept', content: { [field]: 'form' } };
    });
    const r = await client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify({ questions: [{ text: question, options: ['dashboard', 'form'] }] }) } });
    assert.match(textOf(r), /→ dashboard/);
    assert.doesNotMatch(textOf(r), /→ form/);
    await client.close();
  });

  test('v1 client with elicitation answers AskUserQuestion in its own form (pincer stdio)', async () => {
    const { client } = await connectV1({ home: m.home, args: ['stdio'], env: ENV, capabilities: { elicitation: {} } });
    client.setRequestHandler(V1ElicitRequestSchema, (req) => {
      const schema = (req.params as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema;
      return { action: 'accept', content: { [Object.keys(schema.properties)[0]!]: 'no' } };
    });
    const r = await client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify({ questions: [{ text: 'Elicit v1?', options: ['yes', 'no'] }] }) } });
    assert.match(textOf(r), /The person answered:\n- Elicit v1\?\n  → no/);
    await client.close();
  });
});
