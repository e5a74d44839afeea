import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { configureLogging, logger, logState, MAX_LINE_BYTES } from '../main/core/log.js';
import { tempHome, WAIT_MS } from './helpers/env.js';

const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

test('log files hold one JSON object a line, with the stack, code and cause of every error', () => {
  const h = tempHome();
  try {
    configureLogging({ logsDir: h.home, fileName: 'a.log', stderr: false, level: 'debug' });
    const cause = Object.assign(new Error('disk said no'), { code: 'EIO' });
    logger('calls').error('Bash failed', { err: new TypeError('x is not a function', { cause }), tool: 'Bash', n: 10n });
    const [l] = lines(path.join(h.home, 'a.log'));
    assert.equal(l!.level, 'error');
    assert.equal(l!.scope, 'calls');
    assert.equal(l!.msg, 'Bash failed');
    assert.equal(l!.tool, 'Bash');
    assert.equal(l!.n, '10');
    assert.equal(l!.pid, process.pid);
    assert.ok(!Number.isNaN(Date.parse(String(l!.time))));
    const err = l!.err as { name: string; message: string; stack: string; cause: { message: string; code: string; stack: string } };
    assert.equal(err.name, 'TypeError');
    assert.match(err.stack, /^TypeError: x is not a function\n\s+at /);
    assert.deepEqual([err.cause.message, err.cause.code], ['disk said no', 'EIO']);
    assert.match(err.cause.stack, /at /);
  } finally {
    configureLogging({ stderr: false });
    h.cleanup();
  }
});

test('a line past the cap is cut to its message; a cycle in its fields costs the fields, not the line', () => {
  const h = tempHome();
  try {
    configureLogging({ logsDir: h.home, fileName: 'b.log', stderr: false, level: 'debug' });
    const log = logger('t');
    log.info('huge', { blob: 'x'.repeat(MAX_LINE_BYTES * 2) });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    log.warn('cyclic', { cyclic });
    const [huge, cyc] = lines(path.join(h.home, 'b.log'));
    assert.equal(huge!.msg, 'huge');
    assert.ok(Number(huge!.truncated) > MAX_LINE_BYTES);
    assert.equal(huge!.blob, undefined);
    assert.equal(cyc!.msg, 'cyclic');
    assert.match(String(cyc!.unserializable), /circular/i);
    for (const l of fs.readFileSync(path.join(h.home, 'b.log'), 'utf8').split('\n').filter(Boolean)) assert.ok(Buffer.byteLength(l) <= MAX_LINE_BYTES);
  } finally {
    configureLogging({ stderr: false });
    h.cleanup();
  }
});

test('a log file is rotated by size, keeping three old ones', () => {
  const h = tempHome();
  try {
    configureLogging({ logsDir: h.home, fileName: 'c.log', stderr: false, level: 'debug', maxFileBytes: 8192 });
    const log = logger('rot');
    for (let i = 0; i < 400; i++) log.info(`line ${i}`, { pad: 'p'.repeat(100) });
    const names = fs.readdirSync(h.home).filter((n) => n.startsWith('c.log')).sort();
    assert.deepEqual(names, ['c.log', 'c.log.1', 'c.log.2', 'c.log.3']);
    for (const n of names) assert.ok(fs.statSync(path.join(h.home, n)).size <= 8192, `${n} is within the cap`);
    const last = lines(path.join(h.home, 'c.log')).at(-1)!;
    assert.equal(last.msg, 'line 399');
    // Nothing lost between the current file and the newest old one.
    const prev = lines(path.join(h.home, 'c.log.1')).at(-1)!;
    assert.equal(Number(String(prev.msg).slice(5)) + 1, Number(String(lines(path.join(h.home, 'c.log'))[0]!.msg).slice(5)));
    assert.equal(logState().problem, undefined);
  } finally {
    configureLogging({ stderr: false });
    h.cleanup();
  }
});

test('the last resort: a hub survives a few uncaught errors but exits (70) after too many in a minute; a relay exits on the first', async () => {
  const { spawnSync } = await import('node:child_process');
  const { pathToFileURL } = await import('node:url');
  const h = tempHome();
  try {
    const mod = (p: string) => pathToFileURL(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'main', 'core', p)).href;
    const script = (keepServing: boolean) => `
      const { configureLogging, logger } = await import(${JSON.stringify(mod('log.js'))});
      const { installLastResort } = await import(${JSON.stringify(mod('last-resort.js'))});
      configureLogging({ logsDir: ${JSON.stringify(h.home)}, fileName: '${keepServing}.log', stderr: false });
      installLastResort(logger('t'), { keepServing: ${keepServing}, maxPerMinute: 3 });
      for (let i = 0; i < 6; i++) setTimeout(() => { throw new Error('boom ' + i); }, 10 * (i + 1));
      setTimeout(() => process.exit(0), 500);`;
    const hub = spawnSync(process.execPath, ['--input-type=module', '-e', script(true)], { encoding: 'utf8', timeout: WAIT_MS });
    assert.equal(hub.status, 70, hub.stderr);
    const hubLines = lines(path.join(h.home, 'true.log'));
    assert.equal(hubLines.filter((l) => l.msg === 'uncaught exception; still serving').length, 4);
    assert.match(String(hubLines.at(-1)!.msg), /4 uncaught errors within a minute: exiting/);
    const relay = spawnSync(process.execPath, ['--input-type=module', '-e', script(false)], { encoding: 'utf8', timeout: WAIT_MS });
    assert.equal(relay.status, 70, relay.stderr);
    const relayLines = lines(path.join(h.home, 'false.log'));
    assert.deepEqual(relayLines.map((l) => [l.msg, (l.err as { message: string }).message]), [['uncaught exception', 'boom 0']]);
  } finally {
    h.cleanup();
  }
});
