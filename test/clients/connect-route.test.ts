import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport as V1Sse } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, SSEClientTransport } from '@modelcontextprotocol/client';
import { sharedMatrixHub } from '../helpers/matrix-hub.js';
import { textOf } from '../helpers/clients.js';

/**
 * `/api/mcp/connect` as the seed's Cursor config uses it (`"url": …/api/mcp/connect`,
 * `"transport": "sse"`): an MCP client there gets MCP — HTTP+SSE for a GET that
 * asks for an event stream, Streamable HTTP for a POST — while the dashboard and
 * scripts keep getting the hub's event feed from the same URL.
 */
function authFetch(token: string) {
  return (url: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(url, { ...init, headers });
  };
}

/** The first `data:` line of an SSE response, then the response is dropped. */
async function firstEvent(r: Response, ac: AbortController): Promise<string> {
  const reader = r.body!.getReader();
  let text = '';
  for (let i = 0; i < 20 && !/\n\n/.test(text); i++) text += new TextDecoder().decode((await reader.read()).value);
  ac.abort();
  return text;
}

describe('/api/mcp/connect: MCP for MCP clients, the event feed for everyone else', { concurrency: 1 }, () => {
  const m = sharedMatrixHub({});
  const url = () => new URL(`${m.hub.url}/api/mcp/connect`);

  test('an HTTP+SSE client (SDK v1, as Cursor falls back to) lists the tools and calls one', async () => {
    const client = new V1Client({ name: 'cursor-like', version: '1' });
    await client.connect(new V1Sse(url(), { requestInit: { headers: { Authorization: `Bearer ${m.hub.token}` } }, eventSourceInit: { fetch: authFetch(m.hub.token) } }));
    try {
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'Bash'));
      assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo via-connect' } })), 'via-connect');
    } finally {
      await client.close();
    }
  });

  test('the SDK v2 HTTP+SSE client too', async () => {
    const client = new Client({ name: 'sse-v2', version: '1' });
    await client.connect(new SSEClientTransport(url(), { requestInit: { headers: { Authorization: `Bearer ${m.hub.token}` } }, eventSourceInit: { fetch: authFetch(m.hub.token) } }));
    try {
      assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo v2-sse' } })), 'v2-sse');
    } finally {
      await client.close();
    }
  });

  test('a Streamable HTTP client (its first try at a URL) is served there too', async () => {
    const client = new V1Client({ name: 'streamable-first', version: '1' });
    await client.connect(new V1Http(url(), { requestInit: { headers: { Authorization: `Bearer ${m.hub.token}` } } }));
    try {
      assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo streamable' } })), 'streamable');
    } finally {
      await client.close();
    }
  });

  test('a script (any Accept) and ?feed get the event feed; ?transport=sse gets MCP whatever it accepts', async () => {
    for (const [path, accept] of [['/api/mcp/connect', '*/*'], ['/api/mcp/connect?feed', 'text/event-stream']] as const) {
      const ac = new AbortController();
      const r = await fetch(`${m.hub.url}${path}`, { headers: { Authorization: `Bearer ${m.hub.token}`, Accept: accept }, signal: ac.signal });
      assert.equal(r.status, 200);
      assert.match(await firstEvent(r, ac), /^data: \{"type":"connected"/m, path);
    }
    const ac = new AbortController();
    const r = await fetch(`${m.hub.url}/api/mcp/connect?transport=sse`, { headers: { Authorization: `Bearer ${m.hub.token}` }, signal: ac.signal });
    assert.match(await firstEvent(r, ac), /^event: endpoint\ndata: \/messages\?sessionId=/m);
  });

  test('without the token it is 401 either way', async () => {
    for (const accept of ['*/*', 'text/event-stream']) {
      const r = await fetch(`${m.hub.url}/api/mcp/connect`, { headers: { Accept: accept } });
      assert.equal(r.status, 401);
      await r.body?.cancel();
    }
  });
});
