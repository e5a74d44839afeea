import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { FakeElectron, isolateHome } from './helpers/fake-electron.js';
import { startDesktop, type DesktopApp } from '../main/desktop/app.js';
import { tempHome, waitFor } from './helpers/env.js';

/**
 * The tray app's notifications are for what needs the person — a question waiting, a job that failed,
 * the hub in trouble — silent unless NOTIFY_SOUND, grouped, each kind switchable; callbacks (the model's
 * reminders) notify only with NOTIFY_CALLBACKS. Recorded through the fake Electron with a real hub.
 */
describe('desktop notifications, the status line and the first launch', () => {
  const h = tempHome();
  const fake = new FakeElectron();
  let desk: DesktopApp;
  let restore: () => void;
  let client: Client;
  const titles = () => fake.notifications.map((n) => String(n.options.title));
  const status = () => (fake.trays[0]!.menu[0] as { label: string }).label;

  before(async () => {
    restore = isolateHome(h.home);
    fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `HTTP_PORT=auto\nBASH_CWD=${h.home}\n`);
    // Not the first launch: the Welcome page was shown before.
    fs.writeFileSync(path.join(h.home, 'desktop-welcomed'), 'shown\n');
    desk = (await startDesktop(fake.api(), { home: h.home, platform: 'linux' }))!;
    const token = desk.hub!.runtime.settings.get('AUTH_TOKEN');
    client = new Client({ name: 'notices-client', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${desk.hub!.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await desk?.hub?.close();
    restore();
    h.cleanup();
  });

  test('a launch after the first opens no window; the status line counts the connected client', async () => {
    assert.equal(fake.windows.length, 0);
    await waitFor(() => status() === 'Serving · 1 client connected', `the status line (${status()})`);
    assert.equal((fake.trays[0]!.menu[0] as { enabled?: boolean }).enabled, false, 'a line to read, not a command');
  });

  test('callbacks fire without a notification by default; with NOTIFY_CALLBACKS three within a minute are one, counted, and silent', async () => {
    const before = fake.notifications.length;
    await client.callTool({ name: 'SetCallback', arguments: { message: 'quiet reminder', delay_seconds: 1, repeat_count: 2 } });
    await waitFor(async () => ((await (await fetch(`${desk.hub!.url}/api/callbacks`, { headers: { Authorization: `Bearer ${desk.hub!.runtime.settings.get('AUTH_TOKEN')}` } })).json()) as { recent: unknown[] }).recent.length >= 2, 'two fires');
    assert.equal(fake.notifications.length, before, 'no notification for a callback');
    desk.hub!.runtime.settings.set('NOTIFY_CALLBACKS', 'true');
    await client.callTool({ name: 'SetCallback', arguments: { message: 'loud reminder', delay_seconds: 1, repeat_count: 3 } });
    await waitFor(() => titles().includes('Pincer: 3 callbacks fired'), `the grouped notice (${titles().join(' | ')})`);
    const mine = fake.notifications.slice(before);
    assert.deepEqual(mine.map((n) => [n.options.title, n.closed]), [
      ['Pincer: callback', true],
      ['Pincer: 2 callbacks fired', true],
      ['Pincer: 3 callbacks fired', false],
    ]);
    assert.ok(mine.every((n) => n.options.silent === true), 'silent by default');
    assert.match(String(mine.at(-1)!.options.body), /loud reminder$/);
    desk.hub!.runtime.settings.set('NOTIFY_CALLBACKS', 'false');
  });

  test('a job that fails notifies (with the sound when NOTIFY_SOUND), a killed one does not; the status line shows running jobs', async () => {
    const jobs = desk.hub!.runtime.services.jobs;
    const running = jobs.start('sleep 60').job;
    await waitFor(() => status() === 'Serving · 1 client connected · 1 job running', `the status line (${status()})`);
    await jobs.kill(running.id);
    desk.hub!.runtime.settings.set('NOTIFY_SOUND', 'true');
    const failed = jobs.start('echo broken; exit 3').job;
    await waitFor(() => titles().includes(`Pincer: background job #${failed.id} failed (exit code 3)`), `the failure notice (${titles().join(' | ')})`);
    const n = fake.notifications.at(-1)!;
    assert.equal(n.options.silent, false, 'NOTIFY_SOUND makes it sound');
    assert.equal(n.options.body, 'echo broken; exit 3');
    assert.ok(!titles().some((t) => t.includes(`#${running.id}`)), 'the killed job made no notification');
    n.events.emit('click');
    assert.match(fake.windows.at(-1)!.urls.at(-1)!, /#\/jobs$/);
    desk.hub!.runtime.settings.set('NOTIFY_SOUND', 'false');
  });

  test('NOTIFY_QUESTIONS=false: a question waits in the tray icon and the status line, without a notification', async () => {
    desk.hub!.runtime.settings.set('NOTIFY_QUESTIONS', 'false');
    const before = fake.notifications.length;
    const controller = new AbortController();
    const asking = desk.hub!.runtime.services.asker.ask([{ question: 'Quietly?', options: [{ label: 'yes' }, { label: 'no' }], multiSelect: false }], { signal: controller.signal, progress: async () => undefined, callerId: 's', clientName: 'test' });
    await waitFor(() => status().endsWith('· 1 question waiting'), `the status line (${status()})`);
    assert.equal(fake.notifications.length, before);
    controller.abort();
    await asking;
    desk.hub!.runtime.settings.set('NOTIFY_QUESTIONS', 'true');
  });
});

test('a start at login (--hidden) shows no Welcome window, even the first time', async () => {
  const h = tempHome();
  const restore = isolateHome(h.home);
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), 'HTTP_PORT=auto\n');
  const fake = new FakeElectron();
  const desk = (await startDesktop(fake.api(), { home: h.home, platform: 'linux', argv: ['/opt/Pincer/pincer', '--hidden'] }))!;
  try {
    assert.equal(fake.windows.length, 0);
    assert.equal(fs.existsSync(path.join(h.home, 'desktop-welcomed')), false);
  } finally {
    await desk.hub?.close();
    restore();
    h.cleanup();
  }
});
