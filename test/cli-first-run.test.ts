import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempHome, PINCER_BIN, pincerEnv, ROOT } from './helpers/env.js';
import { startHubProcess } from './helpers/hub.js';
import { isolateHome } from './helpers/fake-electron.js';

const RECORDER = pathToFileURL(path.join(ROOT, 'dist', 'test', 'helpers', 'module-recorder.js')).href;

/** What a client shows when `pincer <args>` cannot serve: the error its connect fails with. */
async function clientError(sdk: 'v2' | 'v1', args: string[], env: Record<string, string>): Promise<string> {
  const params = { command: process.execPath, args: [PINCER_BIN, ...args], env, stderr: 'pipe' as const };
  try {
    if (sdk === 'v2') await new Client({ name: 'first-run', version: '1' }).connect(new StdioClientTransport(params));
    else await new ClientV1({ name: 'first-run', version: '1' }).connect(new StdioV1(params));
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail(`pincer ${args.join(' ')} served a client it should have refused`);
}

test('a data folder that is a file: pincer stdio (bridge and standalone) answers the client with the reason, on SDK v2 and v1', async () => {
  const h = tempHome();
  try {
    const file = path.join(h.home, 'not-a-folder');
    fs.writeFileSync(file, 'x');
    for (const args of [['stdio'], ['stdio', '--standalone'], []]) {
      for (const sdk of ['v2', 'v1'] as const) {
        const message = await clientError(sdk, args, pincerEnv(file));
        assert.match(message, /Pincer: the data folder .*not-a-folder is a file, not a folder\. Set PINCER_HOME to a folder/, `${sdk} pincer ${args.join(' ')}: ${message}`);
      }
    }
    // A server that fails to load (here pincer.db is a folder) is answered the same way.
    const broken = path.join(h.home, 'broken');
    fs.mkdirSync(path.join(broken, 'pincer.db'), { recursive: true, mode: 0o700 });
    const message = await clientError('v2', ['stdio', '--standalone'], pincerEnv(broken));
    assert.match(message, /Pincer: pincer stdio --standalone could not start: EISDIR: .*pincer\.db/);
  } finally {
    h.cleanup();
  }
});

test("a mistyped option in the client's config is answered to the client, naming it (exit 2 once the client leaves)", async () => {
  const h = tempHome();
  try {
    const message = await clientError('v2', ['stdio', '--standlone'], pincerEnv(h.home));
    assert.match(message, /Pincer: pincer stdio: unknown option "--standlone" \(did you mean --standalone\?\)/);
    const r = spawnSync(process.execPath, [PINCER_BIN, 'stdio', '--standlone'], { env: pincerEnv(h.home), input: '{"jsonrpc":"2.0","id":7,"method":"tools/list"}\n', encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.deepEqual(JSON.parse(r.stdout), { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'Pincer: pincer stdio: unknown option "--standlone" (did you mean --standalone?). Run "pincer help" for the usage.' } });
    assert.match(r.stderr, /unknown option "--standlone"/, 'said on stderr too');
  } finally {
    h.cleanup();
  }
});

test('pincer --version and help answer before the Node check and load nothing of Pincer but pincer.js and its import-free Node check', () => {
  const h = tempHome();
  try {
    const log = path.join(h.home, 'modules.txt');
    const r = spawnSync(process.execPath, ['--import', RECORDER, PINCER_BIN, '--version'], { env: { ...pincerEnv(h.home), PINCER_MODULE_LOG: log }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
    const own = fs.readFileSync(log, 'utf8').split('\n').filter((u) => u.includes('/dist/main/'));
    assert.deepEqual(own.map((u) => u.slice(u.indexOf('/dist/main/'))), ['/dist/main/cli/pincer.js', '/dist/main/core/node-version.js']);
    assert.equal(fs.existsSync(path.join(h.home, 'pincer-env.txt')), false, 'no data folder made for --version');
    const help = spawnSync(process.execPath, [PINCER_BIN, 'help'], { env: pincerEnv(h.home), encoding: 'utf8' });
    assert.match(help.stdout, /^pincer \d+\.\d+\.\d+ — local tools for AI clients over MCP\n/);
  } finally {
    h.cleanup();
  }
});

test('pincer status names the program holding the port when no hub of this folder runs', async () => {
  const h = tempHome();
  const squatter = net.createServer();
  await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
  const port = (squatter.address() as net.AddressInfo).port;
  try {
    fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `HTTP_PORT=${port}\n`);
    const r = spawnSync(process.execPath, [PINCER_BIN, 'status'], { env: pincerEnv(h.home, { HTTP_PORT: String(port) }), encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stdout, new RegExp(`No Pincer hub runs for .*\\. Port ${port} \\(HTTP_PORT\\), where its hub would listen, is held by node [^ ]+ \\(pid ${process.pid}\\), which is not this data folder's hub: "pincer serve" would fail\\. Stop that program, or set HTTP_PORT to a free port`));
  } finally {
    squatter.close();
    h.cleanup();
  }
  // A free port: nothing to name, the usual hint.
  const free = tempHome();
  try {
    const r = spawnSync(process.execPath, [PINCER_BIN, 'status'], { env: pincerEnv(free.home, { HTTP_PORT: 'auto' }), encoding: 'utf8' });
    assert.match(r.stdout, /^No Pincer hub runs for .*\. Start one with "pincer serve"\.\n$/);
  } finally {
    free.cleanup();
  }
});

test('pincer token rotate says what happened: with no hub, nothing used the token; with one, that hub takes it and the configs still sending the old one are named', async () => {
  const h = tempHome();
  const restore = isolateHome(h.home);
  try {
    const rotate = () => spawnSync(process.execPath, [PINCER_BIN, 'token', 'rotate'], { env: { ...pincerEnv(h.home), HOME: h.home }, encoding: 'utf8' });
    const idle = rotate();
    assert.equal(idle.status, 0, idle.stderr);
    const [token, ...rest] = idle.stdout.trimEnd().split('\n');
    assert.match(token!, /^[A-Za-z0-9_-]{40,}$/, 'the token is the first line, for scripts');
    assert.match(rest.join('\n'), /No hub is running for .*, so nothing used the old token just now; the next hub starts with the new one/);
    assert.doesNotMatch(idle.stdout, /at once/);

    const hub = await startHubProcess(h.home);
    try {
      const connect = spawnSync(process.execPath, [PINCER_BIN, 'connect', 'cursor', '--http'], { env: { ...pincerEnv(h.home), HOME: h.home }, encoding: 'utf8' });
      assert.equal(connect.status, 0, connect.stderr);
      const busy = rotate();
      assert.equal(busy.status, 0, busy.stderr);
      assert.match(busy.stdout, new RegExp(`The hub at ${hub.url.replace(/[.]/g, '\\.')} \\(pid ${hub.child.pid}\\) follows that file and takes the new token at once`));
      assert.match(busy.stdout, /These configs still send the old token; write them again: "pincer connect cursor --http" \(.*\.cursor[\\/]mcp\.json\)\./);
    } finally {
      await hub.stop();
    }
  } finally {
    restore();
    h.cleanup();
  }
});
