import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { RawStdio } from './helpers/raw-stdio.js';
import { tempHome, waitFor } from './helpers/env.js';
import { stopHubOf } from './helpers/hub.js';

/**
 * Clients show a server's stderr to their users (Inspector, the Agents SDK,
 * Mastra, LangChain, mcp-use): a session that goes well writes nothing there.
 * The log file keeps the routine lines; PINCER_LOG_LEVEL brings them back.
 */
for (const mode of ['bridge', 'standalone'] as const) {
  const args = mode === 'bridge' ? ['stdio'] : ['stdio', '--standalone'];
  const logFile = mode === 'bridge' ? 'bridge.log' : 'stdio.log';

  async function session(home: string, env: Record<string, string> = {}): Promise<string> {
    const raw = new RawStdio(home, args, { HTTP_PORT: 'auto', ...env });
    await raw.initialize('2025-11-25');
    raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo quiet' } } });
    assert.match(JSON.stringify(await raw.response(2)), /quiet/);
    raw.close();
    await waitFor(() => raw.child.exitCode !== null, 'pincer stdio to exit');
    return raw.stderr;
  }

  test(`pincer ${args.join(' ')}: a session that goes well writes nothing on stderr; the log file has its lines`, async () => {
    const h = tempHome();
    try {
      // The test helpers set PINCER_LOG_LEVEL=warn; a user's client sets none.
      assert.equal(await session(h.home, { PINCER_LOG_LEVEL: '' }), '');
      assert.match(fs.readFileSync(path.join(h.home, 'logs', logFile), 'utf8'), /"level":"info"/);
    } finally {
      await stopHubOf(h.home);
      h.cleanup();
    }
  });

  test(`pincer ${args.join(' ')}: PINCER_LOG_LEVEL=info shows the routine lines on stderr`, async () => {
    const h = tempHome();
    try {
      assert.match(await session(h.home, { PINCER_LOG_LEVEL: 'info' }), /INFO/);
    } finally {
      await stopHubOf(h.home);
      h.cleanup();
    }
  });
}
