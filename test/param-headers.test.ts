import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { tempHome } from './helpers/env.js';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { textOf } from './helpers/clients.js';

/**
 * SEP-2243 custom headers on the hub's 2026-07-28 HTTP leg: a tool whose inputSchema marks arguments
 * with x-mcp-header is called with raw HTTP requests whose Mcp-Param-* headers are right, missing,
 * wrong, wrongly encoded or repeated; the official SDK client, which mirrors them itself, still works.
 */
const PLUGIN = `
const region = { type: 'string', 'x-mcp-header': 'Region' };
export default {
  tools: [{
    name: 'deploy',
    description: 'Echoes its arguments',
    inputSchema: {
      type: 'object',
      properties: {
        region,
        replicas: { type: 'integer', 'x-mcp-header': 'Replicas' },
        dryRun: { type: 'boolean', 'x-mcp-header': 'DryRun' },
        target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
        note: { type: 'string' },
      },
    },
    handler: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  }],
};
`;

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'param-headers-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Answer {
  status: number;
  body: { result?: { content?: { text: string }[] }; error?: { code: number; message: string; data?: { header?: string } } };
}

const b64 = (s: string) => `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;

describe('Mcp-Param-* headers (SEP-2243) on 2026-07-28 HTTP', () => {
  const h = tempHome();
  let hub: HubProcess;
  before(async () => {
    fs.mkdirSync(path.join(h.home, 'plugins'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(h.home, 'plugins', 'deploy.mjs'), PLUGIN);
    hub = await startHubProcess(h.home);
  });
  after(async () => {
    await hub.stop();
    h.cleanup();
  });

  /** One tools/call of deploy by node:http, which sends repeated headers and raw bytes as given. */
  function call(args: Record<string, unknown>, params: Record<string, string | string[]>, opts: { path?: string; extra?: Record<string, string | string[]> } = {}): Promise<Answer> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'deploy', arguments: args, _meta: META } });
    const headers: Record<string, string | string[]> = {
      Authorization: `Bearer ${hub.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'deploy',
      'Content-Length': String(Buffer.byteLength(body)),
      ...opts.extra,
    };
    for (const [k, v] of Object.entries(params)) headers[`Mcp-Param-${k}`] = v;
    return new Promise((resolve, reject) => {
      const req = http.request(`${hub.url}${opts.path ?? '/mcp'}`, { method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(json) as Answer['body'] });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  function assertRefused(a: Answer, header: string, why: RegExp): void {
    assert.equal(a.status, 400, JSON.stringify(a.body));
    assert.equal(a.body.error?.code, -32020);
    assert.equal(a.body.error?.data?.header, header);
    assert.match(a.body.error?.message ?? '', why);
  }

  const echoed = (a: Answer): unknown => {
    assert.equal(a.status, 200, JSON.stringify(a.body));
    return JSON.parse(a.body.result!.content![0]!.text);
  };

  test('matching headers are accepted: plain, Base64 for non-ASCII, integers compared as numbers, nested arguments, any header-name case', async () => {
    const args = { region: 'us-west1', replicas: 3, dryRun: false, target: { zone: 'b' }, note: 'x' };
    assert.deepEqual(echoed(await call(args, { Region: 'us-west1', Replicas: '3', DryRun: 'false', Zone: 'b' })), args);
    const zurich = { region: 'Zürich 東京', replicas: 3 };
    assert.deepEqual(echoed(await call(zurich, { Region: b64('Zürich 東京'), Replicas: '3.0' })), zurich);
    assert.deepEqual(echoed(await call({ region: ' padded ' }, { region: b64(' padded ') })), { region: ' padded ' });
    // Without the closing ?= the value is literal text, not Base64.
    assert.deepEqual(echoed(await call({ region: '=?base64?SGk=' }, { REGION: '=?base64?SGk=' })), { region: '=?base64?SGk=' });
    // Arguments that are absent or null need no header; headers of no declared argument are ignored.
    assert.deepEqual(echoed(await call({ note: 'n' }, { Other: 'anything' })), { note: 'n' });
    const nulled = await call({ region: null }, {});
    assert.equal(nulled.status, 200, 'null expects no header (the tool itself then refuses null)');
  });

  test('a missing header for an argument in the body is refused', async () => {
    assertRefused(await call({ region: 'us-west1' }, {}), 'Mcp-Param-Region', /arguments\.region is "us-west1" but the Mcp-Param-Region header is missing/);
    assertRefused(await call({ target: { zone: 'b' } }, {}), 'Mcp-Param-Zone', /arguments\.target\.zone/);
  });

  test('a header that disagrees with the body is refused, and so is one whose argument is absent', async () => {
    assertRefused(await call({ region: 'us-west1' }, { Region: 'eu-north1' }), 'Mcp-Param-Region', /says "eu-north1" but arguments\.region is "us-west1"/);
    assertRefused(await call({ region: 'a', replicas: 3 }, { Region: 'a', Replicas: '4' }), 'Mcp-Param-Replicas', /says "4"/);
    assertRefused(await call({ region: 'a', dryRun: true }, { Region: 'a', DryRun: 'True' }), 'Mcp-Param-DryRun', /says "True"/);
    assertRefused(await call({ target: { zone: 'b' } }, { Zone: 'c' }), 'Mcp-Param-Zone', /says "c"/);
    assertRefused(await call({ note: 'n' }, { Region: 'us-west1' }), 'Mcp-Param-Region', /is sent but arguments\.region is absent/);
  });

  test('wrongly encoded values are refused: broken Base64, Base64 of non-UTF-8, raw non-ASCII bytes', async () => {
    const args = { region: 'Hello' };
    assertRefused(await call(args, { Region: '=?base64?SGVsbG8?=' }), 'Mcp-Param-Region', /not canonical Base64/);
    assertRefused(await call(args, { Region: '=?base64?SGVs!!!bG8=?=' }), 'Mcp-Param-Region', /not canonical Base64/);
    assertRefused(await call({ region: '\u00ff' }, { Region: '=?base64?/w==?=' }), 'Mcp-Param-Region', /not canonical Base64 of UTF-8/);
    // The UTF-8 bytes of "Zürich" put in the header as they are (a client that skipped the encoding).
    const raw = Buffer.from('Zürich', 'utf8').toString('latin1');
    assertRefused(await call({ region: 'Zürich' }, { Region: raw }), 'Mcp-Param-Region', /non-ASCII or control characters.*=\?base64\?/);
  });

  test('a repeated header is refused even when both copies agree with the body', async () => {
    assertRefused(await call({ region: 'us-west1' }, { Region: ['us-west1', 'us-west1'] }), 'Mcp-Param-Region', /sent 2 times/);
    assertRefused(await call({ region: 'a' }, { Region: ['a', 'b'] }), 'Mcp-Param-Region', /sent 2 times/);
    assertRefused(await call({ region: 'a' }, { Region: 'a' }, { extra: { 'Mcp-Method': ['tools/call', 'tools/call'] } }), 'Mcp-Method', /sent 2 times/);
  });

  test('/api/mcp/connect, the other route that serves Streamable HTTP, checks the same', async () => {
    assertRefused(await call({ region: 'us-west1' }, { Region: 'eu-north1' }, { path: '/api/mcp/connect' }), 'Mcp-Param-Region', /says "eu-north1"/);
    assert.deepEqual(echoed(await call({ region: 'us-west1' }, { Region: 'us-west1' }, { path: '/api/mcp/connect' })), { region: 'us-west1' });
  });

  test('the official SDK client on 2026-07-28 mirrors the headers itself and is served; a 2025-era session needs none', async () => {
    const modern = new Client({ name: 'param-headers-sdk', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
    assert.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28');
    await modern.listTools();
    const args = { region: 'Zürich 東京', replicas: 2, dryRun: true, target: { zone: ' z ' } };
    assert.deepEqual(JSON.parse(textOf(await modern.callTool({ name: 'deploy', arguments: args }))), args);
    await modern.close();

    const legacy = new Client({ name: 'param-headers-legacy', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } });
    await legacy.connect(transport);
    assert.ok(transport.sessionId);
    assert.deepEqual(JSON.parse(textOf(await legacy.callTool({ name: 'deploy', arguments: { region: 'r' } }))), { region: 'r' });
    await transport.terminateSession();
    await legacy.close();
  });
});
