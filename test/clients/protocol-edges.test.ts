import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHubProcess, type HubProcess } from '../helpers/hub.js';
import { tempHome } from '../helpers/env.js';
import { RawStdio } from '../helpers/raw-stdio.js';

/**
 * What clients trip over at the edges of the protocol: the status codes they
 * expect for session-less GETs, OAuth discovery on a token-protected hub,
 * seed 002's route names, and JSON-RPC error codes that say what to fix —
 * the same on /mcp, the JSON-RPC POST endpoint and stdio.
 */
describe('protocol edges', () => {
  const h = tempHome();
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess(h.home);
  });
  after(async () => {
    await hub.stop();
    h.cleanup();
  });

  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${hub.url}${path}`, { method: 'POST', headers: hub.headers({ Accept: 'application/json, text/event-stream' }), body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as { id?: unknown; error?: { code: number; message: string }; result?: unknown } };
  };

  test('session-less GET /mcp and GET /api/mcp/jsonrpc answer 405 with Allow: POST', async () => {
    for (const path of ['/mcp', '/api/mcp/jsonrpc', '/api/mcp/jsonrpc/shell']) {
      const r = await fetch(`${hub.url}${path}`, { headers: hub.headers({ Accept: 'text/event-stream' }) });
      assert.equal(r.status, 405, path);
      assert.equal(r.headers.get('allow'), 'POST', path);
      assert.match(((await r.json()) as { error: { message: string } }).error.message, /Method Not Allowed: GET/);
    }
  });

  test('OAuth discovery, registration and authorization answer 404 (no token needed to learn that)', async () => {
    for (const [method, path] of [
      ['GET', '/.well-known/oauth-protected-resource'],
      ['GET', '/.well-known/oauth-protected-resource/mcp'],
      ['GET', '/.well-known/oauth-authorization-server'],
      ['GET', '/.well-known/openid-configuration'],
      ['POST', '/register'],
      ['GET', '/authorize'],
      ['POST', '/token'],
    ] as const) {
      const r = await fetch(`${hub.url}${path}`, { method, headers: { Authorization: 'Bearer wrong' } });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.match(((await r.json()) as { error_description: string }).error_description, /Pincer has no OAuth .*pincer token/);
    }
    // Everything else still wants the token.
    assert.equal((await fetch(`${hub.url}/mcp`, { method: 'POST', headers: { Authorization: 'Bearer wrong' } })).status, 401);
  });

  test("seed 002's GET /api/mcp/tools/streams and /api/mcp/tools/stream/:streamName", async () => {
    const streams = (await (await fetch(`${hub.url}/api/mcp/tools/streams`, { headers: hub.headers() })).json()) as { success: boolean; streams: string[]; groups: Record<string, { name: string }[]>; count: number };
    assert.equal(streams.success, true);
    assert.ok(streams.streams.includes('shell'));
    assert.deepEqual(streams.groups.shell!.map((t) => t.name).sort(), ['BackgroundBash', 'Bash', 'KillBgTask', 'ListBgTasks', 'ReadBgOutput']);
    const shell = (await (await fetch(`${hub.url}/api/mcp/tools/stream/shell`, { headers: hub.headers() })).json()) as { stream: string; tools: { name: string }[]; count: number };
    assert.equal(shell.stream, 'shell');
    assert.equal(shell.count, 5);
    const none = await fetch(`${hub.url}/api/mcp/tools/stream/nope`, { headers: hub.headers() });
    assert.equal(none.status, 404);
    assert.match(((await none.json()) as { error: { message: string } }).error.message, /No tool group "nope"\. Groups: shell/);
  });

  test('/api/mcp/jsonrpc/:group with an unknown group answers JSON-RPC errors (with the request ids), not a REST body', async () => {
    const one = await fetch(`${hub.url}/api/mcp/jsonrpc/nope`, { method: 'POST', headers: { ...hub.headers(), 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/list' }) });
    assert.equal(one.status, 404);
    const body = (await one.json()) as { jsonrpc: string; id: number; error: { code: number; message: string; data: { groups: string[] } }; success?: unknown };
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, 41);
    assert.equal(body.error.code, -32601);
    assert.match(body.error.message, /No tool group "nope"\. Groups: shell.*POST to \/api\/mcp\/jsonrpc/);
    assert.ok(body.error.data.groups.includes('shell'));
    assert.equal(body.success, undefined, 'no REST shape');
    const batch = await fetch(`${hub.url}/api/mcp/jsonrpc/nope`, { method: 'POST', headers: { ...hub.headers(), 'Content-Type': 'application/json' }, body: JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'ping' }]) });
    const answers = (await batch.json()) as { id: unknown; error: { code: number } }[];
    assert.deepEqual(answers.map((a) => [a.id, a.error.code]), [['a', -32601], [2, -32601]]);
    // A known group still serves.
    const shell = await fetch(`${hub.url}/api/mcp/jsonrpc/shell`, { method: 'POST', headers: { ...hub.headers(), 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
    assert.equal(((await shell.json()) as { result: { tools: unknown[] } }).result.tools.length, 5);
  });

  const badInitialize = { jsonrpc: '2.0', id: 7, method: 'initialize', params: {} };
  const arrayParams = { jsonrpc: '2.0', id: 8, method: 'tools/list', params: [] };
  const unknownArray = { jsonrpc: '2.0', id: 9, method: 'no/such', params: [1] };

  for (const path of ['/mcp', '/api/mcp/jsonrpc']) {
    test(`${path}: initialize with params {} is -32602 with a sentence; array params are -32602 or -32601 as the method decides`, async () => {
      const init = await post(path, badInitialize);
      assert.equal(init.body.id, 7);
      assert.equal(init.body.error?.code, -32602);
      assert.match(init.body.error!.message, /^Invalid params: initialize needs params\.protocolVersion .*clientInfo/);
      assert.doesNotMatch(init.body.error!.message, /invalid_type|\[\s*\{/);
      const known = await post(path, arrayParams);
      assert.deepEqual([known.body.id, known.body.error?.code], [8, -32602]);
      assert.match(known.body.error!.message, /tools\/list takes named params/);
      const unknown = await post(path, unknownArray);
      assert.deepEqual([unknown.body.id, unknown.body.error?.code], [9, -32601]);
    });
  }

  test('/api/mcp/jsonrpc: a pagination cursor Pincer never gave out is -32602 on every list', async () => {
    for (const method of ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']) {
      const r = await post('/api/mcp/jsonrpc', { jsonrpc: '2.0', id: 1, method, params: { cursor: 'bogus' } });
      assert.equal(r.body.error?.code, -32602, method);
      assert.match(r.body.error!.message, new RegExp(`Invalid cursor for ${method.replace('/', '\\/')}`));
    }
    // Without a cursor, the whole list.
    assert.ok(((await post('/api/mcp/jsonrpc', { jsonrpc: '2.0', id: 2, method: 'tools/list' })).body.result as { tools: unknown[] }).tools.length > 0);
  });

  test('stdio: the same codes for a bad initialize and array params', async () => {
    const io = new RawStdio(h.home);
    const code = async (id: number) => ((await io.response(id)).error as { code?: number } | undefined)?.code;
    try {
      io.send(badInitialize);
      assert.equal(await code(7), -32602);
      await io.initialize('2025-11-25');
      io.send(arrayParams);
      assert.equal(await code(8), -32602);
      io.send(unknownArray);
      assert.equal(await code(9), -32601);
      io.send({ jsonrpc: '2.0', id: 10, method: 'prompts/list', params: { cursor: 'x' } });
      assert.equal(await code(10), -32602);
    } finally {
      io.close();
    }
  });
});
