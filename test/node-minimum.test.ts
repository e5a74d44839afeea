import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { connectV2Command, textOf } from './helpers/clients.js';
import { RawStdio } from './helpers/raw-stdio.js';
import { readHubJson, stopHubOf } from './helpers/hub.js';
import { tempHome, waitFor, ROOT, PINCER_BIN, pincerEnv } from './helpers/env.js';
import { MIN_NODE, NODE_RANGE, nodeSupported } from '../main/core/node-version.js';
import { describeExit, startFailure } from '../main/cli/hub-start.js';
import { minimumNode } from './helpers/min-node.js';

/** npm's `node` package at the lowest supported version, installed into a cache on first use (helpers/min-node.ts). */
const MIN = minimumNode();
const NODE_MIN_BIN = 'bin' in MIN ? MIN.bin : '';

/** The command line of a running process (Linux: /proc; elsewhere ps). */
function commandOf(pid: number): string {
  if (process.platform === 'linux') return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
}

// The bundle manifest's compatibility.runtimes.node is checked in bundle.test.ts.
test('the stated minimum is the same in package.json, the README and the check', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
  assert.equal(pkg.engines.node, NODE_RANGE);
  // Only the pinned Node may provide node_modules/.bin/node: a second `node` package would take it over on an `npm install`.
  assert.deepEqual(Object.entries(pkg.devDependencies).filter(([name, spec]) => name !== 'node' && /^npm:node@/.test(spec)), []);
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.match(readme, new RegExp(`Node\\.js ${MIN_NODE.replace('.', '\\.')} or newer`));
  assert.doesNotMatch(readme, /Node\.js 20 or newer/);
});

test('nodeSupported: Node-API 10 on Node 22.14+, 23.6+ and 24', () => {
  for (const [node, napi, ok] of [
    ['20.20.2', '9', false],
    ['22.3.0', '9', false],
    ['22.13.1', '9', false],
    ['22.14.0', '10', true],
    ['23.5.0', '9', false],
    ['23.6.0', '10', true],
    ['24.21.0', '10', true],
  ] as const) {
    assert.equal(nodeSupported({ node, napi }), ok, `${node} (Node-API ${napi})`);
    assert.equal(nodeSupported({ node }), ok, `${node} by version alone`);
  }
});

test('how a hub ended, in words: signals by name, never "unknown"', () => {
  assert.equal(describeExit(null, 'SIGSEGV'), 'crashed (SIGSEGV)');
  assert.equal(describeExit(null, 'SIGKILL'), 'was ended by SIGKILL');
  assert.equal(describeExit(1, null), 'exited with code 1');
  if (process.platform !== 'win32') assert.equal(describeExit(139, null), 'exited with code 139 (SIGSEGV)');
  const h = tempHome();
  try {
    const log = path.join(h.home, 'hub-start.log');
    fs.writeFileSync(log, 'pincer serve: an older attempt\n');
    const from = fs.statSync(log).size;
    assert.match(startFailure(log, from, 'crashed (SIGSEGV)'), /^it crashed \(SIGSEGV\) without writing anything/);
    fs.appendFileSync(log, 'pincer serve: port 7717 is taken\n');
    assert.equal(startFailure(log, from, 'exited with code 1'), `it exited with code 1: port 7717 is taken (from ${log})`);
  } finally {
    h.cleanup();
  }
});

test(`on Node ${MIN_NODE} (the minimum): pincer stdio starts the hub, a tool call runs, pincer status sees it`, async () => {
  assert.ok('bin' in MIN, 'problem' in MIN ? MIN.problem : '');
  const version = execFileSync(NODE_MIN_BIN, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  assert.equal(version, `${MIN_NODE}.0`);
  const h = tempHome();
  try {
    assert.equal(readHubJson(h.home), undefined, 'no hub runs yet');
    const { client } = await connectV2Command({ command: NODE_MIN_BIN, args: [PINCER_BIN, 'stdio'], env: pincerEnv(h.home, { HTTP_PORT: 'auto' }), cwd: h.home });
    try {
      const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo on-the-minimum' } });
      assert.equal(textOf(r), 'on-the-minimum');
      const hub = readHubJson(h.home)!;
      assert.ok(commandOf(hub.pid).startsWith(NODE_MIN_BIN), `the hub runs on the bridge's Node ${MIN_NODE} (${commandOf(hub.pid)})`);
      const status = spawnSync(NODE_MIN_BIN, [PINCER_BIN, 'status'], { env: pincerEnv(h.home), encoding: 'utf8' });
      assert.equal(status.status, 0, status.stderr);
      assert.match(status.stdout, new RegExp(`Pincer hub .* at ${hub.url} \\(pid ${hub.pid}, headless`));
      assert.equal(status.stderr, '');
    } finally {
      await client.close();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('a hub that dies while starting: the client is told how it ended (the signal by name) and the last lines it wrote', async () => {
  const h = tempHome();
  try {
    // Loaded into every Node the bridge's environment starts: the hub (argv has "serve") says something and is killed.
    const hook = path.join(h.home, 'die.mjs');
    fs.writeFileSync(hook, `if (process.argv.includes('serve')) { process.stderr.write('about to be killed\\n'); process.kill(process.pid, 'SIGKILL'); }\n`);
    const raw = new RawStdio(h.home, ['stdio'], { HTTP_PORT: 'auto', NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` });
    try {
      raw.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const r = (await raw.response(1)) as { error?: { message: string } };
      assert.match(r.error?.message ?? '', /the Pincer hub could not start: it was ended by SIGKILL: about to be killed \(from .*hub-start\.log\)/);
      assert.doesNotMatch(r.error!.message, /unknown/);
      await waitFor(() => raw.stderr.includes('was ended by SIGKILL'), 'the reason on stderr too');
    } finally {
      raw.child.kill();
    }
  } finally {
    h.cleanup();
  }
});

test('a bridge on a Node too old for Pincer starts the hub with the checkout\'s pinned Node and says so in one line', async () => {
  const h = tempHome();
  try {
    // The bridge (argv has "stdio") sees itself as Node 20; the hub it starts is not touched.
    const hook = path.join(h.home, 'old.mjs');
    fs.writeFileSync(hook, `if (process.argv.includes('stdio')) Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2', napi: '9' } });\n`);
    const raw = new RawStdio(h.home, ['stdio'], { HTTP_PORT: 'auto', NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` }, NODE_MIN_BIN);
    try {
      await raw.initialize();
      raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo relayed' } } });
      const r = (await raw.response(2)) as { result?: { content: { text: string }[] } };
      assert.equal(r.result?.content[0]?.text, 'relayed');
      const hub = readHubJson(h.home)!;
      const pinned = fs.realpathSync(path.join(ROOT, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node'));
      assert.ok(commandOf(hub.pid).startsWith(pinned), `the hub runs on the pinned Node (${commandOf(hub.pid)})`);
      const note = raw.stderr.split('\n').filter((l) => l.includes('older than it needs'));
      assert.equal(note.length, 1, raw.stderr);
      assert.match(note[0]!, new RegExp(`Node\\.js 20\\.20\\.2 \\(.*\\), older than it needs \\(${MIN_NODE.replace('.', '\\.')}\\); the hub runs on Node\\.js 24`));
    } finally {
      raw.child.kill();
      await waitFor(() => raw.child.exitCode !== null || raw.child.signalCode !== null, 'the bridge to exit').catch(() => undefined);
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});

test('a pincer command on a Node too old for Pincer runs again on the pinned Node, saying so in one line; with none newer at hand it says what to do', () => {
  const h = tempHome();
  try {
    const fake = (when: string) => {
      const hook = path.join(h.home, `old-${when.length}.mjs`);
      fs.writeFileSync(hook, `if (${when}) Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2', napi: '9' } });\n`);
      return { ...pincerEnv(h.home), NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` };
    };
    // Only the first process is old: the command runs again on the pinned Node.
    const rerun = spawnSync(process.execPath, [PINCER_BIN, 'status'], { env: fake('!process.env.PINCER_NODE_RERUN'), encoding: 'utf8' });
    assert.equal(rerun.status, 1, 'status says no hub runs: its own exit code');
    assert.match(rerun.stdout, /^No Pincer hub runs for /);
    assert.match(rerun.stderr, new RegExp(`^pincer: Node\\.js 20\\.20\\.2 \\(.*\\) is older than Pincer needs \\(${MIN_NODE.replace('.', '\\.')}\\); running with Node\\.js 24\\.[0-9.]+ \\(.*\\), which this checkout installed\\.\\n$`));
    // Every Node is old: named, never a crash.
    const refused = spawnSync(process.execPath, [PINCER_BIN, 'status'], { env: fake('true'), encoding: 'utf8' });
    assert.equal(refused.status, 1);
    assert.equal(refused.stdout, '');
    const last = refused.stderr.trimEnd().split('\n').at(-1)!;
    assert.match(last, new RegExp(`^pincer: Pincer needs Node\\.js ${MIN_NODE.replace('.', '\\.')} or newer; this is Node\\.js 20\\.20\\.2 \\(.*\\), and no newer one is at hand: install Node\\.js ${MIN_NODE.replace('.', '\\.')} or newer \\(https://nodejs\\.org\\)`));
  } finally {
    h.cleanup();
  }
});

test('a bridge on a Node too old even to relay (no getBuiltinModule): it runs again on the pinned Node, or answers every request with the reason', async () => {
  const h = tempHome();
  try {
    const hook = (when: string) => {
      const file = path.join(h.home, `ancient-${when.length}.mjs`);
      fs.writeFileSync(file, `if (${when}) { Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '18.19.1', napi: '9' } }); process.getBuiltinModule = undefined; }\n`);
      return { HTTP_PORT: 'auto', NODE_OPTIONS: `--import=${pathToFileURL(file).href}` };
    };
    const rerun = new RawStdio(h.home, ['stdio'], hook("process.argv.includes('stdio') && !process.env.PINCER_NODE_RERUN"));
    try {
      await rerun.initialize();
      rerun.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Bash', arguments: { command: 'echo through' } } });
      assert.equal(((await rerun.response(2)) as { result?: { content: { text: string }[] } }).result?.content[0]?.text, 'through');
      assert.match(rerun.stderr, /^pincer: Node\.js 18\.19\.1 \(.*\) is older than Pincer needs/);
    } finally {
      rerun.child.kill();
    }
    const refused = new RawStdio(h.home, ['stdio'], hook("process.argv.includes('stdio')"));
    try {
      refused.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const r = (await refused.response(1)) as { error?: { code: number; message: string } };
      assert.equal(r.error?.code, -32000);
      assert.match(r.error?.message ?? '', /^Pincer: Pincer needs Node\.js 22\.14 or newer; this is Node\.js 18\.19\.1 \(.*\), and no newer one is at hand: point the client's config at a newer Node/);
      refused.child.stdin.end();
      await waitFor(() => refused.child.exitCode !== null, 'the refusing bridge to exit when its input ends');
      assert.equal(refused.child.exitCode, 1);
    } finally {
      refused.child.kill();
    }
  } finally {
    await stopHubOf(h.home);
    h.cleanup();
  }
});
