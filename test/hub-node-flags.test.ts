import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { connectV2 } from './helpers/clients.js';
import { readHubJson, startHubProcess, stopHubOf } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';
import { HUB_NODE_FLAGS } from '../main/core/node-flags.js';

// The hub's V8 flags (issue 17) take effect only on its command line; /proc shows the one it runs with.
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
