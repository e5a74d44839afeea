import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { connectV2, connectV1, textOf } from './helpers/clients.js';
import { readHubJson, stopHubOf, startHubProcess } from './helpers/hub.js';
import net from 'node:net';
import { tempHome, waitFor, pidAlive } from './helpers/env.js';
import { tryHubLock } from '../main/hub/lock.js';
import { pincerPaths } from '../main/core/paths.js';

const BRIDGE = ['stdio'];

/** Hiding ListBgTasks in the settings file reaches the client as tools/list_changed, and tools/list no longer has it. */
async function hidingReachesClient(client: Client, home: string, what: string): Promise<void> {
  let changed = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changed++;
  });
  fs.appendFileSync(path.join(home, 'pincer-env.txt'), 'TOOL_LISTBGTASKS=false\n');
  await waitFor(() => changed > 0, what);
  assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'ListBgTasks'));
}

test('pincer stdio starts a hub; a job started by one client is visible to another and outlives the first', async () => {
  const h = tempHome();
  try {
    const a = await connectV2({ home: h.home, args: BRIDGE, env: { HTTP_PORT: 'auto' } });
    const hub = await waitFor(() => readHubJson(h.home), 'hub.json');
    assert.ok(pidAlive(hub.pid));
    assert.notEqual(hub.pid, a.transport.pid, 'the hub is its own process');
    const started = await a.client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo shared; sleep 300' } });
    const id = (started.structuredContent as { task_id: number }).task_id;
    const bridgePid = a.transport.pid!;
    await a.client.close();
    await waitFor(() => !pidAlive(bridgePid), 'the first bridge to exit');

    const b = await connectV1({ home: h.home, args: BRIDGE, env: { HTTP_PORT: 'auto' } });
    try {
      assert.equal(readHubJson(h.home)!.pid, hub.pid, 'the second client reuses the running hub');
      const list = await b.client.callTool({ name: 'ListBgTasks', arguments: {} });
      const row = (list.structuredContent as { tasks: { task_id: number; status: string }[] }).tasks.find((t) => t.task_id === id);
      assert.equal(row?.status, 'running');
      const out = await b.client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 3000 } });
      assert.match(textOf(out), /shared/);
      await b.client.callTool({ name: 'KillBgTask', arguments: { task_id: id } });
    } finally {
      await b.client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('progress, cancellation and list_changed cross the bridge', async () => {
  const h = tempHome();
  try {
    const { client } = await connectV2({ home: h.home, args: BRIDGE, env: { HTTP_PORT: 'auto' } });
    try {
      const progress: string[] = [];
      const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo p1; sleep 0.4; echo p2' } }, { onprogress: (p) => progress.push(p.message ?? '') });
      assert.equal(textOf(r), 'p1\np2');
      assert.ok(progress.length >= 1 && progress.join('').includes('p1'));

      const pidFile = path.join(h.home, 'cancel-pid');
      const ac = new AbortController();
      const call = client.callTool({ name: 'Bash', arguments: { command: `echo $$ > ${pidFile}; sleep 300` } }, { signal: ac.signal });
      const pid = await waitFor(() => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0), 'the command to start');
      ac.abort();
      await assert.rejects(call);
      await waitFor(() => !pidAlive(pid), 'the cancelled command to be killed');

      await hidingReachesClient(client, h.home, 'tools/list_changed through the bridge');
    } finally {
      await client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('when the hub dies mid-session the client gets clear errors, then the bridge carries on with a new hub', async () => {
  const h = tempHome();
  try {
    const { client } = await connectV2({ home: h.home, args: BRIDGE, env: { HTTP_PORT: 'auto' } });
    try {
      const job = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'sleep 300' } });
      const id = (job.structuredContent as { task_id: number }).task_id;
      const first = readHubJson(h.home)!;
      const running = path.join(h.home, 'slow-started');
      const slow = client.callTool({ name: 'Bash', arguments: { command: `touch ${running}; sleep 20; echo late` } }).then(
        (r) => ({ ok: true as const, text: textOf(r) }),
        (e: Error) => ({ ok: false as const, text: e.message }),
      );
      await waitFor(() => fs.existsSync(running), 'the call to be in flight');
      process.kill(first.pid, 'SIGKILL');
      const outcome = await slow;
      assert.equal(outcome.ok, false, 'the call in flight fails instead of hanging');
      assert.match(outcome.text, /Pincer is restarting, send the request again/);
      assert.match(outcome.text, /hub went away/);
      const next = await waitFor(async () => {
        const r = await client.callTool({ name: 'ListBgTasks', arguments: {} }).catch(() => undefined);
        return r && !r.isError ? r : undefined;
      }, 'the bridge to reach a new hub');
      const second = readHubJson(h.home)!;
      assert.notEqual(second.pid, first.pid);
      const row = (next.structuredContent as { tasks: { task_id: number; status: string }[] }).tasks.find((t) => t.task_id === id);
      assert.equal(row?.status, 'running', 'the job survived the hub');
      await client.callTool({ name: 'KillBgTask', arguments: { task_id: id } });
    } finally {
      await client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

/** A port nothing listens on right now, for hubs that must come back on the same one. */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('when the hub shuts down between calls, the next call just works on the next hub, and the session (list_changed) carries on', async () => {
  const h = tempHome();
  const port = await freePort();
  try {
    const { client } = await connectV2({ home: h.home, args: BRIDGE, env: { HTTP_PORT: String(port) } });
    try {
      assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo before' } })), 'before');
      const first = readHubJson(h.home)!;
      process.kill(first.pid, 'SIGTERM');
      await waitFor(() => !pidAlive(first.pid), 'the first hub to exit');
      // No error, no retry by the client: the bridge finds (here: starts) the next hub and replays the session.
      assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo after' } })), 'after');
      const second = readHubJson(h.home)!;
      assert.notEqual(second.pid, first.pid);
      assert.equal(second.port, port, 'the next hub is on the same port');
      await hidingReachesClient(client, h.home, 'list_changed from the second hub, on the replayed session');
    } finally {
      await client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('a hub handing over to a newcomer on the same port: the bridge moves to the newcomer and replays the session; a call in flight completes or is told to send again', async () => {
  const h = tempHome();
  const port = await freePort();
  let newcomer: Awaited<ReturnType<typeof startHubProcess>> | undefined;
  try {
    const { client, transport } = await connectV2({ home: h.home, args: BRIDGE, env: { HTTP_PORT: String(port) } });
    try {
      const first = readHubJson(h.home)!;
      const running = path.join(h.home, 'in-flight-started');
      const inFlight = client.callTool({ name: 'Bash', arguments: { command: `touch ${running}; sleep 1; echo finished` } }).then(
        (r) => ({ ok: true as const, text: textOf(r) }),
        (e: Error) => ({ ok: false as const, text: e.message }),
      );
      await waitFor(() => fs.existsSync(running), 'the call to be in flight');
      // The old hub closes and a newcomer (as the desktop app would) takes the same port and data folder.
      // In a handover the newcomer is up by the time the bridge notices; pausing the bridge makes that so here.
      process.kill(transport.pid!, 'SIGSTOP');
      try {
        process.kill(first.pid, 'SIGTERM');
        // Its lock, not its pid: the old hub is the paused bridge's child, a zombie until the bridge reaps it.
        await waitFor(() => {
          // hub.lock stays on disk; the OS lock on it is what the old hub lets go of when it exits.
          const lock = tryHubLock(pincerPaths(h.home));
          lock?.release();
          return lock !== undefined;
        }, 'the old hub to let go of the data folder');
        newcomer = await startHubProcess(h.home, { HTTP_PORT: String(port) });
      } finally {
        process.kill(transport.pid!, 'SIGCONT');
      }
      const outcome = await inFlight;
      if (outcome.ok) assert.equal(outcome.text, 'finished');
      else assert.match(outcome.text, /Pincer is restarting, send the request again/);
      assert.equal(textOf(await client.callTool({ name: 'Bash', arguments: { command: 'echo next' } })), 'next');
      const now = readHubJson(h.home)!;
      assert.notEqual(now.pid, first.pid);
      assert.equal(now.pid, newcomer.child.pid, 'the bridge uses the newcomer rather than starting its own');
      assert.ok(pidAlive(newcomer.child.pid!));
      await hidingReachesClient(client, h.home, "list_changed from the newcomer, on the client's replayed session");
    } finally {
      await client.close();
    }
  } finally {
    await newcomer?.stop();
    await stopHubOf(h.home);
    h.cleanup();
  }
});
