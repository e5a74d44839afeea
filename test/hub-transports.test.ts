import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport, SSEClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport as V1SseTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import WebSocket from 'ws';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { TOOL_COUNT } from './helpers/catalogue.js';
import { tempHome, waitFor } from './helpers/env.js';
import { textOf } from './helpers/clients.js';

function authFetch(token: string) {
  return (url: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(url, { ...init, headers });
  };
}

describe('the hub over every transport', () => {
  const h = tempHome();
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess(h.home);
  });
  after(async () => {
    await hub.stop();
    h.cleanup();
  });

  test('v2 client over Streamable HTTP: session, tools, progress', async () => {
    const client = new Client({ name: 'v2-http', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } });
    await client.connect(transport);
    assert.ok(transport.sessionId, 'the hub issued an Mcp-Session-Id');
    const { tools } = await client.listTools();
    assert.equal(tools.length, TOOL_COUNT);
    const progress: string[] = [];
    const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo a; sleep 0.3; echo b' } }, { onprogress: (p) => progress.push(p.message ?? '') });
    assert.equal(textOf(r), 'a\nb');
    assert.ok(progress.join('').includes('a\n'));
    await transport.terminateSession();
    await client.close();
  });

  test('v2 client pinned to 2026-07-28 is served statelessly', async () => {
    const client = new Client({ name: 'v2-modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } });
    await client.connect(transport);
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.equal((await client.listTools()).tools.length, TOOL_COUNT);
    assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo modern' } })), 'modern');
    await client.close();
  });

  test('v1 client over Streamable HTTP', async () => {
    const client = new V1Client({ name: 'v1-http', version: '1' });
    await client.connect(new V1HttpTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
    assert.equal((await client.listTools()).tools.length, TOOL_COUNT);
    assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo v1' } })), 'v1');
    await client.close();
  });

  test('v1 and v2 clients over HTTP+SSE (2024-11-05)', async () => {
    const v1 = new V1Client({ name: 'v1-sse', version: '1' });
    await v1.connect(new V1SseTransport(new URL(`${hub.url}/sse`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } }, eventSourceInit: { fetch: authFetch(hub.token) } }));
    assert.equal((await v1.listTools()).tools.length, TOOL_COUNT);
    assert.equal(textOf(await v1.callTool({ name: 'Bash', arguments: { command: 'echo sse' } })), 'sse');
    await v1.close();

    const v2 = new Client({ name: 'v2-sse', version: '1' });
    await v2.connect(new SSEClientTransport(new URL(`${hub.url}/sse`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } }, eventSourceInit: { fetch: authFetch(hub.token) } }));
    assert.equal(textOf(await v2.callTool({ name: 'Bash', arguments: { command: 'echo sse2' } })), 'sse2');
    await v2.close();
  });

  test('WebSocket: JSON-RPC without a handshake, and the simple list_tools / call_tool messages', async () => {
    const ws = new WebSocket(`${hub.url.replace('http', 'ws')}/mcp/ws`, { headers: { Authorization: `Bearer ${hub.token}` } });
    const inbox: Record<string, unknown>[] = [];
    ws.on('message', (d) => inbox.push(JSON.parse(d.toString())));
    await new Promise((r, j) => {
      ws.once('open', r);
      ws.once('error', j);
    });
    const next = (pred: (m: Record<string, unknown>) => boolean) => waitFor(() => inbox.find(pred), 'a websocket message');
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    const list = await next((m) => m.id === 1);
    assert.equal(((list.result as { tools: unknown[] }).tools).length, TOOL_COUNT);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo ws' } } }));
    assert.equal(textOf((await next((m) => m.id === 2)).result), 'ws');
    ws.send(JSON.stringify({ type: 'list_tools' }));
    assert.equal(((await next((m) => m.type === 'tools_list')).tools as unknown[]).length, TOOL_COUNT);
    ws.send(JSON.stringify({ type: 'call_tool', requestId: 'req_1', name: 'Bash', arguments: { command: 'echo simple' } }));
    const res = await next((m) => m.type === 'tool_result' && m.requestId === 'req_1');
    assert.equal(textOf(res.result), 'simple');
    ws.send('{broken');
    assert.equal(((await next((m) => (m.error as { code?: number } | undefined)?.code === -32700)).error as { code: number }).code, -32700);
    ws.close();
  });

  test('plain JSON-RPC POST, per-group endpoints and batches', async () => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${hub.url}${path}`, { method: 'POST', headers: hub.headers(), body: JSON.stringify(body) });
      return { status: res.status, body: res.status === 202 ? undefined : await res.json() };
    };
    const call = await post('/api/mcp/jsonrpc', { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo rpc' } } });
    assert.equal(textOf(call.body.result), 'rpc');
    assert.equal(call.body.id, 'a');
    const shell = await post('/api/mcp/jsonrpc/shell', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(shell.body.result.tools.length, 5);
    const web = await post('/api/mcp/jsonrpc/web', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.deepEqual(web.body.result.tools.map((t: { name: string }) => t.name).filter((n: string) => n === 'Bash'), []);
    const outside = await post('/api/mcp/jsonrpc/search', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'true' } } });
    assert.match(outside.body.error.message, /Unknown tool: Bash in the search group/);
    const batch = await post('/api/mcp/jsonrpc', [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'no/such' },
      { nonsense: true },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo batch' } } },
    ]);
    assert.deepEqual(batch.body.map((m: { id: unknown }) => m.id), [1, 2, null, 3]);
    assert.equal(batch.body[1].error.code, -32601);
    assert.equal(batch.body[2].error.code, -32600);
    assert.equal(textOf(batch.body[3].result), 'batch');
    const onlyNotes = await post('/api/mcp/jsonrpc', [{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    assert.equal(onlyNotes.status, 202);
    const parse = await fetch(`${hub.url}/api/mcp/jsonrpc`, { method: 'POST', headers: hub.headers(), body: '{nope' });
    assert.equal((await parse.json()).error.code, -32700);
  });

  test('REST routes', async () => {
    const get = async (path: string) => (await fetch(`${hub.url}${path}`, { headers: hub.headers() })).json();
    const tools = await get('/api/mcp/tools');
    assert.equal(tools.success, true);
    assert.equal(tools.count, TOOL_COUNT);
    assert.equal((await get('/api/mcp/tools?group=shell')).count, 5);
    assert.equal((await get('/api/mcp/tools?group=search')).count, 1);
    const groups = await get('/api/mcp/tools/groups');
    assert.deepEqual(Object.keys(groups.groups).sort(), ['filesystem', 'interaction', 'plugins', 'search', 'shell', 'web', 'workflow']);
    const one = await get('/api/mcp/tools/Bash');
    assert.equal(one.tool.name, 'Bash');
    assert.equal(one.tool.group, 'shell');
    const missing = await fetch(`${hub.url}/api/mcp/tools/Nope`, { headers: hub.headers() });
    assert.equal(missing.status, 404);
    const call = await (await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'Bash', arguments: { command: 'echo rest' } }) })).json();
    assert.equal(call.success, true);
    assert.equal(textOf(call), 'rest');
    assert.equal(call.isError, false);
    assert.equal(call.metadata.tool, 'Bash');
    assert.match(call.metadata.duration, /^\d+ms$/);
    assert.equal(typeof call.metadata.timestamp, 'number');
    const unknown = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'Nope' }) });
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, 'TOOL_NOT_FOUND');
    // A tool's own refusal is a 200 result whose error names the UserError's code.
    const noJob = await (await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'KillBgTask', arguments: { task_id: 999999 } }) })).json();
    assert.equal(noJob.isError, true);
    assert.deepEqual({ code: noJob.error.code, reason: noJob.error.reason }, { code: 'TOOL_FAILED', reason: 'NOT_FOUND' });
    assert.equal((await get('/api/mcp/resources')).success, true);
    assert.equal((await get('/api/mcp/prompts')).success, true);
    const health = await (await fetch(`${hub.url}/api/mcp/health`, { headers: hub.headers() })).json();
    assert.equal(health.status, 'healthy');
    assert.equal(health.toolsCount, TOOL_COUNT);
    assert.equal(typeof health.uptime, 'number');
    assert.equal(typeof health.sessions, 'number');
    assert.ok(!JSON.stringify(health).includes(hub.token), 'health leaks nothing secret');
  });

  test('the event stream announces tool calls', async () => {
    const ac = new AbortController();
    const res = await fetch(`${hub.url}/api/mcp/connect`, { headers: hub.headers(), signal: ac.signal });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    };
    await readUntil(/"type":"connected"/);
    await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name: 'Bash', arguments: { command: 'echo evt' } }) });
    await readUntil(/"type":"tool_call_finished"/);
    assert.match(text, /"type":"tool_call_started","id":"[^"]+","tool":"Bash"/);
    ac.abort();
  });

  test('Last-Event-ID resumes a broken response stream', async () => {
    const init = await fetch(`${hub.url}/mcp`, {
      method: 'POST',
      headers: hub.headers({ Accept: 'application/json, text/event-stream' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const h = hub.headers({ Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-06-18' });
    await fetch(`${hub.url}/mcp`, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const ac = new AbortController();
    const call = await fetch(`${hub.url}/mcp`, {
      method: 'POST',
      headers: h,
      signal: ac.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo first; sleep 1; echo second' }, _meta: { progressToken: 'p' } } }),
    });
    const reader = call.body!.getReader();
    let text = '';
    while (!/id: \S+\n[\s\S]*first/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    const lastId = [...text.matchAll(/^id: (\S+)$/gm)].pop()![1]!;
    ac.abort();
    // The client that resumes lost its connection: the resumed stream replaces one the hub has not seen close yet.
    const resumed = await fetch(`${hub.url}/mcp`, { headers: { ...h, 'Last-Event-ID': lastId } });
    assert.equal(resumed.status, 200);
    const r2 = resumed.body!.getReader();
    let rest = '';
    while (!/"id":2/.test(rest)) {
      const { value, done } = await r2.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    assert.match(rest, /second/);
    assert.match(rest, /"id":2/);
    await r2.cancel();
  });
});
