import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DisposableStore } from '../main/core/disposables.js';
import type { Logger } from '../main/core/log.js';

test('a DisposableStore logs what failed to release, and releases the rest', () => {
  const seen: { msg: string; extra?: Record<string, unknown> }[] = [];
  const log: Logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (msg, extra) => void seen.push({ msg, extra }), child: () => log };
  const store = new DisposableStore('session 7', log);
  const released: string[] = [];
  store.add(() => released.push('first'));
  store.add(() => {
    throw new Error('already gone');
  }, 'the session row');
  const emitter = {
    on: () => undefined,
    off: () => {
      throw new Error('no such listener');
    },
  };
  store.listen(emitter, 'message', () => undefined);
  store.dispose();
  assert.deepEqual(released, ['first'], 'a failing release keeps none of the others');
  assert.deepEqual(seen.map((s) => s.msg), ["releasing the 'message' listener of session 7 failed", 'releasing the session row of session 7 failed']);
  assert.match(String((seen[1]!.extra!.err as Error).message), /already gone/);
  store.add(() => {
    throw new Error('late');
  }, 'a late timer');
  assert.equal(seen.at(-1)?.msg, 'releasing a late timer of session 7 failed', 'one added after dispose is released, and logged, at once');
});
