import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as GeminiSdkClient } from 'mcp-sdk-gemini/client/index.js';
import { StreamableHTTPClientTransport as GeminiSdkHttp } from 'mcp-sdk-gemini/client/streamableHttp.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sharedMatrixHub } from '../helpers/matrix-hub.js';
import { waitFor } from '../helpers/env.js';
import { drivenSdk, runScenario, textOf } from '../helpers/clients.js';

/**
 * Streamable HTTP resumption as Gemini CLI drives it. Gemini CLI 0.61 bundles
 * @modelcontextprotocol/sdk 1.23.0 (installed here as `mcp-sdk-gemini`), whose
 * client resumes every SSE answer that carried an event id once it ends — even
 * after the answer arrived — with `GET /mcp` and `Last-Event-ID`, and sends a
 * plain GET when such a resumed stream ends. A call longer than
 * HTTP_STREAM_AFTER_MS (100 ms) is answered as SSE, so every such call runs
 * this sequence. Whatever the client reports through `onerror`, Gemini CLI
 * prints as "MCP ERROR": it must stay empty.
 */
interface Seen {
  method: string;
  lastEventId?: string;
  status: number;
}

/** A fetch that adds the token and records every request the transport makes, with its answer's status. */
function recordingFetch(token: string, seen: Seen[]) {
  return async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    const r = await fetch(url, { ...init, headers });
    seen.push({ method: init?.method ?? 'GET', lastEventId: headers.get('last-event-id') ?? undefined, status: r.status });
    return r;
  };
}

type AnyClient = { callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>; close(): Promise<void>; onerror?: (e: Error) => void };

const clients: { label: string; connect(url: URL, fetchFn: ReturnType<typeof recordingFetch>): Promise<AnyClient> }[] = [
  {
    label: 'Gemini CLI 0.61 (@modelcontextprotocol/sdk 1.23.0)',
    async connect(url, fetchFn) {
      const c = new GeminiSdkClient({ name: 'gemini-cli-mcp-client', version: '0.61.0' });
      await c.connect(new GeminiSdkHttp(url, { fetch: fetchFn }));
      return c;
    },
  },
  {
    label: '@modelcontextprotocol/sdk (latest v1)',
    async connect(url, fetchFn) {
      const c = new V1Client({ name: 'v1-latest', version: '1' });
      await c.connect(new V1Http(url, { fetch: fetchFn }));
      return c;
    },
  },
  {
    label: '@modelcontextprotocol/client (v2)',
    async connect(url, fetchFn) {
      const c = new Client({ name: 'v2', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(url, { fetch: fetchFn }));
      return c;
    },
  },
];

describe('Streamable HTTP resumption, as the SDKs resume', { concurrency: 1 }, () => {
  const m = sharedMatrixHub({ ASK_REPLY_S: '2' });

  test('Gemini CLI 0.61 (@modelcontextprotocol/sdk 1.23.0) over /mcp: the client matrix scenario', async (t) => {
    const errors: string[] = [];
    const client = new GeminiSdkClient({ name: 'gemini-cli-mcp-client', version: '0.61.0' });
    client.onerror = (e) => void errors.push(e.message);
    await client.connect(new GeminiSdkHttp(new URL(`${m.hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${m.hub.token}` } } }));
    try {
      await runScenario(t, drivenSdk('gemini-sdk-1.23 http', client), m.opts);
      assert.deepEqual(errors, [], 'nothing Gemini CLI would print as "MCP ERROR"');
    } finally {
      await client.close();
    }
  });

  for (const c of clients) {
    test(`${c.label}: calls longer than 100 ms, their resumption GETs and the plain GET after them raise no error`, async () => {
      const seen: Seen[] = [];
      const errors: string[] = [];
      const client = await c.connect(new URL(`${m.hub.url}/mcp`), recordingFetch(m.hub.token, seen));
      client.onerror = (e) => void errors.push(e.message);
      try {
        // Five long calls: more resumed streams than a session keeps open idle (4), so the oldest is
        // ended and the client follows up the way Gemini CLI did, with a plain GET.
        for (let i = 0; i < 5; i++) {
          const r = await client.callTool({ name: 'Bash', arguments: { command: `sleep 0.3; echo long-${i}` } });
          assert.equal(textOf(r), `long-${i}`);
        }
        const resumed = () => seen.filter((s) => s.method === 'GET' && s.lastEventId !== undefined);
        if (c.label.startsWith('Gemini')) {
          // 1.23.0 resumes every streamed answer: each resumption replays what was missed and stays open.
          await waitFor(() => resumed().length >= 5 || undefined, 'a resumption GET for each long call');
          assert.ok(resumed().every((s) => s.status === 200), JSON.stringify(seen));
          await waitFor(() => seen.some((s) => s.method === 'GET' && s.lastEventId === undefined && s.status === 405) || undefined, 'the plain GET after an ended resumed stream');
        }
        // Still one working session: a short call answers, nothing was reported as an error.
        assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo after' } })), 'after');
        assert.deepEqual(errors, [], JSON.stringify(seen));
        assert.ok(!seen.some((s) => s.status === 409), `no 409: ${JSON.stringify(seen)}`);
      } finally {
        await client.close();
      }
    });
  }

  test('a resumed stream of a call still running carries its answer; Last-Event-ID of an unknown format is 400', async () => {
    const headers = { ...m.hub.headers(), Accept: 'application/json, text/event-stream' };
    const init = await fetch(`${m.hub.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const session = { ...headers, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-11-25' };
    await (await fetch(`${m.hub.url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    // A 2 s call streams after 100 ms; drop its connection after the priming event.
    const ac = new AbortController();
    const call = await fetch(`${m.hub.url}/mcp`, {
      method: 'POST',
      headers: session,
      signal: ac.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'sleep 2; echo resumed-answer' } } }),
    });
    assert.match(call.headers.get('content-type') ?? '', /text\/event-stream/);
    const reader = call.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const primed = /^id: (.+)$/m.exec(first)?.[1];
    assert.ok(primed, first);
    ac.abort();
    const resumed = await fetch(`${m.hub.url}/mcp`, { headers: { ...session, Accept: 'text/event-stream', 'Last-Event-ID': primed } });
    assert.equal(resumed.status, 200);
    assert.match(await resumed.text(), /resumed-answer/);
    const bad = await fetch(`${m.hub.url}/mcp`, { headers: { ...session, Accept: 'text/event-stream', 'Last-Event-ID': 'no-such-format' } });
    assert.equal(bad.status, 400);
    await bad.text();
  });
});
