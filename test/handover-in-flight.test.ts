import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { closeStdioClient, connectV2, textOf } from './helpers/clients.js';
import { PINCER_BIN, pincerEnv, pidAlive, tempHome, waitFor } from './helpers/env.js';
import { readHubJson, stopHubOf, tokenOf } from './helpers/hub.js';
import { osFreePort } from './helpers/ports.js';

/**
 * A call that is still running when the old hub accepts a handover finishes there and its answer reaches
 * its client, through the bridge's pipe and over Streamable HTTP, in both orders (listening beside the old
 * hub; drain, release, listen). Each command says when it runs (a file it touches) and ends only once the
 * test opens its gate, after the old hub has accepted the handover, so the call is in flight during the drain.
 */

/** A command that touches `started`, waits for `gate` (bounded: it gives up after a minute), then prints `word`. */
function gated(started: string, gate: string, word: string): string {
  return `touch ${started}; i=0; while [ ! -e ${gate} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; echo ${word}`;
}

const bash = (command: string) => ({ name: 'Bash', arguments: { command } });

function serve(home: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [PINCER_BIN, 'serve', '--quiet'], { env: pincerEnv(home, env), stdio: 'ignore' });
}

/** The old hub said it accepted the handover to `pid` (hub.log; the newcomer writes to the same file only later lines). */
function handingOverTo(home: string, pid: number): boolean {
  const file = path.join(home, 'logs', 'hub.log');
  return fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(`handing over to pid ${pid}`);
}

async function connectHttp(url: string, token: string, modern: boolean): Promise<Client> {
  const client = new Client({ name: 'pincer-test-http', version: '1.0.0' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

const settle = <T>(p: Promise<T>) => p.then((r) => ({ ok: true as const, r }), (e: unknown) => ({ ok: false as const, e }));

// PINCER_LOG_LEVEL=info: the test reads in hub.log when the old hub accepted the handover.
for (const env of [{ PINCER_LOG_LEVEL: 'info' }, { PINCER_LOG_LEVEL: 'info', PINCER_SHARE_PORT: '0' }] as Record<string, string>[]) {
  const order = env.PINCER_SHARE_PORT ? 'drain, release, listen' : 'the newcomer listens beside the old hub';
  test(`a call in flight when the hub hands over finishes and answers its client, through the bridge and over HTTP (${order}); one past the grace is told to send it again`, { timeout: 180_000 }, async () => {
    const h = tempHome();
    fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `HTTP_PORT=${await osFreePort()}\n`, { mode: 0o600 });
    const file = (name: string) => path.join(h.home, name);
    const bridge = await connectV2({ home: h.home, args: ['stdio'], env });
    const modernBridge = await connectV2({ home: h.home, args: ['stdio'], env, modern: true });
    let http: Client | undefined;
    let modern: Client | undefined;
    let taker: ChildProcess | undefined;
    try {
      assert.match(textOf(await bridge.client.callTool(bash('echo warm'))), /^warm$/m);
      const old = readHubJson(h.home)!;
      http = await connectHttp(old.url, tokenOf(h.home), false);
      modern = await connectHttp(old.url, tokenOf(h.home), true);

      const calls = {
        bridge: settle(bridge.client.callTool(bash(gated(file('bridge-started'), file('gate'), 'bridge-done')))),
        http: settle(http.callTool(bash(gated(file('http-started'), file('gate'), 'http-done')))),
        modern: settle(modern.callTool(bash(gated(file('modern-started'), file('gate'), 'modern-done')))),
        modernBridge: settle(modernBridge.client.callTool(bash(gated(file('modernBridge-started'), file('gate'), 'modernBridge-done')))),
        // Still running when the grace period ends: its gate opens only once the old hub has exited.
        late: settle(bridge.client.callTool(bash(gated(file('late-started'), file('late-gate'), 'late-done')))),
      };
      for (const name of ['bridge', 'http', 'modern', 'modernBridge', 'late']) await waitFor(() => fs.existsSync(file(`${name}-started`)), `the ${name} call to run`);

      taker = serve(h.home, env);
      const takerPid = taker.pid!;
      await waitFor(() => handingOverTo(h.home, takerPid), 'the old hub to accept the handover');
      fs.writeFileSync(file('gate'), '');
      for (const [name, settled] of Object.entries({ bridge: calls.bridge, http: calls.http, modern: calls.modern, modernBridge: calls.modernBridge })) {
        const s = await settled;
        assert.ok(s.ok, `the ${name} call failed: ${s.ok ? '' : String(s.e)}`);
        assert.equal((s.r.structuredContent as { output: string }).output, `${name}-done\n`, `the ${name} call finished on the old hub: ${textOf(s.r)}`);
      }

      // Past the grace period the old hub goes; the call still running there is answered "send it again".
      await waitFor(() => !pidAlive(old.pid), 'the old hub to exit');
      fs.writeFileSync(file('late-gate'), '');
      const late = await calls.late;
      assert.equal(late.ok, false, 'the call past the grace period was cut');
      assert.match(String(late.ok ? '' : late.e), /Pincer is restarting, send the request again/);
      const next = await waitFor(() => {
        const j = readHubJson(h.home);
        return j && j.pid === takerPid ? j : undefined;
      }, 'the new hub to write hub.json');
      assert.equal(next.port, old.port);
      // Nothing is lost: the cut call's activity row stays, and the bridge's next call is served by the new hub.
      const db = new Database(path.join(h.home, 'pincer.db'), { readonly: true });
      try {
        const rows = db.prepare(`SELECT args FROM tool_calls WHERE tool = 'Bash' AND args LIKE ?`).all(`%late-started%`);
        assert.equal(rows.length, 1, 'the call cut by the handover keeps its activity row');
      } finally {
        db.close();
      }
      assert.match(textOf(await bridge.client.callTool(bash('echo after'))), /^after$/m);
    } finally {
      await http?.close().catch(() => undefined);
      await modern?.close().catch(() => undefined);
      await closeStdioClient(bridge);
      await closeStdioClient(modernBridge);
      fs.writeFileSync(file('gate'), '');
      fs.writeFileSync(file('late-gate'), '');
      taker?.kill('SIGTERM');
      await stopHubOf(h.home).catch(() => undefined);
      h.cleanup();
    }
  });
}
