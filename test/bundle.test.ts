import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ROOT, tempHome, waitFor } from './helpers/env.js';
import { EXPECTED } from './helpers/catalogue.js';
import { textOf, bgRead } from './helpers/clients.js';
import { stopHubOf } from './helpers/hub.js';
import { NODE_RANGE } from '../main/core/node-version.js';

const MCPB = path.join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');

type Manifest = {
  server: { type: string; entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  tools: { name: string }[];
  user_config: Record<string, { type: string; default?: string | boolean }>;
  compatibility: { platforms: string[]; runtimes: { node: string } };
};

/** What Claude Desktop does with `${…}` in mcp_config: __dirname, HOME and the user's settings (here the form's defaults). */
function substitute(value: string, dir: string, home: string, config: Manifest['user_config']): string {
  return value.replace(/\$\{([^}]+)\}/g, (_m, key: string) => {
    if (key === '__dirname') return dir;
    if (key === 'HOME') return home;
    const m = /^user_config\.(.+)$/.exec(key);
    if (m && config[m[1]!]) return substitute(String(config[m[1]!]!.default), dir, home, config);
    throw new Error(`the manifest uses a placeholder Claude Desktop does not know: \${${key}}`);
  });
}

test('npm run bundle makes a valid linux-x64 .mcpb whose server, run as Claude Desktop runs it, serves Bash and background jobs', { timeout: 240_000 }, async () => {
  const h = tempHome('pincer-bundle-');
  const out = path.join(h.home, 'out');
  const home = path.join(h.home, 'user');
  fs.mkdirSync(home);
  let client: Client | undefined;
  let views: Client | undefined;
  try {
    const built = spawnSync(process.execPath, [path.join(ROOT, 'build', 'bundle.mjs'), '--platform', 'linux-x64', '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
    assert.equal(built.status, 0, built.stderr);
    const file = path.join(out, `pincer-${JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}-linux-x64.mcpb`);
    assert.ok(fs.existsSync(file), built.stdout);

    const dir = path.join(h.home, 'unpacked');
    execFileSync(process.execPath, [MCPB, 'unpack', file, dir], { encoding: 'utf8' });
    const validated = spawnSync(process.execPath, [MCPB, 'validate', path.join(dir, 'manifest.json')], { encoding: 'utf8' });
    assert.equal(validated.status, 0, validated.stdout + validated.stderr);

    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    assert.deepEqual(manifest.tools.map((t) => t.name).sort(), Object.keys(EXPECTED).sort(), 'the manifest declares the 13 tools (the chat views’ own are not the model’s)');
    assert.equal(manifest.server.type, 'node');
    assert.equal(manifest.server.mcp_config.command, 'node', "Claude Desktop's built-in Node runs it");
    assert.deepEqual(manifest.compatibility.platforms, ['linux']);
    assert.equal(manifest.compatibility.runtimes.node, NODE_RANGE, 'the Node Pincer needs, as package.json says');
    for (const key of ['working_folder', 'shell_tools', 'web_tools', 'search_engines', 'data_folder']) assert.ok(manifest.user_config[key], `settings form has ${key}`);
    // Only this platform's native binaries travel.
    const prebuilds = fs.readdirSync(path.join(dir, 'server', 'node_modules', 'better-sqlite3', 'prebuilds'));
    assert.deepEqual(prebuilds, ['linux-x64.node']);
    assert.ok(fs.existsSync(path.join(dir, 'server', 'node_modules', '@img', 'sharp-linux-x64')));
    assert.ok(!fs.existsSync(path.join(dir, 'server', 'node_modules', 'electron')), 'no dev dependencies');

    const cfg = manifest.server.mcp_config;
    const sub = (v: string) => substitute(v, dir, home, manifest.user_config);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, PINCER_LOG_LEVEL: 'warn' };
    for (const [k, v] of Object.entries(cfg.env)) env[k] = sub(v);
    assert.equal(env.PINCER_HOME, path.join(home, '.pincer'));
    assert.equal(env.TOOL_BASH, 'true');
    // Port 7717 may be taken on a shared test machine: the user's own settings file says "any free port".
    fs.mkdirSync(env.PINCER_HOME, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(env.PINCER_HOME, 'pincer-env.txt'), 'HTTP_PORT=auto\n', { mode: 0o600 });
    const transport = new StdioClientTransport({ command: process.execPath, args: cfg.args.map(sub), env, cwd: '/', stderr: 'pipe' });
    client = new Client({ name: 'claude-ai', version: '0.14.0' }, { capabilities: {} });
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'pincer');
    const { tools } = await client.listTools();
    assert.equal(tools.length, 13);

    const r = await client.callTool({ name: 'Bash', arguments: { command: 'echo "from the bundle in $PWD"' } });
    assert.equal(textOf(r), `from the bundle in ${home}`, 'Bash runs in the default working folder of the form');
    assert.equal((r.structuredContent as { exit_code: number }).exit_code, 0);

    const started = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo job-started; sleep 0.3; echo job-done' } });
    const id = (started.structuredContent as { task_id: number }).task_id;
    let output = '';
    await waitFor(async () => {
      const read = await client!.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 2000 } });
      const s = bgRead(read);
      output += s.output;
      return s.status !== 'running';
    }, 'the background job to end');
    assert.equal(output, 'job-started\njob-done\n');
    // The hub the bundle started lives in the data folder the form named.
    assert.ok(fs.existsSync(path.join(home, '.pincer', 'pincer.db')));

    // Claude Desktop renders MCP Apps: the bundle carries the chat views and their tools, on and off with their family.
    assert.equal(env.TOOL_JOBVIEWREAD, 'true');
    assert.equal(env.TOOL_QUESTIONVIEWANSWER, 'true');
    const viewsTransport = new StdioClientTransport({ command: process.execPath, args: cfg.args.map(sub), env, cwd: '/', stderr: 'pipe' });
    views = new Client({ name: 'claude-ai', version: '0.14.0' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
    await views.connect(viewsTransport);
    assert.equal((await views.listTools()).tools.length, 19);
    const page = (await views.readResource({ uri: 'ui://pincer/job.html' })).contents[0] as { text: string; mimeType: string };
    assert.equal(page.mimeType, 'text/html;profile=mcp-app');
    assert.match(page.text, /<meta name="pincer-view" content="job">/);
  } finally {
    // Closing what may have failed to open: the test's assertion already says why.
    await views?.close().catch(() => undefined);
    await client?.close().catch(() => undefined);
    await stopHubOf(path.join(home, '.pincer')).catch(() => undefined);
    h.cleanup();
  }
});
