import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { tempHome } from './helpers/env.js';
import { textOf } from './helpers/clients.js';

/**
 * /mcp answers each POST of a 2025-era session as plain JSON when its answer
 * is the first thing to send, and as SSE when something related to it comes
 * first or it takes long (bench/RESULTS.md "httpfast"): checked on the wire of the real hub.
 */
/** Opens a raw 2025-11-25 session on the hub: the headers every later request of it carries, and how initialize was answered. */
async function openSession(hub: HubProcess): Promise<{ headers: Record<string, string>; initType: string | null }> {
  const init = await fetch(`${hub.url}/mcp`, {
      method: 'POST',
      headers: hub.headers({ Accept: 'application/json, text/event-stream' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
  assert.equal(init.status, 200);
  const sid = init.headers.get('mcp-session-id');
  assert.ok(sid, 'initialize opens a session');
  const type = init.headers.get('content-type');
  const text = await init.text();
  assert.match(text, /"protocolVersion":"2025-11-25"/);
  const headers = hub.headers({ Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' });
  const note = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  assert.equal(note.status, 202);
  assert.equal(await note.text(), '');
  return { headers, initType: type };
}

describe('Streamable HTTP: JSON or SSE, decided per request', () => {
  const h = tempHome();
  let hub: HubProcess;
  let headers: Record<string, string>;
  const post = (body: unknown, extra: Record<string, string> = {}) => fetch(`${hub.url}/mcp`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });

  before(async () => {
    // A minute before an answer streams, so that "answered as JSON" below never depends on the machine's speed.
    hub = await startHubProcess(h.home, { HTTP_STREAM_AFTER_MS: '60000' });
    const session = await openSession(hub);
    assert.equal(session.initType, 'application/json', 'initialize is answered as plain JSON');
    headers = session.headers;
  });
  after(async () => {
    await hub.stop();
    h.cleanup();
  });

  test('a call with nothing to stream is one JSON body carrying the session id', async () => {
    // A call that spawns nothing: well under STREAM_AFTER_MS even on a loaded machine.
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ListBgTasks', arguments: {} } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.headers.get('mcp-session-id'), headers['Mcp-Session-Id']);
    const body = await r.json();
    assert.equal(body.id, 1);
    assert.match(textOf(body.result), /No background tasks/);
    assert.deepEqual(body.result.structuredContent, { tasks: [], total: 0, running: 0, offset: 0 });
  });

  test('a batch of requests is answered as one JSON array in request order', async () => {
    const r = await post([
      { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'ListBgTasks', arguments: {} } },
    ]);
    assert.equal(r.headers.get('content-type'), 'application/json');
    const body = (await r.json()) as { id: string; result: { tools?: unknown[] } }[];
    assert.deepEqual(body.map((m) => m.id), ['b', 'a', 'c']);
    assert.ok(body[0]!.result.tools!.length > 0);
    assert.deepEqual(body[1]!.result, {});
    assert.match(textOf(body[2]!.result), /No background tasks/);
  });

  test('progress before the answer switches that response to SSE, with a priming event and resumable ids', async () => {
    const r = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo a; sleep 0.3; echo b' }, _meta: { progressToken: 'p' } } });
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    assert.equal(r.headers.get('mcp-session-id'), headers['Mcp-Session-Id']);
    const text = await r.text();
    const events = text.split('\n\n').filter(Boolean);
    assert.match(events[0]!, /^id: \S+\ndata: $/, 'the stream opens with a priming event (2025-11-25)');
    const messages = events.slice(1).map((e) => JSON.parse(/^data: (.*)$/m.exec(e)![1]!) as { id?: number; method?: string; result?: unknown });
    assert.ok(events.slice(1).every((e) => /^event: message\nid: \S+\n/.test(e)), 'every message has an event id');
    assert.equal(messages[0]!.method, 'notifications/progress');
    assert.equal(messages.at(-1)!.id, 2);
    assert.equal(textOf(messages.at(-1)!.result), 'a\nb');
  });

  test('the transport checks of the SDK stay: Accept, Content-Type, protocol version, batch size, initialize twice', async () => {
    const tools = { jsonrpc: '2.0', id: 9, method: 'tools/list' };
    const accept = await post(tools, { Accept: 'application/json' });
    assert.equal(accept.status, 406);
    assert.match((await accept.json()).error.message, /must accept both application\/json and text\/event-stream/);
    const type = await post(tools, { 'Content-Type': 'text/plain' });
    assert.equal(type.status, 415);
    const version = await post(tools, { 'MCP-Protocol-Version': '1999-01-01' });
    assert.equal(version.status, 400);
    assert.match((await version.json()).error.message, /Unsupported protocol version: 1999-01-01/);
    const big = await post(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })));
    assert.equal(big.status, 400);
    assert.match((await big.json()).error.message, /Batch must not exceed 100 messages/);
    const again = await post({ jsonrpc: '2.0', id: 10, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    assert.equal(again.status, 400);
    assert.match((await again.json()).error.message, /already initialized/);
    const get = await fetch(`${hub.url}/mcp`, { headers: { ...headers, Accept: 'application/json' } });
    assert.equal(get.status, 406);
    const put = await fetch(`${hub.url}/mcp`, { method: 'PUT', headers, body: '{}' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, POST, DELETE');
  });

  test('one standalone GET stream per session (a second GET gets 405); DELETE ends the session and later requests get 404', async () => {
    const ac = new AbortController();
    const stream = await fetch(`${hub.url}/mcp`, { headers: { ...headers, Accept: 'text/event-stream' }, signal: ac.signal });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('content-type'), 'text/event-stream');
    // A second one gets the spec's "no stream here" (405), which SDK clients take quietly; 409 is an error to them.
    const second = await fetch(`${hub.url}/mcp`, { headers: { ...headers, Accept: 'text/event-stream' } });
    assert.equal(second.status, 405);
    assert.match((await second.json()).error.message, /GET stream is already open/);
    const del = await fetch(`${hub.url}/mcp`, { method: 'DELETE', headers });
    assert.equal(del.status, 200);
    // The session's close ends its open stream.
    const reader = stream.body!.getReader();
    while (!(await reader.read()).done);
    const after = await post({ jsonrpc: '2.0', id: 11, method: 'tools/list' });
    assert.equal(after.status, 404);
    assert.match((await after.json()).error.message, /not found/);
  });
});

describe('Streamable HTTP: HTTP_STREAM_AFTER_MS', () => {
  const slowHome = tempHome();
  const alwaysHome = tempHome();
  let hub: HubProcess;
  let always: HubProcess;
  let headers: Record<string, string>;
  before(async () => {
    [hub, always] = await Promise.all([startHubProcess(slowHome.home, { HTTP_STREAM_AFTER_MS: '300' }), startHubProcess(alwaysHome.home, { HTTP_STREAM_AFTER_MS: '0' })]);
    headers = (await openSession(hub)).headers;
  });
  after(async () => {
    await Promise.all([hub.stop(), always.stop()]);
    slowHome.cleanup();
    alwaysHome.cleanup();
  });

  test('a call still running after HTTP_STREAM_AFTER_MS streams: headers and a priming event go out before the answer', async () => {
    const r = await fetch(`${hub.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'sleep 1; echo late' } } }) });
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    const reader = r.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /^id: \S+\ndata: \n\n/, 'the priming event came first, alone');
    let rest = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    assert.match(rest, /"id":3/);
    assert.match(rest, /late/);
  });


  test('HTTP_STREAM_AFTER_MS=0 answers every request as SSE, initialize included', async () => {
    const { headers: h, initType } = await openSession(always);
    assert.equal(initType, 'text/event-stream');
    const r = await fetch(`${always.url}/mcp`, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ListBgTasks', arguments: {} } }) });
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    const events = (await r.text()).split('\n\n').filter(Boolean);
    assert.match(events[0]!, /^id: \S+\ndata: $/);
    assert.match(events[1]!, /^event: message\nid: \S+\ndata: \{.*"id":1/);
  });
});
