import { spawnSync } from 'node:child_process';
import { table, type Row } from './lib.js';
import { PINCER, MINIMAL, startHub, startMinimalHttp, httpClient, stdioClient, time } from './harness.js';

const N = Number(process.env.BENCH_CALLS ?? 200);

/** Round trip of a cheap tool call over stdio and Streamable HTTP, against the minimal SDK server's echo and a bare spawn. */
export async function benchLatency(): Promise<string[]> {
  const pincer = await stdioClient([PINCER, 'stdio', '--standalone']);
  const minimal = await stdioClient([MINIMAL]);
  const stdioRows: Row[] = [
    { name: 'pincer ListBgTasks (stdio)', samples: [] },
    { name: 'pincer Bash `true` (stdio)', samples: [] },
    { name: 'bare `bash -c true` spawn', samples: [] },
    { name: 'minimal SDK echo (stdio)', samples: [] },
  ];
  for (let i = 0; i < N; i++) {
    stdioRows[0]!.samples.push(await time(() => pincer.client.callTool({ name: 'ListBgTasks', arguments: {} })));
    stdioRows[1]!.samples.push(await time(() => pincer.client.callTool({ name: 'Bash', arguments: { command: 'true' } })));
    stdioRows[2]!.samples.push(await time(async () => spawnSync('bash', ['-c', 'true'])));
    stdioRows[3]!.samples.push(await time(() => minimal.client.callTool({ name: 'echo', arguments: { text: 'x' } })));
  }
  await pincer.close();
  await minimal.close();

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
  return [table('Call latency over stdio', stdioRows, 'minimal SDK echo (stdio)'), table('Call latency over Streamable HTTP', httpRows, 'minimal SDK echo (HTTP)')];
}
