import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { connectV2, closeStdioClient, textOf } from './helpers/clients.js';
import { ROOT, tempHome, waitFor, quietFor } from './helpers/env.js';
import { stopHubOf } from './helpers/hub.js';

const MAX = 64 * 1024;

function size(file: string): number {
  return fs.existsSync(file) ? fs.statSync(file).size : 0;
}

test('a process whose stdout and stderr are logs/hub-start.log keeps it rotated like hub.log, whatever it writes', async () => {
  const h = tempHome();
  try {
    const logs = path.join(h.home, 'logs');
    fs.mkdirSync(logs, { recursive: true });
    const file = path.join(logs, 'hub-start.log');
    const fd = fs.openSync(file, 'a', 0o600);
    // What pincer serve does first (serve.ts), then 2 MB through every JS path to stdout and stderr.
    const script = [
      `const { boundStdioFile } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'main', 'core', 'log-file.js')).href)});`,
      `if (!boundStdioFile(${JSON.stringify(file)}, ${MAX})) throw new Error('stderr was not recognised as the file');`,
      "const line = 'x'.repeat(1000);",
      'for (let i = 0; i < 700; i++) { console.error(line); process.stderr.write(line + "\\n"); process.stdout.write(Buffer.from(line + "\\n")); }',
      "process.emitWarning('a warning goes the same way');",
      "setTimeout(() => console.error('the last line'), 10);",
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', fd, fd] });
    fs.closeSync(fd);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, fs.readFileSync(file, 'utf8').slice(-2000));
    assert.ok(size(file) <= MAX, `hub-start.log is ${size(file)} bytes`);
    for (const n of [1, 2, 3]) assert.ok(size(`${file}.${n}`) > 0 && size(`${file}.${n}`) <= MAX, `hub-start.log.${n} is ${size(`${file}.${n}`)} bytes`);
    assert.equal(fs.existsSync(`${file}.4`), false, 'three old files are kept, as for hub.log');
    assert.match(fs.readFileSync(file, 'utf8'), /the last line\n$/);
  } finally {
    h.cleanup();
  }
});

test('through a bridge: a large hub-start.log is rotated before the hub starts, a plugin that never loads or floods stderr fills neither log', async () => {
  const h = tempHome();
  const logs = path.join(h.home, 'logs');
  const startLog = path.join(logs, 'hub-start.log');
  fs.mkdirSync(logs, { recursive: true, mode: 0o700 });
  fs.writeFileSync(startLog, 'an older start\n'.repeat(20_000), { mode: 0o600 });
  const plugins = path.join(h.home, 'plugins');
  fs.mkdirSync(plugins, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(plugins, 'never.mjs'), 'await new Promise(() => undefined);\n', { mode: 0o600 });
  fs.writeFileSync(
    path.join(plugins, 'loud.mjs'),
    "const big = 'y'.repeat(100000);\nsetInterval(() => { console.error(big); process.stderr.write(big + '\\n'); console.log('out'); }, 1);\nexport default { tools: [{ name: 'loud.ok', description: 'Answers', handler: () => 'loud ok' }] };\n",
    { mode: 0o600 },
  );
  const env = { PINCER_LOG_MAX_BYTES: String(MAX), PINCER_LOG_LEVEL: 'info', HTTP_PORT: 'auto' };
  let bridge: Awaited<ReturnType<typeof connectV2>> | undefined;
  try {
    // The bridge starts the hub; the plugin that never loads costs its 5 s, not the client's start.
    bridge = await connectV2({ home: h.home, args: ['stdio'], env });
    assert.match(textOf(await bridge.client.callTool({ name: 'Bash', arguments: { command: 'echo bridged' } })), /bridged/);
    assert.match(textOf(await bridge.client.callTool({ name: 'loud.ok', arguments: {} })), /loud ok/);
    assert.match(fs.readFileSync(`${startLog}.1`, 'utf8'), /^an older start\n/, 'the old start log was rotated before the hub was given it');
    const hubLog = path.join(logs, 'hub.log');
    await waitFor(() => fs.existsSync(hubLog) && /plugin loud\.mjs writes more than 60 lines a minute to stdout and stderr; the rest of this minute's are not kept/.test(fs.readFileSync(hubLog, 'utf8')), 'the flood to be named in hub.log');
    // Seconds of flooding later (100 KB a millisecond offered), both logs stay within their bounds.
    const names = (await bridge.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('loud.ok'));
    await quietFor(3000, 'either log growing past its bound while the plugin floods them');
    assert.ok(size(startLog) <= MAX, `hub-start.log is ${size(startLog)} bytes`);
    const hubLogs = [hubLog, `${hubLog}.1`, `${hubLog}.2`, `${hubLog}.3`].map(size);
    assert.ok(hubLogs.every((n) => n <= MAX + 16 * 1024), `hub.log sizes ${hubLogs.join(', ')}`);
    assert.match(fs.readFileSync(hubLog, 'utf8'), /never\.mjs:1: failed to load: it did not finish loading within 5 s/);
  } finally {
    await closeStdioClient(bridge);
    await stopHubOf(h.home);
    h.cleanup();
  }
});
