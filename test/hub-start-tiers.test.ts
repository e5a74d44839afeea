import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readHubJson, tokenOf, stopHubOf } from './helpers/hub.js';
import { tempHome, pincerEnv, PINCER_BIN, waitFor, sleep } from './helpers/env.js';

/**
 * The hub starts with V8's optimising compilers off and turns them back on once it listens (issue 17,
 * core/node-flags.ts). V8's --trace-opt prints a line for every function it optimises: counted, not timed.
 */
const OPTIMISED = /completed (compiling|optimizing)/g;

async function tracedHub(env: Record<string, string>): Promise<{ output(): string; url: string; token: string; home: string; cleanup(): Promise<void> }> {
  const h = tempHome();
  const child = spawn(process.execPath, ['--trace-opt', PINCER_BIN, 'serve', '--quiet'], { env: pincerEnv(h.home, { HTTP_PORT: 'auto', ...env }), cwd: h.home, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.resume();
  const info = await waitFor(() => readHubJson(h.home), 'hub.json', 20_000);
  await waitFor(async () => (await fetch(`${info.url}/api/mcp/health`).catch(() => undefined))?.ok, 'the hub to answer');
  return {
    output: () => out,
    url: info.url,
    token: tokenOf(h.home),
    home: h.home,
    cleanup: async () => {
      await stopHubOf(h.home);
      h.cleanup();
    },
  };
}

const optimisedIn = (text: string) => (text.match(OPTIMISED) ?? []).length;

test('the hub optimises (almost) nothing while it starts, and optimises calls once it listens', async () => {
  const paused = await tracedHub({});
  const always = await tracedHub({ PINCER_HUB_START_TIERS: '1' });
  try {
    // Both hubs have started and idled the same while; compare what each optimised.
    await sleep(1000);
    const pausedAtStart = optimisedIn(paused.output());
    const alwaysAtStart = optimisedIn(always.output());
    assert.ok(alwaysAtStart >= 20, `with default tiers start-up optimises functions (${alwaysAtStart}): else this test shows nothing`);
    assert.ok(pausedAtStart * 4 < alwaysAtStart, `start-up with the tiers off optimised ${pausedAtStart} functions, with default tiers ${alwaysAtStart}`);
    const client = new Client({ name: 'tiers', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${paused.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${paused.token}` } } }));
    try {
      for (let i = 0; i < 300; i++) await client.callTool({ name: 'ListBgTasks', arguments: {} });
    } finally {
      await client.close();
    }
    await waitFor(() => optimisedIn(paused.output()) >= pausedAtStart + 20 || undefined, 'calls after start to be optimised', 10_000);
  } finally {
    await paused.cleanup();
    await always.cleanup();
  }
});

test('a tier flag the person gives the hub stays in force after start', async () => {
  const h = tempHome();
  const child = spawn(process.execPath, ['--trace-opt', '--no-maglev', '--no-turbofan', PINCER_BIN, 'serve', '--quiet'], { env: pincerEnv(h.home, { HTTP_PORT: 'auto' }), cwd: h.home, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.resume();
  try {
    const info = await waitFor(() => readHubJson(h.home), 'hub.json', 20_000);
    const client = new Client({ name: 'tiers', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${info.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokenOf(h.home)}` } } }));
    try {
      for (let i = 0; i < 300; i++) await client.callTool({ name: 'ListBgTasks', arguments: {} });
    } finally {
      await client.close();
    }
    await sleep(500);
    assert.equal(optimisedIn(out), 0, 'nothing optimised: the hub did not turn the compilers back on');
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});
