import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { connectV2, textOf, bgRead } from './helpers/clients.js';
import { PINCER_BIN, pincerEnv, tempHome, waitFor, pidAlive, spaceOut, WAIT_MS } from './helpers/env.js';
import { readHubJson, startHubProcess, tokenOf, stopHubOf } from './helpers/hub.js';
import { signHandover } from '../main/hub/identity.js';
import { osFreePort } from './helpers/ports.js';
import http from 'node:http';
import { SHARES_PORT } from '../main/hub/listen.js';

function serve(home: string, args: string[] = [], env: Record<string, string> = {}): { child: ChildProcess; out: () => string } {
  const child = spawn(process.execPath, [PINCER_BIN, 'serve', '--quiet', ...args], { env: pincerEnv(home, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, out: () => out };
}

const bash = (command: string) => ({ name: 'Bash', arguments: { command } });

// Both orders: listening beside the old hub (Linux), and drain-release-listen (macOS, Windows; PINCER_SHARE_PORT=0 here).
for (const env of [{}, { PINCER_SHARE_PORT: '0' }] as Record<string, string>[]) {
  test(`pincer serve takes over a headless hub${env.PINCER_SHARE_PORT ? ' (drain, release, listen)' : ''}: two bridges keep working, a call in flight finishes, the job runs on, the question stays pending, callbacks fire once each`, { timeout: 120_000 }, async () => {
    const h = tempHome();
    fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `HTTP_PORT=${await osFreePort()}\n`, { mode: 0o600 });
    const gate = path.join(h.home, 'gate');
    const one = await connectV2({ home: h.home, args: ['stdio'], env });
    const two = await connectV2({ home: h.home, args: ['stdio'], env });
    let taker: ReturnType<typeof serve> | undefined;
    let jobPid: number | undefined;
    try {
      assert.match(textOf(await one.client.callTool(bash('echo one'))), /^one$/m);
      assert.match(textOf(await two.client.callTool(bash('echo two'))), /^two$/m);
      const old = readHubJson(h.home)!;
      assert.ok(pidAlive(old.pid));

      const job = await one.client.callTool({ name: 'BackgroundBash', arguments: { command: `echo before; while [ ! -e ${gate} ]; do sleep 0.1; done; echo after; exit 5` } });
      const jobId = (job.structuredContent as { task_id: number }).task_id;
      jobPid = (job.structuredContent as { pid: number }).pid;
      const cb = await one.client.callTool({ name: 'SetCallback', arguments: { action: 'set', message: 'across the handover', delay_seconds: 2, repeat_count: 3 } });
      assert.notEqual(cb.isError, true, textOf(cb));
      // A question waiting for the person, and a command still running, when the handover comes.
      const asked = two.client.callTool({ name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify([{ question: 'Keep going?', options: ['yes', 'no'] }]) } }).then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      const token = tokenOf(h.home);
      const pending = async (url: string) => ((await (await fetch(`${url}/api/questions`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { pending: { id: number }[] }).pending;
      await waitFor(async () => (await pending(old.url)).length === 1, 'the question to be pending');
      // A command still running when the takeover starts (it says when it runs); one gated to end only during the
      // drain, through the bridge and over HTTP, is handover-in-flight.test.ts.
      const started = path.join(h.home, 'in-flight-started');
      const inFlight = one.client.callTool(bash(`touch ${started}; sleep 1.5; echo finished-in-grace`));
      await waitFor(() => fs.existsSync(started), 'the call to be in flight');

      taker = serve(h.home, [], env);
      const next = await waitFor(() => {
        const j = readHubJson(h.home);
        return j && j.pid === taker!.child.pid ? j : undefined;
      }, 'the new hub to write hub.json');
      assert.equal(next.port, old.port, 'the new hub listens on the port of the old one');
      await waitFor(() => !pidAlive(old.pid), 'the old hub to exit');

      const finished = await inFlight;
      // (The callback, due at 2 s, may ride on this result: its text then comes first.)
      assert.equal((finished.structuredContent as { output: string }).output, 'finished-in-grace\n', 'the call in flight finished within the grace period');

      // Between calls, neither client notices: the next calls simply work.
      assert.match(textOf(await one.client.callTool(bash('echo one-after'))), /^one-after$/m);
      assert.match(textOf(await two.client.callTool(bash('echo two-after'))), /^two-after$/m);

      // The job kept running and is readable through the new hub.
      const list = await one.client.callTool({ name: 'ListBgTasks', arguments: {} });
      assert.equal((list.structuredContent as { tasks: { task_id: number; status: string }[] }).tasks.find((t) => t.task_id === jobId)?.status, 'running');
      fs.writeFileSync(gate, '');
      let out = '';
      const done = await waitFor(async () => {
        const r = await one.client.callTool({ name: 'ReadBgOutput', arguments: { task_id: jobId, wait_ms: 2000 } });
        const s = bgRead(r);
        out += s.output;
        return s.status !== 'running' ? s : undefined;
      }, 'the job to end');
      assert.equal(done.status, 'exited 5');
      assert.match(out, /before\n(.*\n)?after\n$/s);

      // The question is still pending on the new hub, and answerable there.
      const still = await pending(next.url);
      assert.equal(still.length, 1, 'the question stayed pending');
      const answer = await fetch(`${next.url}/api/questions/${still[0]!.id}/answer`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ answers: [{ question: 'Keep going?', selected: ['yes'] }] }) });
      assert.equal(answer.status, 200, await answer.text());
      const outcome = await asked;
      assert.equal(outcome.ok ? outcome.r.isError : true, true, 'the call that was waiting on the old hub was told to ask again');

      // Each of the three fires happened exactly once, whichever hub fired it: the callback ends after its third.
      const db = new Database(path.join(h.home, 'pincer.db'), { readonly: true });
      try {
        await waitFor(() => (db.prepare(`SELECT status FROM callbacks`).get() as { status: string }).status === 'done', 'the callback to fire its three times');
        const fires = db.prepare(`SELECT fire_number FROM callback_fires ORDER BY fire_number`).all() as { fire_number: number }[];
        assert.deepEqual(fires.map((f) => f.fire_number), [1, 2, 3]);
      } finally {
        db.close();
      }
    } finally {
      await one.client.close().catch(() => undefined);
      await two.client.close().catch(() => undefined);
      taker?.child.kill('SIGTERM');
      await stopHubOf(h.home).catch(() => undefined);
      // A failed run must not leave its job waiting for the gate.
      if (jobPid && pidAlive(jobPid)) fs.writeFileSync(gate, '');
      h.cleanup();
    }
  });
}

test('a bridge\'s hub never takes over, and a handover request must be signed with this home\'s secret', { timeout: 60_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const second = spawnSync(process.execPath, [PINCER_BIN, 'serve', '--if-none'], { env: pincerEnv(h.home, { HTTP_PORT: 'auto' }), encoding: 'utf8', timeout: WAIT_MS });
    assert.equal(second.status, 3);
    assert.match(second.stderr, /already runs for this data directory/);
    assert.equal(hub.child.exitCode, null);

    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${hub.url}/api/hub/handover`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const forged = signHandover(Buffer.alloc(32, 7), { pid: process.pid, role: 'desktop', force: true, nonce: 'n'.repeat(20), at: Date.now() });
    const r1 = await post(forged);
    assert.equal(r1.status, 403);
    assert.equal(((await r1.json()) as { error: { code: string } }).error.code, 'HANDOVER_NOT_SIGNED');
    const r2 = await post({ pid: 'x' });
    assert.equal(r2.status, 400);
    assert.match(((await r2.json()) as { error: { message: string } }).error.message, /malformed: pid/);
    const secret = Buffer.from(fs.readFileSync(path.join(h.home, 'hub-secret'), 'utf8').trim(), 'hex');
    const stale = signHandover(secret, { pid: process.pid, role: 'desktop', force: true, nonce: 's'.repeat(20), at: Date.now() - 10 * 60_000 });
    const r3 = await post(stale);
    assert.equal(((await r3.json()) as { error: { code: string } }).error.code, 'HANDOVER_REPLAYED');
    const fromPage = await post(signHandover(secret, { pid: process.pid, role: 'desktop', force: true, nonce: 'p'.repeat(20), at: Date.now() }), { Origin: 'http://evil.example' });
    assert.equal(fromPage.status, 403, 'a web page cannot ask, even with a valid signature');
    assert.ok((await fetch(`${hub.url}/api/mcp/health`)).ok, 'the hub is still serving');
    assert.equal(hub.child.exitCode, null);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('while handing over, the call in flight gets its answer, and new calls are served (where the newcomer listens beside the old hub) or told "Pincer is restarting, send the request again"', { timeout: 60_000 }, async () => {
  const h = tempHome();
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `HTTP_PORT=${await osFreePort()}\nBASH_CWD=${h.home}\n`, { mode: 0o600 });
  const { startHub } = await import('../main/hub/hub.js');
  const old = await startHub({ home: h.home, handoverGraceMs: 20_000 });
  let next: Awaited<ReturnType<typeof startHub>> | undefined;
  // One connection to the old hub, kept open across the handover (what a client's connection pool holds).
  const kept = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const token = tokenOf(h.home);
    const call = (command: string, agent: http.Agent | false) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Bash', arguments: { command } } });
        const req = http.request(`${old.url}/api/mcp/jsonrpc`, { method: 'POST', agent, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    assert.match((await call('echo warm', kept)).body, /warm/);
    const inFlight = call('sleep 1.5; echo slow-done', false);
    await waitFor(() => old.runtime.activity.recent(5).some((c) => c.tool === 'Bash' && c.ms === undefined), 'the slow call to start');
    const taking = startHub({ home: h.home, takeover: 'headless' });
    // Calls keep coming while the hub changes hands: on the connection already open and on new ones.
    const late: Promise<{ status: number; body: string }>[] = [];
    for (let i = 0; i < 6; i++) {
      late.push(call(`echo late-${i}`, i % 2 === 0 ? kept : false));
      await spaceOut(250, 'calls that straddle the handover');
    }
    assert.match((await inFlight).body, /slow-done/, 'the call in flight finished on the old hub');
    next = await taking;
    assert.equal(next.port, old.port);
    const ended = await old.ended;
    assert.equal(ended.kind, 'handover');
    assert.equal(ended.kind === 'handover' && ended.to.pid, process.pid);
    for (const [i, r] of (await Promise.all(late)).entries()) {
      if (SHARES_PORT) assert.match(r.body, new RegExp(`late-${i}`), `call ${i} (${r.status}) was not served: ${r.body.slice(0, 200)}`);
      else assert.ok(r.status === 200 || /Pincer is restarting, send the request again\./.test(r.body), `call ${i}: ${r.status} ${r.body.slice(0, 200)}`);
    }
    const again = await call('echo sent-again', false);
    assert.match(again.body, /sent-again/);
  } finally {
    kept.destroy();
    await next?.close();
    await old.close();
    h.cleanup();
  }
});
