import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connectV2, closeStdioClient, textOf } from './helpers/clients.js';
import { pidAlive, tempHome, waitFor } from './helpers/env.js';
import { startHubProcess, type HubProcess } from './helpers/hub.js';
import { launchChromium, signIn } from './helpers/browser.js';

// Hostile or broken plugins against a real `pincer serve` (and a real bridge): none may take the hub
// down, freeze the built-in tools or go unnamed (ARCHITECTURE §5, docs/PLUGINS.md).

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, text, { mode: 0o600 });
}

/** A module plugin in the data folder exporting these tools (one JS object literal a line). */
function writeTools(home: string, name: string, tools: string[]): void {
  write(path.join(home, 'plugins', name), ['export default { tools: [', ...tools.map((t) => `  ${t},`), '] };', ''].join('\n'));
}

/** Nothing reached the hub's last resort: every plugin failure was the plugin's. */
function assertHubUntouched(home: string): void {
  assert.doesNotMatch(fs.readFileSync(path.join(home, 'logs', 'hub.log'), 'utf8'), /uncaught (exception|rejection)/, 'nothing reached the hub’s last resort');
}

interface PluginsView {
  tools: { name: string }[];
  plugins: { file: string; tools: string[]; problems: { line: number; message: string }[]; off: string[]; disabled?: string }[];
}

async function pluginsOf(hub: HubProcess): Promise<PluginsView> {
  return (await (await fetch(`${hub.url}/api/tools`, { headers: hub.headers() })).json()) as PluginsView;
}

async function problemsOf(hub: HubProcess, name: string): Promise<string> {
  const p = (await pluginsOf(hub)).plugins.find((x) => x.file.endsWith(name));
  return (p?.problems ?? []).map((x) => `line ${x.line}: ${x.message}`).join('\n');
}

async function rest(hub: HubProcess, name: string, args: Record<string, unknown> = {}): Promise<{ success: boolean; isError: boolean; content: { text?: string }[] }> {
  const r = await fetch(`${hub.url}/api/mcp/tools/call`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ name, arguments: args }) });
  return (await r.json()) as { success: boolean; isError: boolean; content: { text?: string }[] };
}

async function bashEcho(hub: HubProcess, text: string): Promise<string> {
  const r = await rest(hub, 'Bash', { command: `echo ${text}` });
  return r.content.map((c) => c.text ?? '').join('');
}

test('plugins that never load, spin, exit or reject at load: the hub starts, serves its tools and names each plugin', async () => {
  const h = tempHome();
  const plugins = path.join(h.home, 'plugins');
  write(path.join(plugins, 'never.mjs'), 'await new Promise(() => undefined);\nexport default { tools: [] };\n');
  write(path.join(plugins, 'spin.mjs'), '// a loop at load\nwhile (true) {}\n');
  write(path.join(plugins, 'exit.mjs'), 'process.exit(3);\n');
  write(path.join(plugins, 'fine.mjs'), "export default { tools: [{ name: 'fine.hello', description: 'Says hello', handler: () => 'hello from fine' }] };\n");
  const hub = await startHubProcess(h.home);
  try {
    assert.match(await bashEcho(hub, 'built-in-ok'), /built-in-ok/);
    assert.match((await rest(hub, 'fine.hello')).content[0]!.text!, /hello from fine/);
    assert.match(await problemsOf(hub, 'never.mjs'), /line 1: failed to load: it did not finish loading within 5 s/);
    assert.match(await problemsOf(hub, 'spin.mjs'), /failed to load: it did not finish loading within 5 s .*a loop/);
    assert.match(await problemsOf(hub, 'exit.mjs'), /failed to load: it exited \(code 3; a plugin must not call process\.exit\) while loading/);
    // A plugin appearing in the running hub that rejects at load: its fault, named with its line; what it exports still loads.
    write(path.join(plugins, 'stray.mjs'), "Promise.reject(new Error('stray rejection at load'));\nexport default { tools: [{ name: 'stray.ok', description: 'Still loads', handler: () => 'stray ok' }] };\n");
    await waitFor(async () => /line 1: an error escaped its code \(a promise nothing awaited\): stray rejection at load/.test(await problemsOf(hub, 'stray.mjs')), 'the stray rejection to be named');
    assert.match((await rest(hub, 'stray.ok')).content[0]!.text!, /stray ok/);
    assertHubUntouched(h.home);
    assert.match(fs.readFileSync(path.join(h.home, 'logs', 'hub.log'), 'utf8'), /spin\.mjs:1: failed to load/);
    assert.ok(pidAlive(hub.child.pid!));
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a plugin tool that throws asynchronously on every call: counted against the plugin, disabled after five, never against the hub', async () => {
  const h = tempHome();
  writeTools(h.home, 'async-throw.mjs', [
    "{ name: 'boom.later', description: 'Throws from a timer', handler() { setTimeout(() => { throw new Error('async boom'); }, 0); return 'scheduled'; } }",
    "{ name: 'boom.fine', description: 'Works', handler: () => 'fine' }",
  ]);
  const hub = await startHubProcess(h.home);
  const bridge = await connectV2({ home: h.home, args: ['stdio'] });
  try {
    // Two clients take turns: the hub's last resort would have ended it at the 21st.
    for (let i = 0; i < 25; i++) {
      const r = i % 2 === 0 ? await rest(hub, 'boom.later') : await bridge.client.callTool({ name: 'boom.later', arguments: {} }).catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
      if (i < 4) assert.match(JSON.stringify(r), /scheduled/);
    }
    const view = await waitFor(async () => {
      const v = await pluginsOf(hub);
      return v.plugins.find((p) => p.file.endsWith('async-throw.mjs'))?.disabled ? v : undefined;
    }, 'the plugin to be disabled');
    const entry = view.plugins.find((p) => p.file.endsWith('async-throw.mjs'))!;
    assert.match(entry.disabled!, /5 faults within 10 minutes \(the last: an error escaped its code \(a timer or callback\): async boom\)\. Fix the plugin and save its file/);
    assert.match(entry.problems.map((p) => `${p.line}: ${p.message}`).join('\n'), /2: an error escaped its code \(a timer or callback\): async boom/);
    assert.ok(!view.tools.some((t) => t.name.startsWith('boom.')), 'a disabled plugin’s tools are no longer served');
    // The person sees it on the dashboard's Tools page, with the reason.
    const chromium = await launchChromium();
    try {
      const page = await chromium.browser.newPage();
      await signIn(page, hub.url, hub.token);
      await page.goto(`${hub.url}/#/tools`);
      const shown = page.locator('[data-plugin$="async-throw.mjs"] .plugin-disabled');
      await shown.waitFor();
      assert.match((await shown.textContent()) ?? '', /^Disabled: 5 faults within 10 minutes \(the last: an error escaped its code/);
    } finally {
      await chromium.close();
    }
    await assert.rejects(bridge.client.callTool({ name: 'boom.fine', arguments: {} }), /Unknown tool: boom\.fine/);
    // The hub and the bridge's connection carry on.
    assert.ok(pidAlive(hub.child.pid!));
    assert.match(textOf(await bridge.client.callTool({ name: 'Bash', arguments: { command: 'echo still-serving' } })), /still-serving/);
    assertHubUntouched(h.home);
    // Saving the file loads it again.
    const file = path.join(h.home, 'plugins', 'async-throw.mjs');
    fs.writeFileSync(file, "export default { tools: [{ name: 'boom.fine', description: 'Works', handler: () => 'fine again' }] };\n");
    await waitFor(async () => (await pluginsOf(hub)).tools.some((t) => t.name === 'boom.fine'), 'the fixed plugin to load');
    assert.match((await rest(hub, 'boom.fine')).content[0]!.text!, /fine again/);
  } finally {
    await closeStdioClient(bridge);
    await hub.stop();
    h.cleanup();
  }
});

test('a plugin handler that loops forever or exits: built-in tools keep answering, the call fails naming the plugin, the plugin comes back', async () => {
  const h = tempHome();
  writeTools(h.home, 'bad-handlers.mjs', [
    "{ name: 'bad.spin', description: 'Never returns', handler() { for (;;) {} } }",
    "{ name: 'bad.exit', description: 'Exits', handler() { process.exit(3); } }",
    "{ name: 'bad.ok', description: 'Works', handler: () => 'ok from bad-handlers' }",
  ]);
  const hub = await startHubProcess(h.home);
  try {
    let spinDone = false;
    const spinning = rest(hub, 'bad.spin').finally(() => (spinDone = true));
    // While the plugin's thread spins, the hub answers built-in tools.
    for (let i = 0; i < 3; i++) assert.match(await bashEcho(hub, `while-spinning-${i}`), new RegExp(`while-spinning-${i}`));
    assert.equal(spinDone, false, 'the spinning call is still running while Bash answered');
    const spun = await spinning;
    assert.equal(spun.success, false);
    assert.match(spun.content[0]!.text!, /bad\.spin failed in its plugin \(bad-handlers\.mjs\): it stopped answering for 15 s/);
    assert.match(await problemsOf(hub, 'bad-handlers.mjs'), /it stopped answering for 15 s/);
    // The thread starts again for the next call.
    assert.match((await rest(hub, 'bad.ok')).content[0]!.text!, /ok from bad-handlers/);

    const exited = await rest(hub, 'bad.exit');
    assert.equal(exited.success, false);
    assert.match(exited.content[0]!.text!, /bad\.exit failed in its plugin \(bad-handlers\.mjs\): it exited \(code 3; a plugin must not call process\.exit\)/);
    assert.match((await rest(hub, 'bad.ok')).content[0]!.text!, /ok from bad-handlers/);
    assert.ok(pidAlive(hub.child.pid!));
    assert.match(fs.readFileSync(path.join(h.home, 'logs', 'hub.log'), 'utf8'), /bad-handlers\.mjs:1: it exited \(code 3/);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('hostile command-tool files in a running hub: an alias bomb, a huge description, clashing arguments and a bad schema are warnings with file and line', async () => {
  const h = tempHome();
  const tools = path.join(h.home, 'tools');
  write(path.join(tools, 'hello.yaml'), 'name: hello\ndescription: Say hello\nrun: echo hello\n');
  const hub = await startHubProcess(h.home);
  try {
    const bomb = ['name: bomb', 'description: &d Explodes', 'run: echo bomb', 'params:', '  type: object', '  x:', ...Array.from({ length: 101 }, (_, i) => `    - *d # ${i}`), ''].join('\n');
    write(path.join(tools, 'bomb.yaml'), bomb);
    write(path.join(tools, 'long.yaml'), `name: long\ndescription: ${'x'.repeat(9000)}\nrun: echo long\n`);
    write(path.join(tools, 'huge.yaml'), `name: huge\ndescription: ${'x'.repeat(50 * 1024 * 1024)}\nrun: echo huge\n`);
    write(path.join(tools, 'clash.yaml'), 'name: clash\ndescription: Two names, one variable\nparams:\n  type: object\n  properties:\n    a-b: { type: string }\n    a_b: { type: string }\nrun: echo "$ARG_A_B"\n');
    write(path.join(tools, 'schema.json'), JSON.stringify({ name: 'schema', description: 'Bad schema', params: { type: 'object', properties: { a: { type: 'banana' } } }, run: 'true' }, null, 2));
    await waitFor(async () => (await pluginsOf(hub)).plugins.length === 6, 'every file to be scanned');
    assert.match(await problemsOf(hub, 'bomb.yaml'), /^line 7: it uses aliases \(\*name\) more often than Pincer expands/);
    assert.match(await problemsOf(hub, 'long.yaml'), /^line 2: description: description is longer than 8192 characters/);
    assert.match(await problemsOf(hub, 'huge.yaml'), /^line 1: is larger than 256 KB/);
    assert.match(await problemsOf(hub, 'clash.yaml'), /^line 7: params\.properties: "a-b" and "a_b" both reach the command as ARG_A_B/);
    assert.match(await problemsOf(hub, 'schema.json'), /^line 4: params is not a JSON Schema Pincer can check arguments with: .*banana/);
    const names = (await pluginsOf(hub)).tools.map((t) => t.name);
    assert.ok(names.includes('hello') && !['bomb', 'long', 'huge', 'clash', 'schema'].some((n) => names.includes(n)));
    // Several rescans later the hub still serves (the alias guard used to end it through an unhandled rejection).
    const hubLog = () => fs.readFileSync(path.join(h.home, 'logs', 'hub.log'), 'utf8');
    fs.appendFileSync(path.join(tools, 'bomb.yaml'), '# touched\n');
    await waitFor(() => hubLog().split('bomb.yaml:7: it uses aliases').length > 2, 'the touched bomb to be read again');
    assert.match(await bashEcho(hub, 'after-bomb'), /after-bomb/);
    assert.ok(pidAlive(hub.child.pid!));
    assertHubUntouched(h.home);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('seed shapes: enabled: false keeps a tool out of lists and calls; { success: false, error } is an error on MCP and REST', async () => {
  const h = tempHome();
  writeTools(h.home, 'seed.mjs', [
    "{ name: 'seed.off', description: 'Turned off', inputSchema: { type: 'object', properties: {} }, handler: () => ({ success: true, data: {} }), enabled: false }",
    "{ name: 'seed.fail', description: 'Fails the seed way', inputSchema: { type: 'object', properties: {} }, handler: () => ({ success: false, error: { code: 'SHOW_DESKTOP_FAILED', message: 'no desktop here' } }), enabled: true }",
    "{ name: 'seed.ok', description: 'Succeeds the seed way', inputSchema: { type: 'object', properties: {} }, handler: () => ({ success: true, data: { message: 'done' } }) }",
  ]);
  write(path.join(h.home, 'tools', 'off.yaml'), 'name: cmd-off\ndescription: Turned off\nrun: echo off\nenabled: false\n');
  const hub = await startHubProcess(h.home);
  const bridge = await connectV2({ home: h.home, args: ['stdio'] });
  try {
    const listed = (await bridge.client.listTools()).tools.map((t) => t.name);
    assert.ok(listed.includes('seed.ok') && listed.includes('seed.fail'));
    assert.ok(!listed.includes('seed.off') && !listed.includes('cmd-off'));
    await assert.rejects(bridge.client.callTool({ name: 'seed.off', arguments: {} }), /Unknown tool: seed\.off/);
    assert.equal((await rest(hub, 'cmd-off')).success, false);
    const view = await pluginsOf(hub);
    assert.deepEqual(view.plugins.find((p) => p.file.endsWith('seed.mjs'))?.off, ['seed.off']);
    assert.deepEqual(view.plugins.find((p) => p.file.endsWith('off.yaml'))?.off, ['cmd-off']);

    const failed = await bridge.client.callTool({ name: 'seed.fail', arguments: {} });
    assert.equal(failed.isError, true);
    assert.match(textOf(failed), /no desktop here/);
    const restFailed = await rest(hub, 'seed.fail');
    assert.deepEqual([restFailed.success, restFailed.isError], [false, true]);
    const ok = await bridge.client.callTool({ name: 'seed.ok', arguments: {} });
    assert.notEqual(ok.isError, true);
    assert.equal((await rest(hub, 'seed.ok')).success, true);
  } finally {
    await closeStdioClient(bridge);
    await hub.stop();
    h.cleanup();
  }
});

test("a skill whose front matter is an alias bomb — in the data folder or a cloned project's .claude/skills — is a warning with its line; the hub and a standalone in that project start and serve", async () => {
  const h = tempHome();
  const bomb = ['---', 'name: bomb', 'description: &d Explodes', 'x:', ...Array.from({ length: 101 }, () => '  - *d'), '---', 'Body', ''].join('\n');
  write(path.join(h.home, 'skills', 'bomb', 'SKILL.md'), bomb);
  const project = fs.mkdtempSync(path.join(h.home, 'project-'));
  write(path.join(project, '.claude', 'skills', 'bomb', 'SKILL.md'), bomb);
  const hub = await startHubProcess(h.home);
  let standalone: Awaited<ReturnType<typeof connectV2>> | undefined;
  try {
    const skills = (await (await fetch(`${hub.url}/api/skills`, { headers: hub.headers() })).json()) as { problems: { file: string; line: number; message: string }[] };
    const problem = skills.problems.find((p) => p.file.endsWith(path.join('bomb', 'SKILL.md')));
    assert.equal(problem?.line, 5, JSON.stringify(skills.problems));
    assert.match(problem!.message, /^front matter: it uses aliases \(\*name\) more often than Pincer expands/);
    assert.match(await bashEcho(hub, 'skills-ok'), /skills-ok/);
    // A repository's skills are read by a standalone started in it: it starts and serves.
    standalone = await connectV2({ home: h.home, cwd: project });
    assert.match(textOf(await standalone.client.callTool({ name: 'Bash', arguments: { command: 'echo standalone-ok' } })), /standalone-ok/);
  } finally {
    await closeStdioClient(standalone);
    await hub.stop();
    h.cleanup();
  }
});
