import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openStore } from '../main/store/db.js';
import { ActivityRepo } from '../main/store/activity.js';
import { unindexed } from '../main/store/activity-search.js';
import { tempHome } from './helpers/env.js';

type Batch = Parameters<ActivityRepo['record']>[0];

/** `n` finished calls from `from` on, one a millisecond; every 10th carries "Needle" in its arguments. */
function calls(from: number, n: number, at: number): Batch {
  const batch: Batch = [];
  for (let i = from; i < from + n; i++) {
    const id = `c${i}`;
    batch.push({ kind: 'started', id, tool: 'Bash', session: 's', client: 'test', args: JSON.stringify({ command: i % 10 === 0 ? `echo Needle ${i}` : `echo hay ${i}` }), at: at + i }, { kind: 'finished', id, ms: 1, isError: false, summary: `out ${i}` });
  }
  return batch;
}

test("Activity's text search finds the same calls whether indexed or not, newest first, page after page; the index follows changes and deletions", () => {
  const h = tempHome();
  const store = openStore(path.join(h.home, 'pincer.db'));
  try {
    const repo = new ActivityRepo(store.db);
    const t0 = Date.now() - 100_000;
    repo.record(calls(0, 3000, t0));
    // Two thirds indexed (what the quiet-time indexer does), the newest third not yet.
    while (unindexed(store.db) > 1000) repo.indexSome(500);
    assert.equal(unindexed(store.db), 1000);
    const ids = (pages: { rows: { id: string }[] }[]) => pages.flatMap((p) => p.rows.map((r) => r.id));
    const first = repo.page({ q: 'needle', limit: 120 });
    const second = repo.page({ q: 'needle', limit: 120 }, first.next);
    const third = repo.page({ q: 'needle', limit: 120 }, second.next);
    const all = ids([first, second, third]);
    // Every tenth call, newest first, across the unindexed and the indexed rows, nothing twice; case-insensitive.
    assert.deepEqual(all, Array.from({ length: 300 }, (_, k) => `c${2990 - k * 10}`));
    assert.equal(third.next, undefined);
    assert.deepEqual(repo.countMatching({ q: 'NEEDLE' }, 10_000), { n: 300, capped: false });
    assert.deepEqual(repo.countMatching({ q: 'needle' }, 100), { n: 100, capped: true });
    // With another filter, and a text shorter than a trigram (scanned).
    assert.equal(repo.page({ q: 'needle 1', tool: 'Bash', limit: 1000 }).rows.length, 111);
    assert.equal(repo.page({ q: 'ne', limit: 1000 }).rows.length, 300);
    // An indexed call that changes (a long call finishing with its result) is found by its new text.
    repo.record([{ kind: 'started', id: 'long', tool: 'Bash', session: 's', client: 'test', args: '{"command":"sleep"}', at: t0 }]);
    while (unindexed(store.db) > 0) repo.indexSome(500);
    assert.equal(repo.page({ q: 'haystack-result' }).rows.length, 0);
    repo.record([{ kind: 'finished', id: 'long', ms: 5000, isError: false, summary: 'haystack-result' }]);
    assert.deepEqual(repo.page({ q: 'haystack-result' }).rows.map((r) => r.id), ['long']);
    // Pruned calls leave the index with their rows.
    repo.prune(t0 + 2000, 10_000_000);
    assert.equal(repo.countMatching({ q: 'needle' }, 10_000).n, 100);
    assert.equal(repo.page({ q: 'needle', limit: 1000 }).rows.at(-1)!.id, 'c2000');
  } finally {
    store.db.close();
    h.cleanup();
  }
});
