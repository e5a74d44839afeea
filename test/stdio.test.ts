import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { connectV1, connectV2, textOf, bgRead } from './helpers/clients.js';
import { tempHome, waitFor, pidAlive, sleep } from './helpers/env.js';
import { checkCatalogue } from './helpers/catalogue.js';

describe('pincer stdio --standalone with the v2 client', () => {
  const h = tempHome();
  let client: Client;
  before(async () => {
    ({ client } = await connectV2({ home: h.home }));
  });
  after(async () => {
    await client.close();
    h.cleanup();
  });

  test('handshake and exactly the catalogue tools with their parameters', async () => {
    assert.equal(client.getServerVersion()?.name, 'pincer');
    assert.ok(client.getServerCapabilities()?.tools?.listChanged);
    const { tools } = await client.listTools();
    checkCatalogue(tools);
  });

  test('Bash returns combined output in order and the exit code', async () => {
    const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo one; echo two >&2; echo three; exit 7' } });
    assert.equal(textOf(r), 'one\ntwo\nthree\n[Exit code 7]');
    assert.equal(r.isError, false);
    // It ran where the client started pincer (connectV2 starts it in the test's home).
    assert.deepEqual({ ...(r.structuredContent as object), duration_ms: 0 }, { exit_code: 7, output: 'one\ntwo\nthree\n', timed_out: false, cancelled: false, dropped_chars: 0, duration_ms: 0, cwd: h.home, cwd_from: 'client', shell: `bash on ${process.platform === 'darwin' ? 'macOS' : 'Linux'}` });
    const ok = await client.callTool({ name: 'Bash', arguments: { command: 'true' } });
    assert.equal(textOf(ok), '(no output)');
    assert.equal((ok.structuredContent as { exit_code: number }).exit_code, 0);
  });

  test('Bash timeout kills the whole process tree and says so', async () => {
    const r = await client.callTool({ name: 'Bash', arguments: { command: 'sleep 300 & echo child=$!; sleep 300', timeout: 500 } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /timed out after 500 ms and was killed/);
    const pid = Number(/child=(\d+)/.exec(textOf(r))![1]);
    await waitFor(() => !pidAlive(pid), `background child ${pid} to be killed`);
  });

  test('cancelling the request kills the command tree', async () => {
    const ac = new AbortController();
    const call = client.callTool({ name: 'Bash', arguments: { command: `echo $$ > pid-cancel; sleep 300 & echo $! >> pid-cancel; wait` } }, { signal: ac.signal });
    const fs = await import('node:fs');
    const path = await import('node:path');
    const file = path.join(h.home, 'pid-cancel');
    const pids = await waitFor(() => {
      const t = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
      return t.length === 2 ? t.map(Number) : undefined;
    }, 'the command to start');
    ac.abort();
    await assert.rejects(call);
    for (const pid of pids) await waitFor(() => !pidAlive(pid), `process ${pid} to be killed after cancel`);
  });

  test('long output is cut in the middle with a note', async () => {
    const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo START; head -c 100000 /dev/zero | tr "\\0" x; echo; echo END' } });
    const t = textOf(r);
    assert.ok(t.startsWith('START\n'));
    assert.ok(t.endsWith('END'));
    assert.match(t, /\[\.\.\. \d+ characters dropped from the middle \.\.\.\]/);
    assert.ok(t.length < 31_000);
    assert.ok((r.structuredContent as { dropped_chars: number }).dropped_chars > 60_000);
  });

  test('output streams as progress notifications while the command runs', async () => {
    const messages: string[] = [];
    const r = await client.callTool(
      { name: 'Bash', arguments: { command: 'for i in 1 2 3; do echo tick$i; sleep 0.3; done' } },
      { onprogress: (p) => messages.push(p.message ?? '') },
    );
    assert.match(textOf(r), /tick1\ntick2\ntick3/);
    assert.ok(messages.length >= 2, `expected several progress notifications, got ${messages.length}`);
    assert.match(messages.join(''), /tick1\ntick2\ntick3/);
  });

  test('tool errors are results with isError and a message that says what to fix', async () => {
    const bad = await client.callTool({ name: 'Bash', arguments: { command: 42 } as unknown as Record<string, unknown> });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /Bash: invalid arguments: command: .*expected string/);
    const tooLong = await client.callTool({ name: 'Bash', arguments: { command: 'true', timeout: 600001 } });
    assert.match(textOf(tooLong), /timeout must be at most 600000 ms/);
    const missing = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: 999 } });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /there is no background task 999\. ListBgTasks/);
    await assert.rejects(client.callTool({ name: 'NoSuchTool', arguments: {} }), /Unknown tool: NoSuchTool/);
  });

  test('background jobs: start, read only new output, wait, list, kill', async () => {
    const start = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo first; sleep 0.5; echo second; sleep 300' } });
    const id = (start.structuredContent as { task_id: number }).task_id;
    assert.match(textOf(start), new RegExp(`Started background task ${id}`));
    const r1 = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 5000 } });
    assert.match(textOf(r1), /first/);
    const r2 = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 5000 } });
    const out2 = bgRead(r2).output;
    assert.equal(out2, 'second\n', 'only the output added since the previous read');
    const list = await client.callTool({ name: 'ListBgTasks', arguments: {} });
    const row = (list.structuredContent as { tasks: { task_id: number; status: string; pid: number }[] }).tasks.find((t) => t.task_id === id)!;
    assert.equal(row.status, 'running');
    const kill = await client.callTool({ name: 'KillBgTask', arguments: { task_id: id } });
    assert.match(textOf(kill), new RegExp(`Killed task ${id}`));
    await waitFor(() => !pidAlive(row.pid), 'the job process to be gone');
    const after = await client.callTool({ name: 'ListBgTasks', arguments: {} });
    assert.match(textOf(after), new RegExp(`\\b${id}\\s+killed`));
    const again = await client.callTool({ name: 'KillBgTask', arguments: { task_id: id } });
    assert.equal(again.isError, true);
    assert.match(textOf(again), /already killed/);
  });

  test('a job that ends records its exit code', async () => {
    const start = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo done; exit 5' } });
    const id = (start.structuredContent as { task_id: number }).task_id;
    let last: { status: string; exit_code: number | null; output: string } | undefined;
    let all = '';
    await waitFor(async () => {
      const r = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 1000 } });
      last = bgRead(r);
      all += last!.output;
      return last!.status !== 'running';
    }, 'the job to exit');
    assert.equal(last!.status, 'exited 5');
    assert.equal(last!.exit_code, 5);
    assert.equal(all, 'done\n');
    const killed = await client.callTool({ name: 'KillBgTask', arguments: { task_id: id } });
    assert.match(textOf(killed), /already exited with code 5/);
  });
});

describe('the v1 client and the 2026-07-28 era', () => {
  test('v1 @modelcontextprotocol/sdk client completes a session', async () => {
    const h = tempHome();
    const { client } = await connectV1({ home: h.home });
    try {
      const { tools } = await client.listTools();
      checkCatalogue(tools);
      const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo v1' } });
      assert.equal(textOf(r), 'v1');
    } finally {
      await client.close();
      h.cleanup();
    }
  });

  test('v2 client pinned to 2026-07-28 is served', async () => {
    const h = tempHome();
    const { client } = await connectV2({ home: h.home, modern: true });
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const { tools } = await client.listTools();
      checkCatalogue(tools);
      const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo modern' } });
      assert.equal(textOf(r), 'modern');
    } finally {
      await client.close();
      h.cleanup();
    }
  });

  test('stdin closing ends the process cleanly', async () => {
    const h = tempHome();
    const { client, transport } = await connectV2({ home: h.home });
    const pid = transport.pid!;
    await client.close();
    await waitFor(() => !pidAlive(pid), 'pincer to exit after stdin closed');
    await sleep(10);
    h.cleanup();
  });
});
