import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connectV2, textOf } from './helpers/clients.js';
import { readHubJson, startHubProcess, stopHubOf } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';
import { HUB_NODE_FLAGS, HUB_MALLOC_ENV, HUB_ADDED_ENV } from '../main/core/node-flags.js';

// The hub's V8 flags (bench/RESULTS.md "mem2") take effect only on its command line; /proc shows the one it runs with.
const linuxOnly = process.platform === 'linux' ? false : 'reads /proc/<pid>/cmdline';

function commandLine(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

/** The Node options of a `node [options] script …` command line: what comes before the script. */
function nodeOptions(argv: string[]): string[] {
  const script = argv.findIndex((a) => a.endsWith('pincer.js'));
  assert.ok(script > 0, `a pincer.js command line: ${argv.join(' ')}`);
  return argv.slice(1, script);
}

test('pincer serve started without the hub flags restarts itself with them, keeping its pid', { skip: linuxOnly }, async () => {
  assert.ok(HUB_NODE_FLAGS.length > 0);
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    assert.equal(readHubJson(h.home)!.pid, hub.child.pid, 'the same process serves: execve, not a child');
    const options = nodeOptions(commandLine(hub.child.pid!));
    for (const f of HUB_NODE_FLAGS) assert.ok(options.includes(f), `${f} in ${options.join(' ')}`);
    const health = await fetch(`${hub.url}/api/mcp/health`);
    assert.equal(health.status, 200);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('PINCER_HUB_NODE_FLAGS=0 keeps the command line it was given', { skip: linuxOnly }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home, { PINCER_HUB_NODE_FLAGS: '0' });
  try {
    assert.deepEqual(nodeOptions(commandLine(hub.child.pid!)), []);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('the hub a bridge starts is given the hub flags on its command line', { skip: linuxOnly }, async () => {
  const h = tempHome();
  try {
    // No restart to add them (the hub inherits this): they must come from the bridge's spawn.
    const a = await connectV2({ home: h.home, args: ['stdio'], env: { HTTP_PORT: 'auto', PINCER_HUB_NODE_FLAGS: '0' } });
    try {
      const info = await waitFor(() => readHubJson(h.home), 'hub.json');
      const options = nodeOptions(commandLine(info.pid));
      assert.deepEqual(options, [...HUB_NODE_FLAGS]);
      const listed = await a.client.listTools();
      assert.ok(listed.tools.some((t) => t.name === 'ReadBgOutput'));
    } finally {
      await a.client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

/** The environment a process was started with (/proc keeps it even after the process changes its own). */
function startEnvironment(pid: number): Map<string, string> {
  const entries = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(entries.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

/** What a Bash command and a BackgroundBash job run by the hub see of the malloc settings and Pincer's note. */
async function mallocEnvSeenByCommands(client: Pick<Client, 'callTool'>): Promise<{ bash: string; job: string }> {
  const command = `env | grep -E '^(MALLOC_|${HUB_ADDED_ENV}=)' | sort; echo end`;
  const bash = textOf(await client.callTool({ name: 'Bash', arguments: { command } }));
  const started = await client.callTool({ name: 'BackgroundBash', arguments: { command } });
  const id = (started.structuredContent as { task_id: number }).task_id;
  let job = '';
  for (let i = 0; i < 20 && !job.includes('end'); i++) job = textOf(await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 1000 } }));
  return { bash, job };
}

test('pincer serve restarts with the glibc malloc settings; its commands and jobs see only the person\'s own values', { skip: linuxOnly }, async () => {
  const [own, added] = Object.keys(HUB_MALLOC_ENV) as [string, string];
  assert.ok(own && added, 'two settings: one the person sets, one Pincer adds');
  const h = tempHome();
  const hub = await startHubProcess(h.home, { [own]: '4' });
  const client = new Client({ name: 'malloc-env', version: '1' });
  try {
    const started = startEnvironment(hub.child.pid!);
    assert.equal(started.get(own), '4', 'the person\'s value is not overridden');
    assert.equal(started.get(added), HUB_MALLOC_ENV[added], 'the restart added the other');
    assert.equal(started.get(HUB_ADDED_ENV), added);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
    const seen = await mallocEnvSeenByCommands(client);
    assert.equal(seen.bash, `${own}=4\nend`);
    assert.match(seen.job, new RegExp(`(^|\\n)${own}=4\\nend`));
    assert.doesNotMatch(seen.job, new RegExp(`${added}|${HUB_ADDED_ENV}`));
  } finally {
    await client.close();
    await hub.stop();
    h.cleanup();
  }
});

test('the hub a bridge starts gets the glibc malloc settings in its environment, and its commands do not', { skip: linuxOnly }, async () => {
  const h = tempHome();
  try {
    // No restart (PINCER_HUB_NODE_FLAGS=0 is inherited): the settings must come from the bridge's spawn.
    const a = await connectV2({ home: h.home, args: ['stdio'], env: { HTTP_PORT: 'auto', PINCER_HUB_NODE_FLAGS: '0' } });
    try {
      const info = await waitFor(() => readHubJson(h.home), 'hub.json');
      const started = startEnvironment(info.pid);
      // PINCER_HUB_NODE_FLAGS=0 opts out of the restart and of the settings alike.
      for (const k of Object.keys(HUB_MALLOC_ENV)) assert.equal(started.get(k), undefined, k);
      const seen = await mallocEnvSeenByCommands(a.client);
      assert.equal(seen.bash, 'end');
    } finally {
      await a.client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
  const b = tempHome();
  try {
    const a = await connectV2({ home: b.home, args: ['stdio'], env: { HTTP_PORT: 'auto' } });
    try {
      const info = await waitFor(() => readHubJson(b.home), 'hub.json');
      const started = startEnvironment(info.pid);
      for (const [k, v] of Object.entries(HUB_MALLOC_ENV)) assert.equal(started.get(k), v, k);
      assert.deepEqual(nodeOptions(commandLine(info.pid)), [...HUB_NODE_FLAGS], 'started ready: no restart needed');
      const seen = await mallocEnvSeenByCommands(a.client);
      assert.equal(seen.bash, 'end');
      assert.doesNotMatch(seen.job, /MALLOC_|PINCER_HUB_ADDED_ENV/);
      assert.match(seen.job, /end/);
    } finally {
      await a.client.close();
    }
  } finally {
    await stopHubOf(b.home);
    b.cleanup();
  }
});
