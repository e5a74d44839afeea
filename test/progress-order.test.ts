import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { RawStdio } from './helpers/raw-stdio.js';
import { tempHome } from './helpers/env.js';
import { stopHubOf } from './helpers/hub.js';
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { channelOf } from '../main/mcp/request-context.js';
import type { Services } from '../main/tools/types.js';

/**
 * A progress notification never follows the response of its request: the client has forgotten the
 * token by then ("progress notification for an unknown token"). Bash streams its output as
 * progress and flushes the last of it as the command ends, right before its answer — the moment an
 * inversion happened. Many such calls at once, over raw lines (exactly what reaches the client),
 * through the bridge and standalone.
 */
const CALLS = 40;

describe('progress before its response', { concurrency: 1 }, () => {
  const h = tempHome();
  after(async () => {
    await stopHubOf(h.home);
    h.cleanup();
  });

  for (const args of [['stdio'], ['stdio', '--standalone']]) {
    test(`pincer ${args.join(' ')}: ${CALLS} concurrent Bash calls streaming output, each call's progress all before its response`, async () => {
      const raw = new RawStdio(h.home, args, { HTTP_PORT: 'auto', STREAMING: 'true' });
      try {
        await raw.initialize('2025-11-25');
        for (let i = 0; i < CALLS; i++) {
          // Output that lands in the last flush (within its 100 ms window) as the command ends.
          raw.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'Bash', arguments: { command: `printf 'call-${i} a\\nb\\n'; sleep 0.0${i % 10}; printf 'c\\n'` }, _meta: { progressToken: `p${i}` } } });
        }
        for (let i = 0; i < CALLS; i++) await raw.response(i, 60_000);
        const order = raw.messages.map((m, at) => ({ m, at }));
        let progressSeen = 0;
        for (let i = 0; i < CALLS; i++) {
          const answeredAt = order.find(({ m }) => m.id === i && 'result' in m)!.at;
          const progress = order.filter(({ m }) => m.method === 'notifications/progress' && (m.params as { progressToken: string }).progressToken === `p${i}`);
          progressSeen += progress.length;
          const late = progress.filter(({ at }) => at > answeredAt);
          assert.deepEqual(late.map(({ m }) => m), [], `call ${i}: progress after its response`);
        }
        assert.ok(progressSeen >= CALLS, `every call streamed its output (${progressSeen} progress notifications)`);
      } finally {
        raw.child.kill();
      }
    });
  }
});

test('the answer waits for progress already asked for, however slow its send; progress asked for after the answer is dropped', async () => {
  const wire: string[] = [];
  // A transport whose sends take a while (a stream under backpressure): each resolves later than the last.
  let delay = 30;
  const ctx = {
    mcpReq: {
      _meta: { progressToken: 'tok' },
      signal: new AbortController().signal,
      notify: (n: { params: { message: string } }) => new Promise<void>((resolve) => setTimeout(() => (wire.push(n.params.message), resolve()), (delay -= 10))),
      log: async () => undefined,
      send: async () => ({}),
    },
  } as unknown as ServerContext;
  const server = { getNegotiatedProtocolVersion: () => '2025-11-25', getClientCapabilities: () => ({}) } as unknown as McpServer['server'];
  const channel = channelOf(ctx, server, {} as Services, 'client:test');
  // Bash's last flush: not awaited, right before the call returns its result.
  void channel.progress!('first');
  void channel.progress!('second');
  void channel.progress!('third');
  await channel.settle();
  wire.push('RESPONSE');
  await channel.progress!('too late');
  assert.deepEqual(wire, ['first', 'second', 'third', 'RESPONSE']);
});
