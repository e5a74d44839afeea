import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse, parseTree, findNodeAtLocation } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { CLIENTS, CLIENT_IDS, type ClientId } from '../main/connect/clients.js';
import { connectClient, disconnectClient, isConnected } from '../main/connect/client-config.js';
import { tempHome, ROOT, PINCER_BIN, pincerEnv } from './helpers/env.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'configs');
const STDIO = { command: '/Applications/Pincer.app/Contents/Frameworks/Pincer Helper.app/Contents/MacOS/Pincer Helper', args: ['/Applications/Pincer.app/Contents/Resources/pincer-stdio.js', 'stdio'], env: { ELECTRON_RUN_AS_NODE: '1' } };

/** Raw text of every server entry but Pincer's, so "untouched" can be checked byte for byte. */
function otherEntries(text: string, container: string): Record<string, string> {
  const node = findNodeAtLocation(parseTree(text)!, [container]);
  const out: Record<string, string> = {};
  for (const prop of node?.children ?? []) {
    const key = prop.children![0]!.value as string;
    if (key !== 'pincer') out[key] = text.slice(prop.offset, prop.offset + prop.length);
  }
  return out;
}

function withHome<T>(fn: (home: string) => T): T {
  const h = tempHome();
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, APPDATA: process.env.APPDATA };
  process.env.HOME = h.home;
  delete process.env.XDG_CONFIG_HOME;
  process.env.APPDATA = path.join(h.home, 'AppData');
  try {
    return fn(h.home);
  } finally {
    for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v);
    h.cleanup();
  }
}

describe('Connect / Disconnect on real sample config files', () => {
  for (const id of CLIENT_IDS.filter((c) => CLIENTS[c].format !== 'toml')) {
    test(`${CLIENTS[id].name}: every other entry stays byte-identical; disconnect restores the file`, () =>
      withHome(() => {
        const spec = CLIENTS[id];
        const file = spec.file();
        const original = fs.readFileSync(path.join(FIXTURES, `${id}.json`), 'utf8');
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, original);
        const before = otherEntries(original, spec.container);
        assert.ok(Object.keys(before).length > 0);

        const r = connectClient({ client: id, stdio: STDIO });
        assert.equal(r.changed, true);
        assert.ok(r.backup && fs.readFileSync(r.backup, 'utf8') === original, 'a timestamped backup of the old file');
        const after = fs.readFileSync(file, 'utf8');
        assert.deepEqual(otherEntries(after, spec.container), before);
        const entry = (parse(after, [], { allowTrailingComma: true }) as Record<string, Record<string, { command?: string; args?: string[]; env?: Record<string, string> }>>)[spec.container]!.pincer!;
        assert.equal(entry.command, STDIO.command, 'an absolute command, never npx');
        assert.deepEqual(entry.args, STDIO.args);
        assert.deepEqual(entry.env, { ELECTRON_RUN_AS_NODE: '1' });
        // Everything outside the servers block is untouched too.
        const strip = (t: string) => t.replace(/\s+/g, '');
        const outside = (t: string) => {
          const n = findNodeAtLocation(parseTree(t)!, [spec.container])!;
          return t.slice(0, n.offset) + t.slice(n.offset + n.length);
        };
        assert.equal(outside(after), outside(original));
        assert.ok(isConnected(id));

        assert.equal(connectClient({ client: id, stdio: STDIO }).changed, false, 'connecting twice changes nothing');
        const d = disconnectClient(id);
        assert.equal(d.changed, true);
        assert.equal(strip(fs.readFileSync(file, 'utf8')), strip(original));
        assert.equal(fs.readFileSync(file, 'utf8'), original, 'disconnect gives back the very same bytes');
        assert.equal(isConnected(id), false);
        assert.equal(disconnectClient(id).changed, false);
      }));
  }

  test('HTTP entries carry the URL and the token header; clients without HTTP say so', () =>
    withHome(() => {
      const http = { url: 'http://127.0.0.1:7717/mcp', token: 'secret-token' };
      const r = connectClient({ client: 'vscode', stdio: STDIO, http });
      assert.equal(r.file, CLIENTS.vscode.file());
      assert.deepEqual((parse(fs.readFileSync(r.file, 'utf8')) as { servers: Record<string, unknown> }).servers.pincer, { type: 'http', url: http.url, headers: { Authorization: 'Bearer secret-token' } });
      if (process.platform !== 'win32') assert.equal(fs.statSync(r.file).mode & 0o777, 0o600, 'a new config holding a token is private');
      assert.throws(() => connectClient({ client: 'claude-desktop', stdio: STDIO, http }), /reads only stdio servers/);
      // A project's config is committed with the repository: a token written there would be published.
      const shared = path.join(process.env.HOME!, 'proj');
      assert.throws(() => connectClient({ client: 'vscode', stdio: STDIO, http, project: shared }), /token in clear .* committed/);
      assert.equal(fs.existsSync(shared), false, 'nothing written for the refused project entry');
      assert.throws(() => connectClient({ client: 'windsurf', stdio: STDIO, project: '/tmp/x' }), /no per-project config/);
      // The name comes before -e: Claude Code's --env takes many values and would swallow it.
      const cc = connectClient({ client: 'claude-code', stdio: STDIO });
      assert.match(cc.command!, /^claude mcp add --scope user pincer -e ELECTRON_RUN_AS_NODE=1 -- '\/Applications\/Pincer\.app\/Contents\/Frameworks\/Pincer Helper\.app/);
      const proj = path.join(process.env.HOME!, 'my project');
      const ccp = connectClient({ client: 'claude-code', stdio: STDIO, project: proj });
      assert.equal(ccp.file, path.join(proj, '.mcp.json'));
      assert.match(ccp.command!, /^cd '.*\/my project' && claude mcp add --scope project pincer -e ELECTRON_RUN_AS_NODE=1 -- /);
      const gem = connectClient({ client: 'gemini', stdio: STDIO, http });
      assert.deepEqual((parse(fs.readFileSync(gem.file, 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers.pincer, { httpUrl: http.url, headers: { Authorization: 'Bearer secret-token' } });
      assert.match(gem.note!, /trust/);
    }));

  test('a broken config file is refused, not overwritten', () =>
    withHome(() => {
      const file = CLIENTS.cursor.file();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, '{ "mcpServers": { "x": ');
      assert.throws(() => connectClient({ client: 'cursor' as ClientId, stdio: STDIO }), /is not valid JSON \(line 1: .*\)\. Fix it first; Pincer changed nothing/);
      assert.equal(fs.readFileSync(file, 'utf8'), '{ "mcpServers": { "x": ');
    }));

  test('a connect, a disconnect and a connect again within one second each keep their own backup: the original is never overwritten', () =>
    withHome(() => {
      for (const id of ['cursor', 'codex'] as const) {
        const file = CLIENTS[id].file();
        fs.mkdirSync(path.dirname(file), { recursive: true });
        const original = id === 'codex' ? '# my codex settings\nmodel = "o3"\n' : '{\n  // mine\n  "mcpServers": {}\n}\n';
        fs.writeFileSync(file, original);
        const started = Date.now();
        const first = connectClient({ client: id, stdio: STDIO });
        const connected = fs.readFileSync(file, 'utf8');
        const second = disconnectClient(id);
        const third = connectClient({ client: id, stdio: STDIO });
        // The three edits ran within one second here, so their stamps are the same (the case that overwrote the first backup).
        const sameSecond = Math.floor(started / 1000) === Math.floor(Date.now() / 1000);
        const backups = [first.backup!, second.backup!, third.backup!];
        assert.equal(new Set(backups).size, 3, `three backups, not one reused: ${backups.join(', ')}`);
        assert.equal(fs.readFileSync(first.backup!, 'utf8'), original, 'the backup of the original is still the original');
        assert.equal(fs.readFileSync(second.backup!, 'utf8'), connected);
        assert.equal(fs.readFileSync(third.backup!, 'utf8'), original, 'disconnect gave the original bytes back');
        if (sameSecond) assert.match(third.backup!, /\.pincer-backup-\d{8}-\d{6}-3$/);
      }
    }));
});

test('pincer connect / disconnect from the CLI', () => {
  const h = tempHome();
  try {
    const env = { ...pincerEnv(h.home), HOME: h.home };
    const c = spawnSync(process.execPath, [PINCER_BIN, 'connect', 'cursor'], { env, encoding: 'utf8' });
    assert.equal(c.status, 0, c.stderr);
    assert.match(c.stdout, /Added Pincer in Cursor: .*\.cursor\/mcp\.json/);
    const entry = (JSON.parse(fs.readFileSync(path.join(h.home, '.cursor', 'mcp.json'), 'utf8')) as { mcpServers: { pincer: { command: string; args: string[] } } }).mcpServers.pincer;
    assert.equal(entry.command, process.execPath);
    assert.deepEqual(entry.args, [PINCER_BIN, 'stdio']);
    const d = spawnSync(process.execPath, [PINCER_BIN, 'disconnect', 'cursor'], { env, encoding: 'utf8' });
    assert.match(d.stdout, /Removed Pincer from Cursor/);
    const bad = spawnSync(process.execPath, [PINCER_BIN, 'connect', 'notepad'], { env, encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /name a client: claude-desktop, claude-code, cursor, vscode, windsurf, gemini, codex/);
    // Security review: `--http --project` wrote the hub's token into files committed to the project's repository.
    const proj = path.join(h.home, 'repo');
    fs.mkdirSync(proj);
    for (const client of ['claude-code', 'cursor', 'vscode', 'gemini', 'codex']) {
      const r = spawnSync(process.execPath, [PINCER_BIN, 'connect', client, '--http', '--project', proj], { env, encoding: 'utf8' });
      assert.equal(r.status, 1, `${client}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /--http with --project would write the hub's token in clear into the project's config file, which is usually committed/);
      assert.match(r.stderr, /user-level HTTP entry \(drop --project\).*stdio entry for the project \(drop --http\)/);
      assert.deepEqual(fs.readdirSync(proj), [], `${client}: nothing written in the project`);
    }
    const stdioProject = spawnSync(process.execPath, [PINCER_BIN, 'connect', 'cursor', '--project', proj], { env, encoding: 'utf8' });
    assert.equal(stdioProject.status, 0, stdioProject.stderr);
    assert.ok(!fs.readFileSync(path.join(proj, '.cursor', 'mcp.json'), 'utf8').includes('Authorization'), 'the stdio project entry carries no token');
  } finally {
    h.cleanup();
  }
});

test('pincer connect keeps neighbours written on one line as they are, and disconnect gives back the same bytes', () => {
  const h = tempHome();
  try {
    const env = { ...pincerEnv(h.home), HOME: h.home };
    const file = path.join(h.home, '.cursor', 'mcp.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const run = (...args: string[]) => {
      const r = spawnSync(process.execPath, [PINCER_BIN, ...args], { env, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return fs.readFileSync(file, 'utf8');
    };
    // A servers block laid out one entry a line (a user's or another tool's style); a stale Pincer entry in the middle.
    const lines = ['{', '  "mcpServers": {', '    "github": { "command": "gh-mcp", "args": ["--stdio"] },', '    "pincer": { "command": "/old/node" },', '    "db": { "url": "http://127.0.0.1:9000/mcp" }', '  },', '  "theme": "dark", "fontSize": 12', '}', ''];
    fs.writeFileSync(file, lines.join('\n'));
    const after = run('connect', 'cursor');
    for (const kept of [lines[2], lines[4], lines[6]]) assert.ok(after.includes(`${kept}\n`), `kept as written: ${kept}\n${after}`);
    assert.equal((parse(after) as { mcpServers: { pincer: { command: string } } }).mcpServers.pincer.command, process.execPath);
    const removed = run('disconnect', 'cursor');
    assert.equal(removed, [...lines.slice(0, 3), lines[4], ...lines.slice(5)].join('\n'), 'only the Pincer entry went');
    // Added to a block written wholly on one line, the entry joins that line; disconnect restores the file to the byte.
    const oneLine = '{ "mcpServers": { "github": { "command": "gh-mcp" } } }\n';
    fs.writeFileSync(file, oneLine);
    const joined = run('connect', 'cursor');
    assert.equal(joined.split('\n').length, 2, joined);
    assert.ok(joined.startsWith('{ "mcpServers": { "github": { "command": "gh-mcp" }, "pincer": { '), joined);
    assert.equal(run('disconnect', 'cursor'), oneLine);
    // An empty file gets a laid-out entry; removing it leaves an empty block, not stray lines.
    fs.writeFileSync(file, '');
    assert.match(run('connect', 'cursor'), /^\{\n {2}"mcpServers": \{\n {4}"pincer": \{\n {6}"command": /);
    assert.equal(run('disconnect', 'cursor'), '{\n  "mcpServers": {}\n}\n');
  } finally {
    h.cleanup();
  }
});

describe("Codex's config.toml", () => {
  const original = fs.readFileSync(path.join(FIXTURES, 'codex.toml'), 'utf8');
  const table = (text: string) => (JSON.parse(JSON.stringify(parseToml(text))) as { mcp_servers: Record<string, Record<string, unknown>> }).mcp_servers;

  test('connect adds [mcp_servers.pincer] and leaves every other byte; disconnect gives the same file back', () =>
    withHome((home) => {
      const file = CLIENTS.codex.file();
      assert.equal(file, path.join(home, '.codex', 'config.toml'));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, original);
      const r = connectClient({ client: 'codex', stdio: STDIO });
      assert.equal(r.changed, true);
      assert.equal(fs.readFileSync(r.backup!, 'utf8'), original);
      const after = fs.readFileSync(file, 'utf8');
      assert.ok(after.startsWith(original), 'the old text is untouched, comments included; Pincer appended its table');
      assert.deepEqual(table(after).pincer, { command: STDIO.command, args: STDIO.args, env: { ELECTRON_RUN_AS_NODE: '1' } });
      assert.deepEqual(table(after).docs, table(original).docs);
      assert.ok(isConnected('codex'));
      assert.match(r.note!, /approval_mode = "approve"/);
      assert.equal(connectClient({ client: 'codex', stdio: STDIO }).changed, false, 'connecting twice changes nothing');
      assert.equal(disconnectClient('codex').changed, true);
      assert.equal(fs.readFileSync(file, 'utf8'), original, 'disconnect gives back the very same bytes');
      assert.equal(isConnected('codex'), false);
      assert.equal(disconnectClient('codex').changed, false);
    }));

  test("a reconnect (stdio to HTTP) replaces only Pincer's keys: the user's approval settings and comments in its table stay", () =>
    withHome(() => {
      const file = CLIENTS.codex.file();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const mine = [
        '[mcp_servers.pincer]',
        'command = "/old/node"',
        'args = ["/old/pincer.js", "stdio"]',
        '# the user wrote this',
        'startup_timeout_sec = 30',
        '',
        '[mcp_servers.pincer.env]',
        'PINCER_HOME = "/old/home"',
        '',
        '[mcp_servers.pincer.tools.Bash]',
        'approval_mode = "approve"',
        '',
      ].join('\n');
      fs.writeFileSync(file, original + '\n' + mine);
      const http = { url: 'http://127.0.0.1:7717/mcp', token: 'tok"en' };
      connectClient({ client: 'codex', stdio: STDIO, http });
      const after = fs.readFileSync(file, 'utf8');
      assert.ok(after.startsWith(original));
      const pincer = table(after).pincer!;
      assert.equal(pincer.url, http.url);
      assert.deepEqual(pincer.http_headers, { Authorization: 'Bearer tok"en' });
      assert.equal(pincer.command, undefined);
      assert.equal(pincer.env, undefined);
      assert.equal(pincer.startup_timeout_sec, 30);
      assert.deepEqual(pincer.tools, { Bash: { approval_mode: 'approve' } });
      assert.match(after, /# the user wrote this/);
      disconnectClient('codex');
      assert.equal(table(fs.readFileSync(file, 'utf8')).pincer, undefined, 'disconnect removes the table and its subtables');
      assert.match(fs.readFileSync(file, 'utf8'), /\[mcp_servers\.docs\.tools\.search\]/);
    }));

  test('a broken config.toml, or one whose mcp_servers is an inline table, is refused and left alone', () =>
    withHome(() => {
      const file = CLIENTS.codex.file();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, 'model = "x"\n[mcp_servers.a\n');
      assert.throws(() => connectClient({ client: 'codex', stdio: STDIO }), /config\.toml is not valid TOML \(line \d+: .*\)\. Fix it first; Pincer changed nothing/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'model = "x"\n[mcp_servers.a\n');
      const inline = 'mcp_servers = { other = { command = "x" } }\n';
      fs.writeFileSync(file, inline);
      assert.throws(() => connectClient({ client: 'codex', stdio: STDIO }), /\[mcp_servers\.<name>\] tables; Pincer changed nothing/);
      assert.equal(fs.readFileSync(file, 'utf8'), inline);
    }));

  test('CODEX_HOME moves the file; a missing one is created, private', () =>
    withHome((home) => {
      process.env.CODEX_HOME = path.join(home, 'elsewhere');
      try {
        const r = connectClient({ client: 'codex', stdio: STDIO });
        assert.equal(r.file, path.join(home, 'elsewhere', 'config.toml'));
        if (process.platform !== 'win32') assert.equal(fs.statSync(r.file).mode & 0o777, 0o600);
        assert.equal(fs.readFileSync(r.file, 'utf8'), `[mcp_servers.pincer]\ncommand = ${JSON.stringify(STDIO.command)}\nargs = [ ${STDIO.args.map((a) => JSON.stringify(a)).join(', ')} ]\nenv = { ELECTRON_RUN_AS_NODE = "1" }\n`);
      } finally {
        delete process.env.CODEX_HOME;
      }
    }));
});
