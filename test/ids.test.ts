import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timeOrderedId } from '../main/core/ids.js';

test('tool call ids are RFC 9562 version 7 UUIDs: the time they carry, ordered by it, unique', () => {
  const at = Date.UTC(2026, 10, 23, 6, 0, 0, 123);
  const id = timeOrderedId(at);
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(parseInt(id.slice(0, 8) + id.slice(9, 13), 16), at, 'the first 48 bits are the Unix time in ms');
  const ids = [at - 86_400_000, at - 1, at, at + 1, at + 3_600_000].map((t) => timeOrderedId(t));
  assert.deepEqual([...ids].sort(), ids, 'string order is time order');
  const many = new Set(Array.from({ length: 10_000 }, () => timeOrderedId(at)));
  assert.equal(many.size, 10_000, 'ids made in the same millisecond differ');
});
