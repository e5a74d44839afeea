import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempHome, ROOT, PINCER_BIN, pincerEnv } from './helpers/env.js';
import { cliLauncher, stableNodePath } from '../main/connect/cli-launcher.js';
import { minimumNode } from './helpers/min-node.js';

/** The checkout's pinned Node (npm's `node` package), by its real path. */
const PINNED = fs.realpathSync(path.join(ROOT, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node'));
const MIN = minimumNode();
if ('problem' in MIN) throw new Error(MIN.problem);
const NODE_MIN = MIN.bin;

type Entry = { command: string; args: string[] };

for (const [label, node] of [
  ['the pinned Node', process.execPath],
  ['Node 22.14 (another supported Node)', NODE_MIN],
] as const) {
  test(`pincer connect run through a link in npm's npx cache, on ${label}: the entry names the checkout's real script and its pinned Node`, () => {
    const h = tempHome();
    try {
      // What `npx pincer` in a checkout runs: ~/.npm/_npx/<hash>/node_modules/.bin/pincer, a link to the checkout's script.
      const bin = path.join(h.home, '.npm', '_npx', '0123abcd', 'node_modules', '.bin');
      fs.mkdirSync(bin, { recursive: true });
      fs.symlinkSync(PINCER_BIN, path.join(bin, 'pincer'));
      const r = spawnSync(node, [path.join(bin, 'pincer'), 'connect', 'claude-code'], { env: pincerEnv(h.home), encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const entry = (JSON.parse(fs.readFileSync(path.join(h.home, '.claude.json'), 'utf8')) as { mcpServers: { pincer: Entry } }).mcpServers.pincer;
      assert.deepEqual(entry.args, [fs.realpathSync(PINCER_BIN), 'stdio']);
      assert.equal(entry.command, PINNED);
      assert.match(r.stdout, new RegExp(`Node\\.js 24\\.[0-9.]+ \\(${PINNED.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) runs `));
      // And what it wrote starts: the written command answers --version.
      const started = spawnSync(entry.command, [...entry.args.slice(0, 1), '--version'], { encoding: 'utf8' });
      assert.equal(started.status, 0, started.stderr);
    } finally {
      h.cleanup();
    }
  });
}

test('connect refuses to write a config that points into the npx cache', async () => {
  const h = tempHome();
  try {
    // A pincer that npx fetched itself (not a link to a checkout): gone the day npm prunes its cache.
    const script = path.join(h.home, '.npm', '_npx', '0123abcd', 'node_modules', 'pincer', 'dist', 'main', 'cli', 'pincer.js');
    fs.mkdirSync(path.dirname(script), { recursive: true });
    fs.writeFileSync(script, '');
    await assert.rejects(cliLauncher(script), /runs from npm's npx cache \(.*_npx.*\), which npm deletes when it prunes the cache/);
    await assert.rejects(cliLauncher(path.join(h.home, 'nothing.js')), /cannot find Pincer's own script/);
  } finally {
    h.cleanup();
  }
});

test("a Node without a pinned one is written by the name on PATH that leads to it (Homebrew's bin/node, not its versioned Cellar path)", () => {
  const h = tempHome();
  try {
    // …/Cellar/node/24.1.0/bin/node is the real file; …/bin/node the link an upgrade moves.
    const cellar = path.join(h.home, 'Cellar', 'node', '24.1.0', 'bin');
    const bin = path.join(h.home, 'bin');
    fs.mkdirSync(cellar, { recursive: true });
    fs.mkdirSync(bin);
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(cellar, 'node'));
    fs.symlinkSync(path.join(cellar, 'node'), path.join(bin, 'node'));
    const elsewhere = path.join(h.home, 'empty');
    fs.mkdirSync(elsewhere);
    assert.equal(stableNodePath(path.join(cellar, 'node'), [elsewhere, 'relative/bin', bin].join(path.delimiter)), path.join(bin, 'node'));
    assert.equal(stableNodePath(path.join(cellar, 'node'), elsewhere), path.join(cellar, 'node'), 'no PATH entry leads to it: its own path');
  } finally {
    h.cleanup();
  }
});
