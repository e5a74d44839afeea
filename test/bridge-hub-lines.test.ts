import { test } from 'node:test';
import assert from 'node:assert/strict';
import { peekHubLine, type HubLine } from '../main/cli/bridge/hub-lines.js';

// The bridge reads which request a hub line answers from the line's ends
// (hub-lines.ts) instead of parsing it. Whatever the hub writes, that reading
// must agree with a full JSON.parse: checked here against many messages, in
// the SDK's key orders and others, with ids and contents built to look like
// the patterns the shortcut matches.

/** What a full parse says the line is. */
function reference(line: string): HubLine {
  const v = JSON.parse(line) as unknown;
  // An answer to a request: no method, a string or number id (only those can be pending), a result or an error.
  const answer = (m: unknown) => typeof m === 'object' && m !== null && !('method' in m) && 'id' in m && (typeof m.id === 'string' || typeof m.id === 'number') && ('result' in m || 'error' in m);
  if (Array.isArray(v)) return { kind: 'batch', ids: v.filter(answer).map((m: { id: string | number }) => m.id) };
  if (!answer(v)) return { kind: 'other' };
  const m = v as { id: string | number; error?: { data?: unknown } };
  return m.error ? { kind: 'error', id: m.id, data: m.error.data } : { kind: 'result', id: m.id };
}

/** A small deterministic generator, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TRICKY = [
  '',
  'plain',
  'with "quotes"',
  'back\\slash\\',
  '\\"',
  ',"jsonrpc":"2.0","id":7}',
  '{"jsonrpc":"2.0","id":1,"error":',
  '{"method":"x"}',
  'ünïcødé ✓ 𝄞',
  'line\nbreak',
  '\u0000\u001f',
  'x'.repeat(400),
  'pincer-bridge-replay-3',
];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function id(r: () => number): string | number {
  const k = r();
  if (k < 0.3) return Math.floor(r() * 1e6);
  if (k < 0.4) return -Math.floor(r() * 100);
  if (k < 0.45) return 2 ** 53 - 1;
  if (k < 0.5) return 1.5;
  return pick(r, TRICKY) + (r() < 0.5 ? '' : String(Math.floor(r() * 100)));
}

function content(r: () => number): unknown {
  const depth = Math.floor(r() * 3);
  let v: unknown = pick(r, TRICKY);
  for (let i = 0; i < depth; i++) v = r() < 0.5 ? { text: v, id: id(r), jsonrpc: '2.0' } : [v, { result: v }];
  return v;
}

function message(r: () => number): unknown {
  const k = r();
  if (k < 0.35) return { result: { content: [{ type: 'text', text: content(r) }] }, jsonrpc: '2.0', id: id(r) }; // the SDK's result order
  if (k < 0.5) return { jsonrpc: '2.0', id: id(r), error: { code: -32000, message: String(content(r)), ...(r() < 0.5 ? { data: r() < 0.5 ? { pincerRetry: true } : content(r) } : {}) } };
  if (k < 0.6) return { jsonrpc: '2.0', id: id(r), result: content(r) }; // another order
  if (k < 0.7) return { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: id(r), message: content(r) } };
  if (k < 0.8) return { method: 'elicitation/create', params: { message: content(r) }, jsonrpc: '2.0', id: id(r) }; // a request from the hub
  if (k < 0.85) return { result: content(r), id: id(r), jsonrpc: '2.0' };
  if (k < 0.9) return { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
  if (k < 0.95) return [message(r), message(r)];
  return { result: { text: content(r) }, jsonrpc: '2.0', id: id(r), extra: pick(r, TRICKY) };
}

test('reading a hub line from its ends agrees with a full parse on 20,000 generated messages', () => {
  const r = rng(17);
  for (let i = 0; i < 20_000; i++) {
    const line = JSON.stringify(message(r));
    assert.deepEqual(peekHubLine(Buffer.from(line, 'utf8')), reference(line), line.slice(0, 500));
  }
});

test('a large result is recognised from its last bytes whatever it contains', () => {
  const text = `${',"jsonrpc":"2.0","id":1}'.repeat(1000)}${'é'.repeat(100_000)}`;
  const line = JSON.stringify({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id: 'the-call' });
  assert.deepEqual(peekHubLine(Buffer.from(line)), { kind: 'result', id: 'the-call' });
  assert.deepEqual(peekHubLine(Buffer.from(JSON.stringify({ result: {}, jsonrpc: '2.0', id: 42 }))), { kind: 'result', id: 42 });
});
