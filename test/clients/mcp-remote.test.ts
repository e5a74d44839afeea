import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startHubProcess, type HubProcess } from '../helpers/hub.js';
import { ROOT, tempHome, WAIT_MS } from '../helpers/env.js';
import { connectV2Command, drivenSdk, runScenario, writeSkill, type ScenarioOptions } from '../helpers/clients.js';

/**
 * mcp-remote, the stdio-to-HTTP bridge most Claude Desktop users run to reach
 * an HTTP server, driven by the official v2 client as Claude Desktop would
 * drive it: over the hub's /mcp (http-only) and /sse (sse-only).
 */
const MCP_REMOTE = path.join(ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');

function remoteEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  // mcp-remote keeps OAuth state under ~/.mcp-auth: inside the test's directory, never the real home.
  return { ...env, HOME: home, MCP_REMOTE_CONFIG_DIR: path.join(home, '.mcp-auth') };
}

describe('mcp-remote', { concurrency: 3 }, () => {
  const h = tempHome();
  let hub: HubProcess;
  let opts: ScenarioOptions;
  before(async () => {
    const prompt = writeSkill(h.home);
    hub = await startHubProcess(h.home, { ASK_REPLY_S: '2' });
    opts = { hub, prompt };
  });
  after(async () => {
    await hub.stop();
    h.cleanup();
  });

  for (const [label, endpoint, strategy, modern] of [
    ['/mcp (http-only) 2025-11-25', '/mcp', 'http-only', false],
    ['/mcp (http-only) 2026-07-28', '/mcp', 'http-only', true],
    ['/sse (sse-only) 2024-11-05', '/sse', 'sse-only', false],
  ] as const) {
    test(`scenario through mcp-remote to ${label}`, async (t) => {
      const { client } = await connectV2Command({
        modern,
        command: process.execPath,
        args: [MCP_REMOTE, `${hub.url}${endpoint}`, '--header', `Authorization:Bearer ${hub.token}`, '--transport', strategy, '--silent'],
        env: remoteEnv(h.home),
        cwd: h.home,
      });
      try {
        if (modern) assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
        await runScenario(t, drivenSdk(`mcp-remote ${label}`, client), opts);
      } finally {
        await client.close();
      }
    });
  }

  test('a wrong token makes mcp-remote exit with an error instead of waiting for a browser sign-in', async () => {
    const child = spawn(process.execPath, [MCP_REMOTE, `${hub.url}/mcp`, '--header', 'Authorization:Bearer not-the-token', '--transport', 'http-only'], {
      env: remoteEnv(h.home),
      cwd: h.home,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.resume();
    // What Claude Desktop sends first.
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-ai', version: '1' } } }) + '\n');
    // Waiting for a sign-in, it would run on until someone signed in: it must end by itself (WAIT_MS is generous for a loaded machine).
    const code = await new Promise<number | null | 'still running'>((resolve) => {
      const timer = setTimeout(() => resolve('still running'), WAIT_MS);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    if (code === 'still running') child.kill('SIGKILL');
    assert.notEqual(code, 'still running', `mcp-remote still runs after ${WAIT_MS / 1000} s:\n${stderr.slice(-2000)}`);
    assert.notEqual(code, 0);
    // The reason reaches the person: the hub's answer says how to fix the token.
    assert.match(stderr, /Pincer has no OAuth .*pincer token/);
  });
});
