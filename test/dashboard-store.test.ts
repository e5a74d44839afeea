import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { openStore } from '../main/store/db.js';
import { ActivityRepo } from '../main/store/activity.js';
import { Activity } from '../main/calls/activity-recorder.js';
import { EventBus } from '../main/calls/event-bus.js';
import { Settings } from '../main/core/settings/settings.js';
import { SETTINGS } from '../main/core/settings/schema.js';
import { controlFor, suggestKey, maskSecrets, unmaskSecrets, MASKED } from '../main/http/dashboard/setting-views.js';
import { tempHome } from './helpers/env.js';

function setup(settingsText = '') {
  const h = tempHome();
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), settingsText);
  const settings = new Settings({ userFile: path.join(h.home, 'pincer-env.txt'), env: {} });
  const file = path.join(h.home, 'pincer.db');
  return { h, settings, file };
}

function call(bus: EventBus, id: string, tool: string, at: number, ms: number, isError = false, session = 's1', client = 'test'): void {
  bus.publish({ type: 'tool_call_started', id, tool, session, client, args: JSON.stringify({ n: id }), at });
  bus.publish({ type: 'tool_call_finished', id, tool, session, client, ms, isError, summary: `result ${id}`, at: at + ms });
}

describe('activity and per-tool statistics in SQLite', () => {
  test('calls and statistics survive closing and reopening the database', () => {
    const { h, settings, file } = setup();
    try {
      let store = openStore(file);
      let bus = new EventBus();
      const first = new Activity(bus, new ActivityRepo(store.db), settings);
      const now = Date.now();
      for (let i = 0; i < 20; i++) call(bus, `a${i}`, i % 2 ? 'Bash' : 'WebSearch', now - i * 1000, 10 + i, i === 3);
      // As the runtime does when it shuts down: what is still pending is written.
      first.close();
      store.db.close();
      store = openStore(file);
      bus = new EventBus();
      const activity = new Activity(bus, new ActivityRepo(store.db), settings);
      assert.equal(activity.recent(100).length, 20);
      assert.deepEqual(activity.statsFor('Bash'), { calls: 10, errors: 1, medianMs: 19, p95Ms: 29 });
      assert.equal(activity.recent(100, { tool: 'WebSearch' }).length, 10);
      assert.equal(activity.recent(100, { errors: true })[0]!.id, 'a3');
      assert.equal(activity.recent(100, { q: 'result a7' })[0]!.id, 'a7');
      assert.equal(activity.recent(100, { from: now - 4500, to: now - 1500 }).length, 3);
      // A session's client is known from its calls, after a restart too (jobs record only the session).
      call(bus, 'other', 'Bash', now, 1, false, 's2', 'cursor');
      assert.equal(activity.clientOf('s1'), 'test');
      assert.equal(activity.clientOf('s2'), 'cursor');
      assert.equal(activity.clientOf('nobody'), undefined);
      const minutes = activity.perMinute(60, now);
      assert.equal(minutes.length, 60);
      assert.equal(minutes.reduce((n, b) => n + b.calls, 0), 21);
      store.db.close();
    } finally {
      h.cleanup();
    }
  });

  test('bounded: calls older than ACTIVITY_RETENTION_DAYS and beyond ACTIVITY_MAX_CALLS are deleted', () => {
    const { h, settings, file } = setup('ACTIVITY_RETENTION_DAYS=2\nACTIVITY_MAX_CALLS=100\n');
    try {
      const store = openStore(file);
      const repo = new ActivityRepo(store.db);
      const bus = new EventBus();
      const activity = new Activity(bus, repo, settings);
      const now = Date.now();
      for (let i = 0; i < 5; i++) call(bus, `old${i}`, 'Bash', now - 3 * 86_400_000 - i, 5);
      for (let i = 0; i < 150; i++) call(bus, `new${i}`, 'Bash', now - i, 5);
      activity.flush();
      assert.equal(repo.count(), 155);
      assert.equal(activity.prune(), 55);
      assert.equal(repo.count(), 100);
      assert.ok(activity.recent(1000).every((c) => c.id.startsWith('new')), 'the old calls went');
      assert.equal(activity.recent(1000).at(-1)!.id, 'new99', 'the newest were kept');
      store.db.close();
    } finally {
      h.cleanup();
    }
  });

  test('a call written while it runs is completed by its finish; one that ends before the flush is written whole', () => {
    const { h, settings, file } = setup();
    try {
      const store = openStore(file);
      const bus = new EventBus();
      const activity = new Activity(bus, new ActivityRepo(store.db), settings);
      const now = Date.now();
      bus.publish({ type: 'tool_call_started', id: 'long', tool: 'Bash', session: 's1', client: 'test', args: '{"command":"sleep 5"}', at: now });
      // A reader flushes: the running call is there, without an end.
      const running = activity.get('long');
      assert.deepEqual(running, { id: 'long', tool: 'Bash', session: 's1', client: 'test', args: '{"command":"sleep 5"}', started: now, ms: undefined, isError: undefined, summary: undefined });
      call(bus, 'quick', 'ListBgTasks', now + 1, 2);
      bus.publish({ type: 'tool_call_finished', id: 'long', tool: 'Bash', session: 's1', client: 'test', ms: 5000, isError: true, summary: 'timed out', at: now + 5000 });
      assert.deepEqual(activity.get('long'), { ...running, ms: 5000, isError: true, summary: 'timed out' });
      assert.deepEqual(activity.get('quick'), { id: 'quick', tool: 'ListBgTasks', session: 's1', client: 'test', args: '{"n":"quick"}', started: now + 1, ms: 2, isError: false, summary: 'result quick' });
      assert.deepEqual(activity.statsFor('Bash'), { calls: 1, errors: 1, medianMs: 5000, p95Ms: 5000 });
      store.db.close();
    } finally {
      h.cleanup();
    }
  });

  test('a read-only database (written by a newer Pincer) is left alone', () => {
    const { h, settings, file } = setup();
    try {
      const store = openStore(file);
      const repo = new ActivityRepo(store.db);
      const bus = new EventBus();
      new Activity(bus, repo, settings, true);
      call(bus, 'x', 'Bash', Date.now(), 1);
      assert.equal(repo.count(), 0);
      store.db.close();
    } finally {
      h.cleanup();
    }
  });
});

describe('settings as the dashboard draws them', () => {
  test('each key gets the control its schema calls for', () => {
    const spec = (k: keyof typeof SETTINGS) => SETTINGS[k] as Parameters<typeof controlFor>[1];
    assert.deepEqual(controlFor('TOOLS', spec('TOOLS')), { kind: 'switch' });
    assert.deepEqual(controlFor('BASH_TIMEOUT_MS', spec('BASH_TIMEOUT_MS')), { kind: 'number', unit: 'ms' });
    assert.deepEqual(controlFor('MAX_BODY_BYTES', spec('MAX_BODY_BYTES')), { kind: 'number', unit: 'bytes' });
    assert.deepEqual(controlFor('ACTIVITY_RETENTION_DAYS', spec('ACTIVITY_RETENTION_DAYS')), { kind: 'number', unit: 'days' });
    assert.deepEqual(controlFor('BASH_SHELL', spec('BASH_SHELL')), { kind: 'choice', options: ['auto', 'bash', 'powershell', 'cmd'] });
    assert.deepEqual(controlFor('BROWSER_PATH', spec('BROWSER_PATH')), { kind: 'path' });
    assert.deepEqual(controlFor('AUTH_TOKEN', spec('AUTH_TOKEN')), { kind: 'secret' });
    assert.deepEqual(controlFor('HTTP_PORT', spec('HTTP_PORT')), { kind: 'number' });
  });

  test('"did you mean" for mistyped keys, nothing for strangers', () => {
    assert.equal(suggestKey('BASH_TIMEOUT'), 'BASH_TIMEOUT_MS');
    assert.equal(suggestKey('HTTP_PROT'), 'HTTP_PORT');
    assert.equal(suggestKey('tools'), 'TOOLS');
    assert.equal(suggestKey('COMPLETELY_UNRELATED_THING'), undefined);
  });

  test('secrets are masked for the editor and put back on save', () => {
    const text = '# mine\nAUTH_TOKEN=s3cret\nBRAVE_API_KEY=k\nTOOLS=true\n';
    const masked = maskSecrets(text);
    assert.ok(!masked.includes('s3cret') && !masked.includes('=k\n'));
    assert.equal(masked, `# mine\nAUTH_TOKEN=${MASKED}\nBRAVE_API_KEY=${MASKED}\nTOOLS=true\n`);
    assert.equal(unmaskSecrets(masked.replace('TOOLS=true', 'TOOLS=false'), text), '# mine\nAUTH_TOKEN=s3cret\nBRAVE_API_KEY=k\nTOOLS=false\n');
    assert.equal(unmaskSecrets(masked.replace(`AUTH_TOKEN=${MASKED}`, 'AUTH_TOKEN=new'), text), `# mine\nAUTH_TOKEN=new\nBRAVE_API_KEY=k\nTOOLS=true\n`);
  });
});
