import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sharedMatrixHub } from '../helpers/matrix-hub.js';
import { tempHome, waitFor } from '../helpers/env.js';
import { stopHubOf } from '../helpers/hub.js';
import { connectV1, connectV2, contentText } from '../helpers/clients.js';

/**
 * A fired SetCallback must reach the model whatever the client hands it.
 * Claude Code, Codex and Mastra hand the model a result's `structuredContent`
 * when there is one and its content blocks only otherwise; the client below
 * does exactly that. And a client is sent only the notifications it asked for:
 * log messages after `logging/setLevel` (2025 era), none unasked on 2026-07-28.
 */
const ENV = { ASK_REPLY_S: '2' };

/** What a structuredContent-first client (Claude Code, Codex, Mastra) hands its model. */
function modelSees(result: unknown): string {
  const r = result as { structuredContent?: unknown; content?: unknown };
  return r.structuredContent !== undefined ? JSON.stringify(r.structuredContent) : contentText(r.content);
}

interface Connected {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
  /** Every notification the client received, by method. */
  notifications: string[];
  setLoggingLevel?(level: 'info'): Promise<unknown>;
}

/** Records every notification a v2 client receives, whatever its method. */
function recordV2(client: Client): string[] {
  const seen: string[] = [];
  client.fallbackNotificationHandler = async (n) => void seen.push(n.method);
  client.setNotificationHandler('notifications/message', () => void seen.push('notifications/message'));
  return seen;
}

function recordV1(client: V1Client): string[] {
  const seen: string[] = [];
  client.fallbackNotificationHandler = async (n) => void seen.push(n.method);
  return seen;
}

/** Sets a one-shot callback, then calls until a result carries it; returns that result. */
async function fireAndCollect(c: Connected, message: string): Promise<{ structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[] }> {
  const set = await c.callTool({ name: 'SetCallback', arguments: { action: 'set', message, delay_seconds: 1, repeat_count: 1 } });
  assert.match(modelSees(set), /"action":"set"/);
  return waitFor(async () => {
    const r = (await c.callTool({ name: 'ListBgTasks', arguments: {} })) as { structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[] };
    return modelSees(r).includes(message) ? r : undefined;
  }, `the callback "${message}" in a tool result`);
}

describe('a fired callback reaches the model, and only asked-for notifications are sent', { concurrency: 2 }, () => {
  const m = sharedMatrixHub(ENV);
  const auth = () => ({ headers: { Authorization: `Bearer ${m.hub.token}` } });

  const cases: { label: string; modern: boolean; connect: () => Promise<Connected> }[] = [];
  for (const modern of [false, true]) {
    const gen = modern ? '2026-07-28' : '2025-11-25';
    cases.push(
      { label: `${gen} pincer stdio (bridge)`, modern, connect: async () => v2Of((await connectV2({ home: m.home, args: ['stdio'], modern, env: ENV })).client) },
      { label: `${gen} pincer stdio --standalone`, modern, connect: async () => v2Of((await connectV2({ home: m.home, modern, env: ENV })).client) },
      {
        label: `${gen} /mcp`,
        modern,
        connect: async () => {
          const client = new Client({ name: 'notices-http', version: '1' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
          const notifications = recordV2(client);
          await client.connect(new StreamableHTTPClientTransport(new URL(`${m.hub.url}/mcp`), { requestInit: auth() }));
          return { callTool: (p) => client.callTool(p), close: () => client.close(), notifications, setLoggingLevel: modern ? undefined : (l) => client.setLoggingLevel(l) };
        },
      },
    );
  }
  cases.push(
    { label: 'v1 pincer stdio (bridge)', modern: false, connect: async () => v1Of((await connectV1({ home: m.home, args: ['stdio'], env: ENV })).client) },
    {
      label: 'v1 /mcp',
      modern: false,
      connect: async () => {
        const client = new V1Client({ name: 'notices-v1-http', version: '1' });
        const notifications = recordV1(client);
        await client.connect(new V1HttpTransport(new URL(`${m.hub.url}/mcp`), { requestInit: auth() }));
        return { callTool: (p) => client.callTool(p), close: () => client.close(), notifications, setLoggingLevel: (l) => client.setLoggingLevel(l) };
      },
    },
  );

  function v2Of(client: Client): Connected {
    const notifications = recordV2(client);
    const modern = client.getNegotiatedProtocolVersion() === '2026-07-28';
    return { callTool: (p) => client.callTool(p), close: () => client.close(), notifications, setLoggingLevel: modern ? undefined : (l) => client.setLoggingLevel(l) };
  }

  function v1Of(client: V1Client): Connected {
    return { callTool: (p) => client.callTool(p), close: () => client.close(), notifications: recordV1(client), setLoggingLevel: (l) => client.setLoggingLevel(l) };
  }

  for (const c of cases) {
    test(`${c.label}: a client that asked for nothing gets the fire in its next result (text and structuredContent), and no notification`, async () => {
      const client = await c.connect();
      try {
        const message = `notice-${c.label.replace(/\W+/g, '-')}-${Date.now()}`;
        const r = await fireAndCollect(client, message);
        assert.deepEqual(r.structuredContent?.pincer_notices, [`[Callback] Timer fired: ${message}`]);
        assert.equal(r.content[0]!.text, `[Callback] Timer fired: ${message}`);
        assert.ok(Array.isArray(r.structuredContent?.tasks), 'the tool\'s own structured result is still there');
        // Delivered once: the next result carries no notice.
        const next = (await client.callTool({ name: 'ListBgTasks', arguments: {} })) as { structuredContent?: Record<string, unknown> };
        assert.equal(next.structuredContent?.pincer_notices, undefined);
        assert.deepEqual(client.notifications, [], 'no notification the client did not ask for');
      } finally {
        await client.close();
      }
    });
  }

  for (const c of cases.filter((x) => !x.modern)) {
    test(`${c.label}: after logging/setLevel the fire also comes as notifications/message`, async () => {
      const client = await c.connect();
      try {
        await client.setLoggingLevel!('info');
        const message = `logged-${c.label.replace(/\W+/g, '-')}-${Date.now()}`;
        await fireAndCollect(client, message);
        await waitFor(() => client.notifications.includes('notifications/message'), 'the log notification');
      } finally {
        await client.close();
      }
    });
  }
});

test('pincer stdio: a log level the client set is replayed on the next hub, so fires still come as notifications after a hub restart', async () => {
  const h = tempHome();
  const { client } = await connectV2({ home: h.home, args: ['stdio'], env: { HTTP_PORT: 'auto' } });
  try {
    const logs: string[] = [];
    client.setNotificationHandler('notifications/message', (n) => void logs.push(String(n.params.data)));
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'Bash', arguments: { command: 'echo first-hub' } });
    await stopHubOf(h.home, { once: true });
    // The bridge starts the next hub and replays the handshake and the log level there.
    await waitFor(async () => {
      const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo next-hub' } });
      return r.isError ? undefined : r;
    }, 'a call on the next hub');
    await client.callTool({ name: 'SetCallback', arguments: { action: 'set', message: 'after the restart', delay_seconds: 1, repeat_count: 1 } });
    await waitFor(() => logs.includes('[Callback] Timer fired: after the restart') || undefined, 'the fire as a log notification');
  } finally {
    await client.close();
    await stopHubOf(h.home);
    h.cleanup();
  }
});
