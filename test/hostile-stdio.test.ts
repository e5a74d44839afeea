import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawStdio } from './helpers/raw-stdio.js';
import { TOOL_COUNT } from './helpers/catalogue.js';
import { tempHome, waitFor } from './helpers/env.js';

/** A deterministic generator of bad messages: malformed JSON, wrong JSON-RPC shapes, bad params, unknown methods and tools, deep nesting and binary, cycled. */
function hostile(i: number): string {
  const kinds: (() => string)[] = [
    () => '{not json',
    () => '[1,2,',
    () => JSON.stringify({ jsonrpc: '1.0', id: i, method: 'tools/list' }),
    () => JSON.stringify({ id: i, method: 'tools/list' }),
    () => JSON.stringify({ jsonrpc: '2.0', id: i, method: 42 }),
    () => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'no/such/method' }),
    () => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'Bash', arguments: { command: [1, 2] } } }),
    () => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'ReadBgOutput', arguments: { task_id: 'abc' } } }),
    () => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'Nope', arguments: {} } }),
    () => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: 'string params' }),
    () => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call' }),
    () => JSON.stringify({ jsonrpc: '2.0', id: { nested: true }, method: 'tools/list' }),
    () => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } }),
    () => JSON.stringify({ jsonrpc: '2.0', id: i, result: { unexpected: 'response' } }),
    () => '"just a string"',
    () => 'null',
    () => '[]',
    () => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'true', timeout: -5 } } }),
    () => '['.repeat(5000) + ']'.repeat(5000),
    () => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    () => '\u0000\u0001\u0002 binary \uFFFD',
  ];
  return kinds[i % kinds.length]!();
}

test('1000 malformed or hostile messages, then a 50 MB line, leave pincer answering the next valid request', async () => {
  const h = tempHome();
  const raw = new RawStdio(h.home);
  try {
    await raw.initialize();
    for (let i = 0; i < 1000; i++) raw.send(hostile(i));
    raw.send({ jsonrpc: '2.0', id: 'after-batch', method: 'tools/list' });
    const afterBatch = await raw.response('after-batch');
    assert.equal(((afterBatch.result as { tools: unknown[] }).tools).length, TOOL_COUNT);

    // Unknown methods are answered with -32601; wrong arguments are tool errors, not crashes.
    const unknown = raw.messages.find((m) => m.id === 5) as { error?: { code: number } } | undefined;
    assert.equal(unknown?.error?.code, -32601);
    const errorOf = (m: unknown) => (m as { error?: { code: number; message: string } }).error;
    assert.ok(raw.messages.some((m) => m.id === null && errorOf(m)?.code === -32700), 'bad JSON is answered with -32700');
    assert.equal(errorOf(raw.messages.find((m) => m.id === 2))?.code, -32600, 'a wrong JSON-RPC shape with an id is answered with -32600');
    const wrongArgs = raw.messages.find((m) => m.id === 6) as { result?: { isError: boolean } } | undefined;
    assert.equal(wrongArgs?.result?.isError, true);

    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 'huge', method: 'tools/call', params: { name: 'Bash', arguments: { command: 'x'.repeat(50 * 1024 * 1024) } } }));
    raw.send({ jsonrpc: '2.0', id: 'final', method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo still alive' } } });
    const final = await raw.response('final');
    assert.equal((final.result as { content: { text: string }[] }).content[0]!.text, 'still alive');
    assert.equal(raw.child.exitCode, null, 'pincer is still running');
    assert.ok(raw.messages.some((m) => errorOf(m)?.code === -32600 && /larger than/.test(errorOf(m)!.message)), 'the 50 MB line is refused with a clear error');
    assert.deepEqual(raw.nonJsonLines, [], 'stdout carried protocol messages only');
  } finally {
    raw.close();
    await waitFor(() => raw.child.exitCode !== null, 'pincer to exit');
    h.cleanup();
  }
});
