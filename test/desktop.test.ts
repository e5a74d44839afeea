import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FakeElectron, isolateHome } from './helpers/fake-electron.js';
import { startDesktop, type DesktopApp } from '../main/desktop/app.js';
import { IPC } from '../main/desktop/channels.js';
import { packagedLauncher } from '../main/desktop/app-launcher.js';
import { tempHome, waitFor, pidAlive } from './helpers/env.js';
import { startHub } from '../main/hub/hub.js';
import { VERSION } from '../main/core/version.js';
import { HUB_NODE_FLAGS } from '../main/core/node-flags.js';
import { signInWithCode } from './helpers/dashboard-client.js';
import { osFreePort } from './helpers/ports.js';
import http from 'node:http';

describe('the desktop app against a fake electron module', () => {
  const h = tempHome();
  const fake = new FakeElectron();
  let desk: DesktopApp;
  let restore: () => void;
  const tray = () => fake.trays[0]!;
  const iconState = () => path.basename((tray().image as { path: string }).path, '.png');

  before(async () => {
    restore = isolateHome(h.home);
    fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), 'HTTP_PORT=auto\nBASH_CWD=' + h.home + '\n');
    desk = (await startDesktop(fake.api(), { home: h.home, platform: 'darwin' }))!;
  });
  after(async () => {
    await desk?.hub?.close();
    restore();
    h.cleanup();
  });

  test('starts to the tray: no dock icon, a serving icon, the hub in-process with its dashboard at an origin of its own; the first launch opens the Welcome page once', () => {
    assert.ok(fake.calls.includes('dock.hide'));
    assert.equal(fake.windows.length, 1, 'one window at the first launch');
    assert.match(fake.windows[0]!.urls.at(-1)!, /^http:\/\/[0-9a-f]{32}\.pincer\.localhost:\d+\/#\/welcome$/);
    assert.ok(fs.existsSync(path.join(h.home, 'desktop-welcomed')), 'remembered, so later launches start to the tray only');
    assert.deepEqual(tray().menu[0], { label: 'Serving · 0 clients connected', enabled: false }, 'the menu starts with one status line');
    assert.equal(iconState(), 'serving');
    assert.match(tray().tooltip, /serving MCP tools/);
    assert.ok(desk.hub);
    assert.match(desk.hub!.dashboardUrl, new RegExp(`^http://[0-9a-f]{32}\\.pincer\\.localhost:${desk.hub!.port}$`));
  });

  test('the window signs in over IPC with a one-time code for a desktop session, never the token; other senders are refused', async () => {
    const signIn = fake.ipc.get(IPC.signIn)!;
    assert.throws(() => signIn({ senderFrame: { url: 'http://127.0.0.1:1/' } }), /refused IPC "pincer:sign-in"/);
    assert.throws(() => signIn({ senderFrame: { url: `${desk.hub!.url}/#/overview` } }), /refused IPC/, "the hub's IP address is not the dashboard's origin");
    const { code } = (await signIn({ senderFrame: { url: `${desk.hub!.dashboardUrl}/#/overview` } })) as { code: string };
    const token = desk.hub!.runtime.services.settings.get('AUTH_TOKEN');
    assert.ok(!code.includes(token));
    // The page redeems it the dashboard's way: a desktop session, which may read the token (a browser's may not).
    const session = (await signInWithCode(desk.hub!.url, code))!;
    assert.ok(session, 'the code signs in');
    assert.equal((await session.fetch('/api/overview')).status, 200);
    assert.equal(((await (await session.fetch('/api/token')).json()) as { token: string }).token, token);
    assert.equal(await signInWithCode(desk.hub!.url, code), undefined, 'a code signs in once');
  });

  test('Pause / Resume serving from the menu sets TOOLS and the icon follows', async () => {
    tray().item(/Pause MCP serving/).click!();
    assert.match(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'), /^TOOLS=false$/m);
    await waitFor(() => iconState() === 'paused', 'the paused icon');
    tray().item(/Resume MCP serving/).click!();
    await waitFor(() => iconState() === 'serving', 'the serving icon');
  });

  test('a waiting question shows in the icon and a notification whose click opens it in the dashboard', async () => {
    const services = desk.hub!.runtime.services;
    const controller = new AbortController();
    const asking = services.asker.ask([{ question: 'Ship it?', options: [{ label: 'yes' }, { label: 'no' }], multiSelect: false }], { signal: controller.signal, progress: async () => undefined, callerId: 's', clientName: 'test' });
    await waitFor(() => iconState() === 'question', 'the question icon');
    const n = fake.notifications.find((x) => x.options.body === 'Ship it?')!;
    assert.ok(n.shown);
    n.events.emit('click');
    const win = fake.windows.at(-1)!;
    assert.match(win.urls.at(-1)!, /#\/questions$/);
    tray().item(/Answer 1 waiting question/);
    controller.abort();
    await asking;
    await waitFor(() => iconState() === 'serving', 'the question to go');
  });

  test('the dashboard window follows the Electron security checklist', () => {
    desk.dashboard.open();
    const win = fake.windows.at(-1)!;
    const wp = win.options.webPreferences as Record<string, unknown>;
    assert.equal(wp.contextIsolation, true);
    assert.equal(wp.sandbox, true);
    assert.equal(wp.nodeIntegration, false);
    assert.equal(wp.webSecurity, true);
    assert.equal(wp.webviewTag, false);
    assert.match(String(wp.preload), /dist[\\/]preload[\\/]index\.cjs$/);
    assert.ok(fs.existsSync(String(wp.preload)), 'the preload script is built');
    assert.deepEqual(win.openHandler!({ url: 'https://example.com/docs' }), { action: 'deny' });
    assert.deepEqual(fake.opened, ['https://example.com/docs'], 'web links open in the browser instead');
    assert.equal(win.navigate('https://evil.example/'), true, 'navigation away is stopped');
    assert.equal(win.navigate(`${desk.hub!.dashboardUrl}/#/jobs`), false, "the hub's own pages are fine");
    assert.equal(win.urls.at(-1), `${desk.hub!.dashboardUrl}/#/overview`, 'the window shows the dashboard at its own origin');
    assert.ok(fake.calls.includes('permissions:function'));
    // ReadDocs' session loads what builds a page's text, not images, media or fonts; stylesheets come back empty.
    const decide = (resourceType: string) => {
      let answer: unknown;
      fake.beforeRequest!({ resourceType, url: 'https://example.com/x' }, (r: unknown) => (answer = r));
      return answer;
    };
    assert.deepEqual(['mainFrame', 'script', 'xhr', 'image', 'media', 'font', 'subFrame', 'stylesheet'].map(decide), [{}, {}, {}, { cancel: true }, { cancel: true }, { cancel: true }, { cancel: true }, { redirectURL: 'data:text/css,' }]);
  });

  test('IPC answers only the dashboard: the sender frame is checked', async () => {
    const info = fake.ipc.get('pincer:info')!;
    const ok = (await info({ senderFrame: { url: `${desk.hub!.dashboardUrl}/#/overview` } })) as { version: string };
    assert.match(ok.version, /^\d+\.\d+\.\d+/);
    assert.throws(() => info({ senderFrame: { url: 'https://evil.example/' } }), /refused IPC "pincer:info" from https:\/\/evil\.example\//);
    assert.throws(() => info({ senderFrame: null }), /refused IPC/);
    const ext = fake.ipc.get('pincer:open-external')!;
    assert.throws(() => ext({ senderFrame: { url: desk.hub!.dashboardUrl } }, 'file:///etc/passwd'), /only http\(s\) links/);
  });

  test('a second launch opens the dashboard of the first', () => {
    const before = fake.windows.length;
    fake.windows.forEach((w) => (w.destroyed = true));
    fake.appEvents.emit('second-instance');
    assert.equal(fake.windows.length, before + 1);
  });

  test('Connect a client writes the run-as-node entry; Start at login uses login items on macOS', async () => {
    const menu = tray().item(/Connect a client/);
    menu.submenu!.find((s) => s.label === 'Cursor')!.click!();
    await waitFor(() => fake.notifications.some((n) => /connected to Cursor/.test(String(n.options.title))), 'the connect notification');
    const cfg = JSON.parse(fs.readFileSync(path.join(h.home, '.cursor', 'mcp.json'), 'utf8')) as { mcpServers: { pincer: { command: string; args: string[]; env: Record<string, string> } } };
    assert.equal(cfg.mcpServers.pincer.command, process.execPath);
    assert.equal(cfg.mcpServers.pincer.env.ELECTRON_RUN_AS_NODE, '1');
    assert.match(cfg.mcpServers.pincer.args[0]!, /dist[\\/]main[\\/]cli[\\/]pincer\.js$/);
    assert.equal(tray().item(/Connect a client/).submenu!.find((s) => s.label === 'Cursor')!.checked, true);
    assert.match(String(fake.notifications.at(-1)!.options.title), /connected to Cursor/);
    assert.equal(tray().item(/Start at login/).checked, false, 'off by default');
    tray().item(/Start at login/).click!();
    assert.equal(fake.loginItem.openAtLogin, true, 'macOS uses login items');
    // Windows reads the arguments (macOS ignores them): the hub in the main process gets its V8 flags there.
    assert.deepEqual(fake.loginItem.args, ['--hidden', `--js-flags=${HUB_NODE_FLAGS.join(' ')}`]);
  });

  test('Quit asks while jobs run; the jobs keep running after the app is gone', async () => {
    const { job } = desk.hub!.runtime.services.jobs.start('sleep 300');
    fake.dialogAnswer = 1;
    assert.equal(await desk.quit(), false, 'Cancel keeps Pincer running');
    assert.match(String((fake.dialogs[0] as { detail: string }).detail), /1 background job\(s\) are running \(they keep running\)/);
    fake.dialogAnswer = 0;
    assert.equal(await desk.quit(), true);
    assert.equal(fake.exited, 0);
    assert.ok(pidAlive(job.pid!), 'the job outlives the app');
    process.kill(-job.pid!, 'SIGKILL');
  });
});

test('only one instance: a second app quits at once and starts no hub', async () => {
  const h = tempHome();
  const fake = new FakeElectron();
  fake.lock = false;
  assert.equal(await startDesktop(fake.api(), { home: h.home }), undefined);
  assert.deepEqual(fake.calls, ['quit']);
  assert.equal(fs.existsSync(path.join(h.home, 'hub.json')), false);
  h.cleanup();
});

test("the tray shows an error when the hub cannot start (another tray app's hub does not hand over) — icon, status line, a notification, no window — and Linux start-at-login is an XDG entry", async () => {
  const h = tempHome();
  const restore = isolateHome(h.home);
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), 'HTTP_PORT=auto\n');
  // A tray app of another Electron profile already runs the hub of this data folder.
  const other = await startHub({ home: h.home, role: 'desktop' });
  const fake = new FakeElectron();
  try {
    const desk = (await startDesktop(fake.api(), { home: h.home, platform: 'linux' }))!;
    assert.equal(desk.state(), 'error');
    assert.match(fake.trays[0]!.tooltip, /another Pincer hub runs for this data folder .*the Pincer tray app runs the hub/);
    // A hub in trouble is a notification, and the menu's status line says why; no Welcome window without a hub (it waits for a launch that has one).
    assert.deepEqual(fake.notifications.map((n) => n.options.title), ['Pincer could not start its hub']);
    assert.match(String(fake.notifications[0]!.options.body), /another Pincer hub runs for this data folder/);
    assert.match((fake.trays[0]!.menu[0] as { label: string }).label, /^Not serving: another Pincer hub runs for this data folder/);
    assert.equal(fake.windows.length, 0);
    assert.equal(fs.existsSync(path.join(h.home, 'desktop-welcomed')), false);
    fake.trays[0]!.item(/Start at login/).click!();
    const entry = fs.readFileSync(path.join(h.home, '.config', 'autostart', 'pincer.desktop'), 'utf8');
    assert.match(entry, /^\[Desktop Entry\]\nType=Application\nName=Pincer/);
    assert.ok(entry.includes(` --hidden "--js-flags=${HUB_NODE_FLAGS.join(' ')}"\n`), entry);
    fake.trays[0]!.item(/Start at login/).click!();
    assert.equal(fs.existsSync(path.join(h.home, '.config', 'autostart', 'pincer.desktop')), false);
  } finally {
    await other.close();
    restore();
    h.cleanup();
  }
});

test("without a hub of its own, the window shows another hub of the folder only while it proves itself: its sign-in link, then nothing from a program that took its port", async () => {
  const h = tempHome();
  const restore = isolateHome(h.home);
  const port = await osFreePort();
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `HTTP_PORT=${port}\n`);
  // Another tray app (another Electron profile) runs the hub of this data folder and does not hand over.
  const other = await startHub({ home: h.home, role: 'desktop' });
  const fake = new FakeElectron();
  const squatters: http.Server[] = [];
  const seen: string[] = [];
  const decide = (url: string) => new Promise<unknown>((resolve) => fake.windowBeforeRequest!({ resourceType: 'mainFrame', url }, resolve));
  try {
    const desk = (await startDesktop(fake.api(), { home: h.home, platform: 'linux' }))!;
    assert.equal(desk.hub, undefined);
    desk.dashboard.open('questions');
    const win = fake.windows.at(-1)!;
    const loaded = await waitFor(() => win.urls.at(-1), 'the window to load');
    assert.match(loaded, new RegExp(`^${other.dashboardUrl.replace(/\./g, '\\.')}/#signin=[\\w-]+\\.[\\w-]+&to=questions$`), 'a sign-in link of the proven hub');
    // The page signs in again over IPC (after a reload): a fresh proof, a fresh code, a desktop session.
    const { code } = (await fake.ipc.get(IPC.signIn)!({ senderFrame: { url: `${other.dashboardUrl}/#/overview` } })) as { code: string };
    const session = (await signInWithCode(other.url, code))!;
    assert.equal((await session.fetch('/api/token')).status, 200);
    assert.deepEqual(await decide(`${other.dashboardUrl}/`), {}, 'a reload while the hub proves itself loads');

    // That hub stops, and another program takes its port (both loopback addresses) and answers whatever it is asked.
    await other.close();
    for (const host of ['127.0.0.1', '::1']) {
      const squatter = http.createServer((req, res) => {
        seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ success: true, status: 'healthy', name: 'pincer', hub: { pid: process.pid, role: 'desktop', proof: 'forged', bound: 'forged' } }));
      });
      await new Promise<void>((resolve, reject) => squatter.once('error', reject).listen(port, host, () => resolve()));
      squatters.push(squatter);
    }
    assert.deepEqual(await decide(`${other.dashboardUrl}/`), { cancel: true }, 'a reload shows nothing of the program on the port');
    await waitFor(() => win.urls.at(-1)?.startsWith('data:text/html'), 'the window to say there is no hub');
    // Nor does a page left at that origin get a sign-in: the window no longer shows it.
    assert.throws(() => fake.ipc.get(IPC.signIn)!({ senderFrame: { url: `${other.dashboardUrl}/` } }), /refused IPC "pincer:sign-in"/);
    // Opened again, the window says why instead of asking the program for anything.
    desk.dashboard.open();
    await waitFor(() => /no%20Pincer%20hub%20of/.test(win.urls.at(-1) ?? ''), 'the window to say no hub proves itself');
    assert.ok(seen.length > 0, 'the program was asked to prove itself');
    for (const r of seen) assert.match(r, /^GET \/api\/mcp\/health\?challenge=[\w-]+ /, `the program on the port was sent "${r.slice(0, 160)}"`);
  } finally {
    for (const s of squatters) await new Promise((r) => s.close(r));
    await other.close();
    restore();
    h.cleanup();
  }
});

test('Connect a client → Claude Desktop offers the bundle first (opened with Claude Desktop), the config edit second', async () => {
  const h = tempHome();
  const restore = isolateHome(h.home);
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), 'HTTP_PORT=auto\n');
  // The installed app carries the bundle of its platform in resources/bundles.
  const resources = path.join(h.home, 'resources');
  fs.mkdirSync(path.join(resources, 'bundles'), { recursive: true });
  const bundle = path.join(resources, 'bundles', `pincer-${VERSION}-linux-${process.arch}.mcpb`);
  fs.writeFileSync(bundle, 'PK');
  const fake = new FakeElectron();
  fake.packaged = true;
  const desk = (await startDesktop(fake.api(), { home: h.home, platform: 'linux', resourcesPath: resources, execPath: '/opt/Pincer/pincer' }))!;
  try {
    const claude = fake.trays[0]!.item(/Connect a client/).submenu!.find((s) => s.label === 'Claude Desktop')!;
    assert.deepEqual(claude.submenu!.map((s) => s.label), ['Install the Pincer bundle (recommended)…', 'Add to claude_desktop_config.json instead']);
    claude.submenu![0]!.click!();
    await waitFor(() => fake.notifications.some((n) => /Install Pincer in Claude Desktop/.test(String(n.options.title))), 'the install notification');
    assert.deepEqual(fake.openedPaths, [bundle]);
    // Without a bundle at hand, Claude Desktop is a plain config-edit checkbox like the others.
    fs.rmSync(bundle);
    desk.refresh();
    const plain = fake.trays[0]!.item(/Connect a client/).submenu!.find((s) => s.label === 'Claude Desktop')!;
    assert.equal(plain.submenu, undefined);
    assert.equal(plain.checked, false);
  } finally {
    await desk.hub?.close();
    restore();
    h.cleanup();
  }
});

test('the stdio entry of the packaged app per OS', () => {
  assert.deepEqual(packagedLauncher('/Applications/Pincer.app/Contents/MacOS/Pincer', '/Applications/Pincer.app/Contents/Resources', 'darwin'), {
    command: '/Applications/Pincer.app/Contents/Frameworks/Pincer Helper.app/Contents/MacOS/Pincer Helper',
    args: ['/Applications/Pincer.app/Contents/Resources/pincer-stdio.js', 'stdio'],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  });
  assert.deepEqual(packagedLauncher('/opt/Pincer/pincer', '/opt/Pincer/resources', 'linux').command, '/opt/Pincer/pincer');
});
