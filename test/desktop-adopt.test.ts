import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { FakeElectron, isolateHome } from './helpers/fake-electron.js';
import { startDesktop, type DesktopApp } from '../main/desktop/app.js';
import { PINCER_BIN, pincerEnv, tempHome, waitFor, pidAlive } from './helpers/env.js';
import { connectV2, textOf, closeStdioClient } from './helpers/clients.js';
import { readHubJson, tokenOf, stopHubOf } from './helpers/hub.js';
import { osFreePort } from './helpers/ports.js';
import { IPC } from '../main/desktop/channels.js';
import { signInWithCode } from './helpers/dashboard-client.js';

/** `pincer serve …` without blocking this process, whose event loop runs the tray's hub. */
function serveOnce(home: string, args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [PINCER_BIN, 'serve', ...args], { env: pincerEnv(home), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, stderr })));
}

describe('the tray app started after a client: it takes over the headless hub the bridge started and is fully itself', () => {
  const h = tempHome();
  const fake = new FakeElectron();
  let desk: DesktopApp;
  let restore: () => void;
  let headless: { pid: number; port: number };
  let bridge: Awaited<ReturnType<typeof connectV2>>;
  const tray = () => fake.trays[0]!;
  const iconState = () => path.basename((tray().image as { path: string }).path, '.png');
  const rpc = async (body: unknown) => {
    const r = await fetch(`${desk.hub!.url}/api/mcp/jsonrpc`, { method: 'POST', headers: { Authorization: `Bearer ${tokenOf(h.home)}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return (await r.json()) as { result?: { tools?: unknown[]; content?: unknown[] }; error?: { message: string } };
  };

  before(async () => {
    restore = isolateHome(h.home);
    fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `HTTP_PORT=${await osFreePort()}\nBASH_CWD=${h.home}\n`);
    // The usual order at login: the client starts first, its bridge starts a headless hub.
    bridge = await connectV2({ home: h.home, args: ['stdio'] });
    assert.match(textOf(await bridge.client.callTool({ name: 'Bash', arguments: { command: 'echo before-tray' } })), /before-tray/);
    headless = readHubJson(h.home)!;
    desk = (await startDesktop(fake.api(), { home: h.home, platform: 'linux' }))!;
  });
  after(async () => {
    // The bridge gone first: a bridge that saw the tray's hub close would start a headless hub for this folder.
    await closeStdioClient(bridge);
    await desk?.hub?.close();
    restore();
    await stopHubOf(h.home).catch(() => undefined);
    h.cleanup();
  });

  test('the headless hub handed over: the tray runs the hub on the same port, without an error', async () => {
    assert.ok(desk.hub, 'the tray has its own hub');
    assert.equal(desk.hub!.port, headless.port, 'same port, so configured clients keep their URL');
    await waitFor(() => !pidAlive(headless.pid), 'the headless hub to exit');
    const info = readHubJson(h.home) as { pid: number; role?: string };
    assert.equal(info.pid, process.pid);
    assert.equal(info.role, 'desktop');
    assert.equal(desk.facts().error, undefined);
    assert.equal(iconState(), 'serving');
    assert.match(tray().tooltip, /serving MCP tools/);
  });

  test('the window signs in to the adopted hub: its one-time code opens the dashboard API', async () => {
    const { code } = (await fake.ipc.get(IPC.signIn)!({ senderFrame: { url: `${desk.hub!.dashboardUrl}/#/overview` } })) as { code: string };
    const session = await signInWithCode(desk.hub!.url, code);
    assert.ok(session, 'the code signs in');
    const res = await session.fetch('/api/overview');
    assert.equal(res.status, 200, await res.text());
  });

  test('the working toggle pauses and resumes serving for clients', async () => {
    tray().item(/Pause MCP serving/).click!();
    await waitFor(() => iconState() === 'paused', 'the paused icon');
    assert.deepEqual((await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).result?.tools, []);
    tray().item(/Resume MCP serving/).click!();
    await waitFor(() => iconState() === 'serving', 'the serving icon');
    assert.equal((await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).result?.tools?.length, 13);
  });

  test("a client's question notifies, shows in the tray, and the answer reaches the client", async () => {
    const call = rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'AskUserQuestion', arguments: { questions_json: JSON.stringify([{ question: 'Deploy the tray build?', options: ['yes', 'no'] }]) } } });
    await waitFor(() => iconState() === 'question', 'the question icon');
    const n = fake.notifications.find((x) => x.options.body === 'Deploy the tray build?');
    assert.ok(n?.shown, 'a notification was shown');
    assert.ok(tray().item(/Answer 1 waiting question/));
    const q = desk.hub!.runtime.services.questions.pending()[0]!;
    desk.hub!.runtime.services.asker.answer(q.id, { answers: [{ question: 'Deploy the tray build?', selected: ['yes'] }] });
    const answered = await call;
    assert.match(JSON.stringify(answered.result), /yes/);
    await waitFor(() => iconState() === 'serving', 'the question to go');
  });

  test('pincer serve refuses to take over from the tray app; --takeover does, and the tray app quits', async () => {
    const plain = await serveOnce(h.home, []);
    assert.equal(plain.status, 3, plain.stderr);
    assert.match(plain.stderr, new RegExp(`the Pincer tray app runs the hub of this data folder at ${desk.hub!.url.replace(/\./g, '\\.')} \\(pid ${process.pid}\\).*--takeover`));
    const bridgeStyle = await serveOnce(h.home, ['--if-none']);
    assert.equal(bridgeStyle.status, 3, 'a headless hub never takes over from the tray app');
    assert.equal(fake.exited, undefined);

    const forced = spawn(process.execPath, [PINCER_BIN, 'serve', '--quiet', '--takeover'], { env: pincerEnv(h.home), stdio: ['ignore', 'ignore', 'pipe'] });
    let forcedErr = '';
    forced.stderr!.on('data', (d: Buffer) => (forcedErr += d.toString()));
    try {
      await waitFor(() => fake.exited === 0, 'the tray app to quit after handing over');
      assert.match(String(fake.notifications.at(-1)!.options.title), /handed over/);
      const info = await waitFor(() => {
        if (forced.exitCode !== null) throw new Error(`pincer serve --takeover exited ${forced.exitCode}: ${forcedErr}`);
        const j = readHubJson(h.home);
        return j && j.pid === forced.pid ? j : undefined;
      }, 'the forced hub to run');
      assert.equal(info.port, desk.hub!.port);
    } finally {
      // The client's bridge goes before the hub it now talks to: it would start another for this folder.
      await closeStdioClient(bridge);
      forced.kill('SIGTERM');
      await waitFor(() => forced.exitCode !== null || forced.signalCode !== null, 'the forced hub to stop');
    }
  });
});
