import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJSONRPCMessage } from '@modelcontextprotocol/server';
import { plainRequestOrNotification, classifyValue } from '../main/transports/stdio-transport.js';

// The zod-free check must never accept what the SDK's own parser rejects, and must
// take the messages clients send on every call (else it saves nothing).
const common: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ListBgTasks', arguments: {} } },
  { jsonrpc: '2.0', id: 'a-7', method: 'tools/list' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'true' }, _meta: { progressToken: 5 } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'x' } },
];
const odd: unknown[] = [
  { jsonrpc: '2.0', id: 1.5, method: 'tools/list' },
  { jsonrpc: '2.0', id: null, method: 'tools/list' },
  { jsonrpc: '1.0', id: 1, method: 'tools/list' },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: true },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1, 2] },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: null },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: undefined },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: null } } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 'x' } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { other: 1 } } },
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } },
  [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  null,
  'text',
];

function sdkAccepts(v: unknown): boolean {
  try {
    parseJSONRPCMessage(v);
    return true;
  } catch {
    return false;
  }
}

test('the fast path takes the messages of every call, unchanged', () => {
  for (const m of common) {
    assert.equal(plainRequestOrNotification(m), m, JSON.stringify(m));
    assert.deepEqual(parseJSONRPCMessage(m), m, 'the SDK parser accepts it as it is');
  }
});

test('the fast path accepts nothing the SDK parser rejects, and classification agrees with the SDK', () => {
  for (const m of odd) {
    const fast = plainRequestOrNotification(m);
    if (fast !== undefined) assert.ok(sdkAccepts(m), `fast path accepted ${JSON.stringify(m)} which the SDK rejects`);
    const r = classifyValue(m);
    // Whatever the path, a message is passed on exactly when the SDK would accept it (or it is a reply Pincer makes for array params).
    if ('message' in r) assert.ok(sdkAccepts(m), JSON.stringify(m));
    else if (sdkAccepts(m)) assert.ok(Array.isArray((m as { params?: unknown }).params) || 'reply' in r, JSON.stringify(m));
  }
  // Array params are answered (-32602 by Pincer's rule), never passed on.
  assert.ok('reply' in classifyValue(odd[5]));
});
