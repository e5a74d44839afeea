import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawStdio } from './helpers/raw-stdio.js';
import { startHubProcess, stopHubOf } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';
import { discoverResult } from '../main/mcp/server-info.js';

/**
 * `pincer stdio` answers a 2026-07-28 `server/discover` before it has loaded
 * the server (standalone) or reached the hub (bridge), from a static
 * description. That answer must be the one the SDK gives once loaded.
 */
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
const DISCOVER = { jsonrpc: '2.0', id: 'probe', method: 'server/discover', params: { _meta: ENVELOPE } };

test('the static server/discover answer is the one the SDK gives on the hub', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const r = await fetch(`${hub.url}/mcp`, {
      method: 'POST',
      headers: { ...hub.headers(), Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' },
      body: JSON.stringify(DISCOVER),
    });
    const text = await r.text();
    assert.equal(r.status, 200, text);
    const body = JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as { result: unknown };
    assert.deepEqual(body.result, discoverResult());
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

for (const args of [['stdio', '--standalone'], ['stdio']]) {
  test(`pincer ${args.join(' ')} answers server/discover, then serves the 2026-07-28 requests that follow`, async () => {
    const h = tempHome();
    const raw = new RawStdio(h.home, args, { HTTP_PORT: 'auto' });
    try {
      // Sent at once, as the AI SDK does: the answer does not wait for the server to load.
      raw.send(DISCOVER);
      raw.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: { _meta: ENVELOPE } });
      assert.deepEqual((await raw.response('probe')).result, discoverResult());
      const list = (await raw.response('list')) as { result?: { tools?: { name: string }[] } };
      assert.ok(list.result?.tools?.some((t) => t.name === 'Bash'), JSON.stringify(list).slice(0, 300));
      assert.deepEqual(raw.nonJsonLines, []);
    } finally {
      raw.close();
      await waitFor(() => raw.child.exitCode !== null, 'pincer stdio to exit').catch(() => raw.child.kill());
      await stopHubOf(h.home);
      h.cleanup();
    }
  });
}
