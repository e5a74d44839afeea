import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, rssOf } from '../helpers/hub.js';
import { tempHome, waitFor } from '../helpers/env.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 30);

function fds(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

/** How many TCP connections a process holds open (Linux: its socket inodes in /proc/net/tcp* in state ESTABLISHED). */
function connections(pid: number): number {
  const inodes = new Set(
    fs
      .readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined; // closed meanwhile
        }
      })
      .filter((i): i is string => i !== undefined),
  );
  let n = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '01' && inodes.has(f[9]!)) n++;
    }
  }
  return n;
}

/** Children of a process that have exited but were never reaped. */
function zombies(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return fields[0] === 'Z' && Number(fields[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

test(`soak (after an 8 s warm-up): ${SECONDS} s of mixed calls from several sessions; memory and descriptors stay flat; no zombies`, { timeout: (SECONDS + 120) * 1000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { NODE_OPTIONS: '--expose-gc' });
  const memory = async () => (await (await fetch(`${hub.url}/api/hub/memory`, { headers: hub.headers() })).json()) as { heapUsed: number; rss: number; collected: boolean };
  const pid = hub.child.pid!;
  const session = async (i: number, until: number) => {
    const client = new Client({ name: `soak-${i}`, version: '1' });
    const t = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } });
    await client.connect(t);
    let calls = 0;
    while (Date.now() < until) {
      const k = calls++ % 6;
      if (k === 0) await client.callTool({ name: 'Bash', arguments: { command: `echo soak ${i}` } });
      else if (k === 1) await client.callTool({ name: 'TaskManager', arguments: { action: 'list' } });
      else if (k === 2) {
        const j = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo bg' } });
        await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: (j.structuredContent as { task_id: number }).task_id, wait_ms: 1000 } });
      } else if (k === 3) await client.callTool({ name: 'ListBgTasks', arguments: {} });
      else if (k === 4) await client.listTools();
      else await client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: 'bad json' } });
    }
    await t.terminateSession();
    await client.close();
    return calls;
  };
  try {
    // Warm up under the same load (RSS grows once as the allocator and V8 reserve their pools), then take the baseline.
    await Promise.all([0, 1, 2, 3].map((i) => session(100 + i, Date.now() + 8000)));
    // Idle keep-alive connections close after 5 s; measure when they have.
    const idle = () => waitFor(() => connections(pid) === 0, 'the idle keep-alive connections to close');
    await idle();
    const before = { heap: (await memory()).heapUsed, rss: rssOf(pid), fds: fds(pid) };
    const total = (await Promise.all([0, 1, 2, 3].map((i) => session(i, Date.now() + SECONDS * 1000)))).reduce((a, b) => a + b, 0);
    await idle();
    const m = await memory();
    assert.ok(m.collected, 'the hub ran with --expose-gc');
    const after = { heap: m.heapUsed, rss: rssOf(pid), fds: fds(pid) };
    assert.ok(total > SECONDS, `the sessions made ${total} calls`);
    assert.ok(after.fds <= before.fds + 8, `open descriptors went from ${before.fds} to ${after.fds}`);
    // The live heap (after a collection) is what a leak grows; RSS also holds pages V8 and malloc keep for reuse.
    assert.ok(after.heap <= before.heap + 16 * 1024 * 1024, `live heap went from ${(before.heap / 1048576).toFixed(1)} MB to ${(after.heap / 1048576).toFixed(1)} MB`);
    assert.ok(after.rss <= before.rss + 256 * 1024 * 1024, `RSS went from ${(before.rss / 1048576).toFixed(0)} MB to ${(after.rss / 1048576).toFixed(0)} MB`);
    console.log(`soak: ${total} calls; heap ${(before.heap / 1048576).toFixed(1)} → ${(after.heap / 1048576).toFixed(1)} MB; RSS ${(before.rss / 1048576).toFixed(0)} → ${(after.rss / 1048576).toFixed(0)} MB; fds ${before.fds} → ${after.fds}`);
    assert.deepEqual(zombies(pid), [], 'no zombie children');
    // Counts are told to the token only.
    const health = await (await fetch(`${hub.url}/api/mcp/health`, { headers: { Authorization: `Bearer ${hub.token}` } })).json();
    assert.equal(health.sessions, 0);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('reading a large job log through the hub keeps its live heap flat (previews must not pin whole results)', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { NODE_OPTIONS: '--expose-gc' });
  try {
    const call = async (name: string, args: Record<string, unknown>) =>
      (await (await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name, arguments: args }) })).json()) as { structuredContent: Record<string, unknown> };
    const job = await call('BackgroundBash', { command: 'head -c 150000000 /dev/zero | tr "\\0" x; sleep 60' });
    const id = job.structuredContent.task_id as number;
    const heap = async () => ((await (await fetch(`${hub.url}/api/hub/memory`, { headers: hub.headers() })).json()) as { heapUsed: number }).heapUsed;
    await call('ReadBgOutput', { task_id: id, max_bytes: 1048576, wait_ms: 5000 });
    const before = await heap();
    let read = 0;
    for (let i = 0; i < 120; i++) {
      // ReadBgOutput carries its output once, as text (no structured copy): count the x's it brought.
      const text = ((await call('ReadBgOutput', { task_id: id, max_bytes: 1048576, wait_ms: 2000 })) as unknown as { content: { text: string }[] }).content[0]!.text;
      read += text.length - text.replaceAll('x', '').length;
    }
    const after = await heap();
    assert.ok(read >= 100 * 1048576, `read ${read} bytes`);
    assert.ok(after - before < 24 * 1048576, `live heap grew by ${((after - before) / 1048576).toFixed(1)} MB after reading ${(read / 1048576).toFixed(0)} MB`);
    await call('KillBgTask', { task_id: id });
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
