import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempHome, pincerEnv, PINCER_BIN, WAIT_MS } from './helpers/env.js';
import { startHubProcess } from './helpers/hub.js';

// `connect --http` writes a URL the client will send the token to: only a hub that proved itself may name it.
test('connect --http with no hub running refuses, naming what to do, and writes no config (no guessed port gets the token)', () => {
  const h = tempHome();
  try {
    const env = { ...pincerEnv(h.home), HOME: h.home };
    spawnSync(process.execPath, [PINCER_BIN, 'token'], { env, encoding: 'utf8' });
    const r = spawnSync(process.execPath, [PINCER_BIN, 'connect', 'cursor', '--http'], { env, encoding: 'utf8', timeout: WAIT_MS });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /no Pincer hub is running.*Start the hub \("pincer serve"/);
    assert.ok(!fs.existsSync(path.join(h.home, '.cursor', 'mcp.json')), 'no config was written');
  } finally {
    h.cleanup();
  }
});

test('connect --http with a running hub writes that hub\'s own address', async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const env = { ...pincerEnv(h.home), HOME: h.home };
    const r = spawnSync(process.execPath, [PINCER_BIN, 'connect', 'cursor', '--http'], { env, encoding: 'utf8', timeout: WAIT_MS });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const entry = (JSON.parse(fs.readFileSync(path.join(h.home, '.cursor', 'mcp.json'), 'utf8')) as { mcpServers: { pincer: { url: string } } }).mcpServers.pincer;
    assert.equal(entry.url, `${hub.url}/mcp`);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a mistyped client name is named, with the closest one suggested', () => {
  const h = tempHome();
  try {
    const r = spawnSync(process.execPath, [PINCER_BIN, 'connect', 'claud-code'], { env: { ...pincerEnv(h.home), HOME: h.home }, encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /"claud-code" is not a client Pincer knows \(did you mean claude-code\?\); name a client: /);
  } finally {
    h.cleanup();
  }
});
