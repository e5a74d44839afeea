import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pincerPaths } from '../main/core/paths.js';
import { openStore, type Db } from '../main/store/db.js';
import { TodosRepo, SEARCH_COUNT_AHEAD, type TodoFilter } from '../main/store/todos.js';
import { seedYear } from './helpers/year-seed.js';
import { tempHome } from './helpers/env.js';

/**
 * The Tasks page's and TaskManager's text search (TodosRepo.page with `q`) against the plain definition —
 * the tasks whose name or any step contains the text, case-insensitively, newest first — on a seeded
 * folder of 3 000 tasks and 16 000 steps: rare and common texts (the two ways the store finds them), texts
 * shorter than a trigram, FTS syntax in the text, every status filter, page after page, steps added to old
 * tasks later, and a total that is exact up to SEARCH_COUNT_AHEAD past the page and says "at least" beyond.
 */

interface Plain {
  id: number;
  text: string;
  open: boolean;
  archived: boolean;
}

describe('task text search', () => {
  const h = tempHome();
  let db: Db;
  let repo: TodosRepo;
  let all: Plain[];

  before(() => {
    seedYear(h.home, { counts: { jobs: 0, activity: 0, tasks: 3000, mcpTasks: 0, questions: 0, callbacks: 0, plans: 0 }, logScale: 0 });
    db = openStore(pincerPaths(h.home).database).db;
    repo = new TodosRepo(db);
    db.transaction(() => {
      // Steps added to old tasks after newer ones: a step's id then says nothing of its task's age.
      for (const id of [5, 700, 1500]) repo.addStep(id, `Late step: Quarterly-Review of ${id}`);
      const done = repo.page({ status: 'done', limit: 40, offset: 100 }).rows;
      for (const t of done.slice(0, 20)) repo.archive(t.id);
      repo.addStep(repo.create('Quote "this" * and (that) OR NOT').id, 'a step with "quotes" and NEAR(x y)');
    })();
    all = (db.prepare(`SELECT t.id, t.completed_at, t.archived_at, t.name || char(10) || COALESCE((SELECT group_concat(text, char(10)) FROM task_steps WHERE task_id = t.id), '') AS text FROM tasks t ORDER BY t.id DESC`).all() as { id: number; completed_at: number | null; archived_at: number | null; text: string }[]).map((r) => ({ id: r.id, text: r.text.toLowerCase(), open: r.completed_at === null, archived: r.archived_at !== null }));
  });
  after(() => {
    db?.close();
    h.cleanup();
  });

  const expected = (q: string, status: TodoFilter) =>
    all.filter((t) => t.text.includes(q.toLowerCase()) && (status === 'all' || (status === 'open' ? t.open : status === 'done' ? !t.open && !t.archived : t.archived))).map((t) => t.id);

  const texts = ['refactor', 'REFACTOR PINCER', 'npm', 'check the output', 'of task 42', 'quarterly-review', '#1', 'zz', 'e', '"quotes"', 'NEAR(x', '* and (that) or not', 'nothing matches this'];

  test('the same tasks as the plain definition, newest first, for rare, common and short texts under every filter', () => {
    for (const q of texts) {
      for (const status of ['all', 'open', 'done', 'archived'] as const) {
        const want = expected(q, status);
        const got = repo.page({ q, status, limit: 50 });
        assert.deepEqual(got.rows.map((t) => t.id), want.slice(0, 50), `${q} (${status})`);
        if (want.length <= 50 + SEARCH_COUNT_AHEAD) assert.deepEqual([got.total, got.capped], [want.length, false], `${q} (${status}): exact total`);
        else assert.deepEqual([got.total, got.capped], [50 + SEARCH_COUNT_AHEAD, true], `${q} (${status}): an "at least" total`);
      }
    }
    // Both ways of finding matches were taken (a common text among steps, and a rare one).
    assert.ok(expected('check the output', 'all').length > 2000 && expected('of task 42', 'all').length < 50);
  });

  test('page after page joins into every match; the count reaches past each page', () => {
    for (const q of ['npm', 'refactor', 'quarterly-review']) {
      const want = expected(q, 'all');
      const seen: number[] = [];
      for (let offset = 0; offset < want.length + 40; offset += 40) {
        const p = repo.page({ q, limit: 40, offset });
        seen.push(...p.rows.map((t) => t.id));
        assert.equal(p.total, Math.min(want.length, offset + 40 + SEARCH_COUNT_AHEAD), `${q} at ${offset}`);
        assert.equal(p.capped, want.length > offset + 40 + SEARCH_COUNT_AHEAD);
      }
      assert.deepEqual(seen, want, q);
    }
  });

  test('a page carries its steps, and the counts without a text are exact', () => {
    const p = repo.page({ q: 'quarterly-review', limit: 10 });
    assert.ok(p.rows.length === 3 && p.rows.every((t) => t.steps.some((s) => s.text.startsWith('Late step: Quarterly-Review'))));
    const c = repo.counts();
    assert.equal(repo.page({ status: 'done', limit: 1 }).total, c.done);
    assert.equal(repo.page({ status: 'all', limit: 1 }).total, all.length);
  });
});
