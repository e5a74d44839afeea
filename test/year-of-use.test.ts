import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { tempHome } from './helpers/env.js';
import { textOf, bgRead, connectV1, closeStdioClient } from './helpers/clients.js';
import { seedYear, YEAR } from './helpers/year-seed.js';
import { launchChromium, watchProblems, signIn } from './helpers/browser.js';

/**
 * A data folder after a year of heavy use (10 000 jobs, 100 000 calls, 10 000 tasks, 10 000 MCP tasks),
 * seeded through Pincer's own store code, served by a real hub with retention limits raised so that all
 * of it stays: every answer is bounded and says what it left out, every list pages, and a job running
 * since before all 10 000 others is always listed — to the model and on the dashboard.
 */

/**
 * About 64 KB: the bound of every answer, as JSON on the wire. ReadBgOutput's default read is 64 KiB of
 * output, which JSON escaping makes a little larger (an ANSI escape byte is six characters).
 */
const ANSWER_MAX = 70 * 1024;
/** Keep everything the seed made: the answers must be bounded by design, not by retention. */
const KEEP_ALL = { JOB_MAX_KEPT: '10000000', JOB_RETENTION_DAYS: '36500', JOB_MAX_KEPT_BYTES: '1099511627776', TASK_RETENTION_DAYS: '36500', QUESTION_RETENTION_DAYS: '36500', CALLBACK_RETENTION_DAYS: '36500', PLAN_RETENTION_DAYS: '36500' };

const size = (r: unknown) => Buffer.byteLength(JSON.stringify(r));

describe('a year of use: bounded answers, pages and running jobs past the first page', { timeout: 600_000 }, () => {
  const h = tempHome();
  let hub: HubProcess;
  let modern: Client;
  let legacy: Awaited<ReturnType<typeof connectV1>>;
  let oldest: number;
  /** The two ended jobs with the most output: one read in the size checks, one read whole once. */
  let biggest: { id: number; bytes: number };
  let second: { id: number; bytes: number };

  before(async () => {
    // A job that has run since before the year's 10 000 others: started first, then the seed.
    let first = await startHubProcess(h.home, KEEP_ALL);
    const started = await (await fetch(`${first.url}/api/mcp/tools/call`, { method: 'POST', headers: first.headers(), body: JSON.stringify({ name: 'BackgroundBash', arguments: { command: 'echo long-runner; sleep 900' } }) })).json() as { structuredContent: { task_id: number } };
    oldest = started.structuredContent.task_id;
    await first.stop();
    seedYear(h.home, { counts: YEAR, logScale: 0.02 });
    const db = new Database(path.join(h.home, 'pincer.db'), { readonly: true });
    [biggest, second] = db.prepare(`SELECT id, log_bytes AS bytes FROM jobs WHERE status != 'running' ORDER BY log_bytes DESC LIMIT 2`).all() as { id: number; bytes: number }[] as [{ id: number; bytes: number }, { id: number; bytes: number }];
    db.close();
    hub = first = await startHubProcess(h.home, KEEP_ALL);
    modern = new Client({ name: 'year-modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
    // The 2025 generation through the bridge a client spawns (it finds the running hub).
    legacy = await connectV1({ home: h.home, args: ['stdio'], env: KEEP_ALL });
  });
  after(async () => {
    await modern?.close();
    await closeStdioClient(legacy);
    if (hub) await fetch(`${hub.url}/api/jobs/${oldest}/kill`, { method: 'POST', headers: hub.headers() }).catch(() => undefined);
    await hub?.stop();
    h.cleanup();
  });

  test('every tool answer stays under about 64 KB on both protocol generations, and says what it left out', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['TaskManager', { action: 'list' }],
      ['TaskManager', { action: 'list', status: 'done', limit: 100 }],
      ['TaskManager', { action: 'list', status: 'all', query: 'step' }],
      ['ListBgTasks', {}],
      ['ListBgTasks', { status: 'failed', limit: 200 }],
      ['ReadBgOutput', { task_id: biggest.id }],
      ['KillBgTask', { task_id: biggest.id }],
    ];
    for (const [name, args] of calls) {
      const a = await modern.callTool({ name, arguments: args });
      const b = await legacy.client.callTool({ name, arguments: args });
      for (const r of [a, b]) assert.ok(size(r) <= ANSWER_MAX, `${name} ${JSON.stringify(args)}: ${size(r)} bytes`);
    }
    const list = await modern.callTool({ name: 'TaskManager', arguments: { action: 'list' } });
    // Open tasks, then the newest finished ones with the count of the rest, and how to page on.
    assert.match(textOf(list), /Finished: 9,[0-9]{3} tasks, the newest 5 shown; the other 9,[0-9]{3} with \{"action":"list","status":"done"\}/);
    assert.equal((list.structuredContent as { counts: { open: number } }).counts.open + (list.structuredContent as { counts: { done: number } }).counts.done, 10_000);
    const jobs = await modern.callTool({ name: 'ListBgTasks', arguments: {} });
    assert.match(textOf(jobs), /Background tasks: the 30 newest of 10,001; 1 running \(1 older ones listed first\)\. Next page: ListBgTasks \{"offset":30\}/);
    // ReadBgOutput carries the output once: text only, its status in _meta.
    const read = await modern.callTool({ name: 'ReadBgOutput', arguments: { task_id: second.id, max_bytes: 1048576 } });
    assert.equal(read.structuredContent, undefined);
    const r = bgRead(read);
    assert.equal(r.bytes, second.bytes);
    // Once: JSON escaping (the seed's logs carry ANSI escapes) and the status line aside, the bytes of the output.
    assert.ok(size(read) < r.bytes * 1.15 + 4096, `${size(read)} bytes on the wire for ${r.bytes} bytes of output`);
  });

  test('ListBgTasks: the job running since before 10 000 others is listed first; status, text and pages', async () => {
    const first = (await modern.callTool({ name: 'ListBgTasks', arguments: {} })).structuredContent as { tasks: { task_id: number; status: string }[]; total: number; running: number };
    assert.equal(first.tasks[0]!.task_id, oldest);
    assert.equal(first.tasks[0]!.status, 'running');
    assert.equal(first.total, 10_001);
    assert.equal(first.tasks.length, 31, 'the running one and the 30 newest');
    const second = (await modern.callTool({ name: 'ListBgTasks', arguments: { offset: 30 } })).structuredContent as { tasks: { task_id: number }[] };
    assert.equal(second.tasks.length, 30);
    assert.ok(second.tasks.every((t) => !first.tasks.some((f) => f.task_id === t.task_id)), 'the second page holds other jobs');
    assert.ok(second.tasks[0]!.task_id < first.tasks.at(-1)!.task_id, 'newest first, page after page');
    const running = (await modern.callTool({ name: 'ListBgTasks', arguments: { status: 'running' } })).structuredContent as { tasks: { task_id: number }[]; total: number };
    assert.deepEqual(running.tasks.map((t) => t.task_id), [oldest]);
    const failed = (await modern.callTool({ name: 'ListBgTasks', arguments: { status: 'failed', query: 'cargo' } })).structuredContent as { tasks: { command: string; status: string }[]; total: number };
    assert.ok(failed.total > 0 && failed.tasks.every((t) => /cargo/.test(t.command) && t.status !== 'exited 0' && t.status !== 'running'), JSON.stringify(failed.tasks.slice(0, 3)));
  });

  test('TaskManager: status, text and pages; archive and delete; an open task cannot be archived', async () => {
    const open = (await modern.callTool({ name: 'TaskManager', arguments: { action: 'list', status: 'open' } })).structuredContent as { tasks: { id: number; completed: boolean }[]; total: number };
    assert.ok(open.total > 0 && open.tasks.every((t) => !t.completed));
    const done = (await modern.callTool({ name: 'TaskManager', arguments: { action: 'list', status: 'done', limit: 50, offset: 50 } })).structuredContent as { tasks: { id: number; completed: boolean }[]; total: number; next: { offset: number } };
    assert.equal(done.tasks.length, 50);
    assert.deepEqual(done.next, { action: 'list', status: 'done', offset: 100 });
    const hit = (await modern.callTool({ name: 'TaskManager', arguments: { action: 'list', status: 'all', query: 'task 4242:' } })).structuredContent as { tasks: { id: number; steps: { text: string }[] }[] };
    assert.ok(hit.tasks.length >= 1 && hit.tasks.every((t) => t.steps.some((s) => s.text.includes('task 4242:'))), JSON.stringify(hit.tasks.map((t) => t.id)));
    const finished = done.tasks[0]!.id;
    const archived = await modern.callTool({ name: 'TaskManager', arguments: { action: 'archive', task_id: finished } });
    assert.match(textOf(archived), new RegExp(`Archived task ${finished}`));
    const inArchive = (await modern.callTool({ name: 'TaskManager', arguments: { action: 'list', status: 'archived' } })).structuredContent as { tasks: { id: number }[] };
    assert.deepEqual(inArchive.tasks.map((t) => t.id), [finished]);
    const refused = await modern.callTool({ name: 'TaskManager', arguments: { action: 'archive', task_id: open.tasks[0]!.id } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), new RegExp(`task ${open.tasks[0]!.id} is still open .* Complete it first`));
    const deleted = await legacy.client.callTool({ name: 'TaskManager', arguments: { action: 'delete', task_id: finished } });
    assert.match(textOf(deleted), new RegExp(`Deleted task ${finished}`));
    const gone = await modern.callTool({ name: 'TaskManager', arguments: { action: 'pending', task_id: finished } });
    assert.match(textOf(gone), new RegExp(`there is no task ${finished}`));
  });

  test('the dashboard API: running jobs apart from the page, totals, pages by cursor, the choices of the filters, what is kept', async () => {
    const get = async <T>(p: string): Promise<T> => {
      const res = await fetch(`${hub.url}${p}`, { headers: hub.headers() });
      assert.equal(res.status, 200, p);
      return (await res.json()) as T;
    };
    const jobs = await get<{ jobs: { id: number }[]; running: { id: number }[]; total: number; counts: { running: number } }>('/api/jobs');
    assert.deepEqual(jobs.running.map((j) => j.id), [oldest]);
    assert.equal(jobs.total, 10_001);
    assert.equal(jobs.jobs.length, 50);
    const failed = await get<{ jobs: { status: string }[]; total: number }>('/api/jobs?status=failed&limit=10');
    assert.ok(failed.total > 500 && failed.jobs.every((j) => j.status !== 'exited 0'));
    const p1 = await get<{ calls: { id: string; started: number }[]; next: string; total: number }>('/api/activity?limit=50');
    // The year's calls and the ones this test made.
    assert.ok(p1.total >= 100_000 && p1.total < 100_200, String(p1.total));
    const p2 = await get<{ calls: { id: string; started: number }[] }>(`/api/activity?limit=50&before=${p1.next}`);
    assert.equal(p2.calls.length, 50);
    assert.ok(p2.calls[0]!.started <= p1.calls.at(-1)!.started && !p2.calls.some((c) => p1.calls.some((d) => d.id === c.id)), 'the next page goes on where the first ended');
    // Text search: the same matches whatever the hub has indexed yet (it scans the rest), newest first.
    const found = await get<{ calls: { args: string; summary?: string; client?: string; tool: string; started: number }[]; total: number; next: string }>('/api/activity?q=deploy.sh&limit=50');
    assert.equal(found.calls.length, 50);
    assert.ok(found.total > 1000 && found.calls.every((c) => `${c.tool} ${c.args} ${c.summary ?? ''} ${c.client ?? ''}`.toLowerCase().includes('deploy.sh')));
    const more = await get<{ calls: { started: number }[] }>(`/api/activity?q=deploy.sh&limit=50&before=${found.next}`);
    assert.ok(more.calls.length === 50 && more.calls[0]!.started <= found.calls.at(-1)!.started);
    const facets = await get<{ tools: string[]; clients: string[] }>('/api/activity/facets');
    assert.ok(facets.clients.length >= 12 && facets.clients.includes('windsurf 1.12.0'), facets.clients.join(', '));
    const tool = await get<{ calls: { tool: string }[]; total: number }>('/api/activity?tool=ReadImage&limit=20');
    assert.ok(tool.total > 1000 && tool.calls.every((c) => c.tool === 'ReadImage'));
    const tasks = await get<{ tasks: unknown[]; total: number; counts: { open: number; done: number } }>('/api/tasks?status=done&limit=20&offset=40');
    assert.equal(tasks.tasks.length, 20);
    assert.equal(tasks.total, tasks.counts.done);
    // A text search counts no further than 200 past its page, and says so.
    const search = await get<{ tasks: { name: string; steps: { text: string }[] }[]; total: number; capped: boolean }>('/api/tasks?status=done&q=refactor&limit=20');
    assert.deepEqual([search.tasks.length, search.total, search.capped], [20, 220, true]);
    assert.ok(search.tasks.every((t) => `${t.name} ${t.steps.map((s) => s.text).join(' ')}`.toLowerCase().includes('refactor')));
    // MCP tasks: a page of them with the total, newest first.
    const mcpFirst = await get<{ tasks: { id: string; created_at: number }[]; total: number; offset: number; limit: number }>('/api/mcp-tasks');
    const mcpThird = await get<{ tasks: { id: string; created_at: number }[]; total: number; offset: number }>('/api/mcp-tasks?limit=20&offset=40');
    assert.deepEqual([mcpFirst.tasks.length, mcpFirst.limit, mcpThird.tasks.length, mcpThird.offset], [20, 20, 20, 40]);
    assert.ok(mcpFirst.total >= 10_000 && mcpThird.total === mcpFirst.total);
    assert.ok(mcpThird.tasks[0]!.created_at <= mcpFirst.tasks.at(-1)!.created_at && !mcpThird.tasks.some((t) => mcpFirst.tasks.some((f) => f.id === t.id)), 'the third page holds older tasks');
    const badPage = await fetch(`${hub.url}/api/mcp-tasks?limit=0`, { headers: hub.headers() });
    assert.equal(badPage.status, 400);
    assert.match(((await badPage.json()) as { error: { message: string } }).error.message, /MCP tasks take offset and limit \(1-200\)/);
    const kept = await get<{ jobs: { ended: number; logBytes: number }; activity: { calls: number }; store: { fileBytes: number } }>('/api/kept');
    assert.equal(kept.jobs.ended, 10_000);
    assert.ok(kept.activity.calls >= 100_000);
    assert.ok(kept.jobs.logBytes > 1e6 && kept.store.fileBytes > 1e6);
    const bad = await fetch(`${hub.url}/api/jobs?status=sideways`, { headers: hub.headers() });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /Jobs take status \(all, running, ended/);
  });

  test('in Chromium: the running job has its card and Kill whatever the history; pages say their totals', async () => {
    const chromium: { browser: Browser; close(): Promise<void> } = await launchChromium();
    try {
      const page: Page = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } });
      const { problems } = watchProblems(page);
      await signIn(page, hub.url, hub.token);
      await page.goto(`${hub.url}/#/jobs`);
      const card = page.locator(`[data-job="${oldest}"]`);
      await card.getByRole('button', { name: 'Kill' }).waitFor();
      await page.locator('[data-pager="jobs"]').filter({ hasText: 'Jobs 1–50 of 10,001' }).waitFor();
      await page.locator('[data-jobs-counts]').filter({ hasText: '1 running' }).waitFor();
      assert.equal(await page.locator('section[data-job]').count(), 51, 'the running job and a page of history; not 10 001 cards');
      // The MCP tasks beside the jobs: a page of 20 with the total, and the next page.
      const mcpPager = page.locator('[data-pager="MCP tasks"]');
      await mcpPager.filter({ hasText: /MCP tasks 1–20 of 10,0\d\d/ }).waitFor();
      assert.equal(await page.locator('ul.mcp-tasks li[data-task]').count(), 20);
      await page.getByRole('navigation', { name: 'Pages of MCP tasks' }).getByRole('button', { name: 'Older' }).click();
      await mcpPager.filter({ hasText: /MCP tasks 21–40 of 10,0\d\d/ }).waitFor();
      await page.goto(`${hub.url}/#/activity`);
      await page.locator('[data-pager="calls"]').filter({ hasText: /Calls 1–50 of 100,0\d\d/ }).waitFor();
      await page.getByRole('button', { name: 'Older' }).click();
      await page.locator('[data-pager="calls"]').filter({ hasText: /Calls 51–100 of 100,0\d\d/ }).waitFor();
      await page.goto(`${hub.url}/#/todos`);
      await page.locator('[data-tab="done"]').filter({ hasText: /Finished \(9,\d{3}\)/ }).waitFor();
      await page.locator('[data-tab="done"]').click();
      await page.locator('[data-pager="todos"]').filter({ hasText: /Todos 1–20 of 9,\d{3}/ }).waitFor();
      // A text search's total is "at least" past 200 more than the page.
      await page.locator('#tasks-search').fill('refactor');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.locator('[data-pager="todos"]').filter({ hasText: 'Todos 1–20 of 220+' }).waitFor();
      await page.getByRole('navigation', { name: 'Pages of todos' }).getByRole('button', { name: 'Older' }).click();
      await page.locator('[data-pager="todos"]').filter({ hasText: 'Todos 21–40 of 240+' }).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await chromium.close();
    }
  });
});

test('fs layout of the seed: real log files of the sizes recorded', () => {
  const h = tempHome();
  try {
    const r = seedYear(h.home, { counts: { jobs: 40, activity: 10, tasks: 5, mcpTasks: 2, questions: 2, callbacks: 1, plans: 1 }, logScale: 0.1 });
    const db = new Database(path.join(h.home, 'pincer.db'), { readonly: true });
    const rows = db.prepare('SELECT log_path, log_bytes FROM jobs').all() as { log_path: string; log_bytes: number }[];
    db.close();
    assert.equal(rows.length, 40);
    for (const row of rows) assert.equal(fs.statSync(row.log_path).size, row.log_bytes);
    assert.equal(rows.reduce((n, row) => n + row.log_bytes, 0), r.logBytes);
  } finally {
    h.cleanup();
  }
});

