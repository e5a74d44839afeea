import { table, type Row } from './lib.js';
import { startHub, startMinimalHttp, httpClient, time } from './harness.js';

const N = Number(process.env.BENCH_CALLS ?? 200);

/** Round trip of a cheap tool call over Streamable HTTP, against the minimal SDK server's echo (stdio: stdio-calls.ts). */
export async function benchLatency(): Promise<string[]> {
  const hub = await startHub();
  const peer = await startMinimalHttp();
  const a = await httpClient(hub.url, hub.token);
  const b = await httpClient(peer.url);
  const httpRows: Row[] = [
    { name: 'pincer ListBgTasks (HTTP)', samples: [] },
    { name: 'pincer Bash `true` (HTTP)', samples: [] },
    { name: 'minimal SDK echo (HTTP)', samples: [] },
  ];
  for (let i = 0; i < N; i++) {
    httpRows[0]!.samples.push(await time(() => a.client.callTool({ name: 'ListBgTasks', arguments: {} })));
    httpRows[1]!.samples.push(await time(() => a.client.callTool({ name: 'Bash', arguments: { command: 'true' } })));
    httpRows[2]!.samples.push(await time(() => b.client.callTool({ name: 'echo', arguments: { text: 'x' } })));
  }
  await a.close();
  await b.close();
  await hub.stop();
  await peer.stop();
  return [table('Call latency over Streamable HTTP', httpRows, 'minimal SDK echo (HTTP)')];
}
