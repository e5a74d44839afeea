import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempHome } from './helpers/env.js';
import { startHubProcess } from './helpers/hub.js';

// What plugins add and how they fail is tested in-process (test/fast/plugins.test.ts); what stays here
// needs the hub: the dashboard's view of plugins, and files the hub refuses to load.

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, text, { mode: 0o600 });
}

test('the hub loads plugins from its own data folder only; the dashboard lists them with their problems and turns them off like built-ins', async () => {
  const h = tempHome();
  const project = fs.mkdtempSync(path.join(h.home, 'project-'));
  // A project folder's plugin folders are never read.
  write(path.join(project, '.pincer', 'tools', 'evil.yaml'), 'name: evil\ndescription: from a project\nrun: "true"\n');
  write(path.join(project, 'tools', 'evil2.yaml'), 'name: evil2\ndescription: from a project\nrun: "true"\n');
  write(path.join(h.home, 'tools', 'hello.yaml'), 'name: hello\ndescription: Say hello\nrun: echo hello\n');
  write(path.join(h.home, 'tools', 'bad.json'), '{\n  "name": "bad",\n  "description": 5,\n  "run": "true"\n}\n');
  const hub = await startHubProcess(h.home);
  try {
    const tools = (await (await fetch(`${hub.url}/api/tools`, { headers: hub.headers() })).json()) as { tools: { name: string; key: string; enabled: boolean; group: string }[]; plugins: { file: string; tools: string[]; problems: { line: number; message: string }[] }[] };
    const hello = tools.tools.find((t) => t.name === 'hello');
    assert.deepEqual({ key: hello?.key, enabled: hello?.enabled, group: hello?.group }, { key: 'TOOL_HELLO', enabled: true, group: 'plugins' });
    assert.ok(!tools.tools.some((t) => t.name.startsWith('evil')));
    const bad = tools.plugins.find((p) => p.file.endsWith('bad.json'));
    assert.deepEqual(bad?.problems.map((p) => p.line), [3]);
    assert.match(bad!.problems[0]!.message, /description/);
    assert.deepEqual(tools.plugins.find((p) => p.file.endsWith('hello.yaml'))?.tools, ['hello']);

    const off = await fetch(`${hub.url}/api/tools/hello`, { method: 'POST', headers: hub.headers(), body: JSON.stringify({ enabled: false }) });
    assert.equal(off.status, 200);
    assert.match(fs.readFileSync(path.join(h.home, 'pincer-env.txt'), 'utf8'), /^TOOL_HELLO=false$/m);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('a plugin or command-tool file that is a symbolic link is refused with a warning naming it; the other tools still load', async () => {
  const h = tempHome();
  // The link's target lives outside the data folder, where the folder checks never look.
  const elsewhere = fs.mkdtempSync(path.join(h.home, '..', 'pincer-elsewhere-'));
  try {
    write(path.join(elsewhere, 'linked.yaml'), 'name: linked\ndescription: From a linked file\nrun: echo linked\n');
    write(path.join(elsewhere, 'linked.mjs'), "export default { tools: [{ name: 'linked.mod', description: 'From a linked module', inputSchema: { type: 'object' }, handler: () => 'linked' }] };\n");
    write(path.join(h.home, 'tools', 'hello.yaml'), 'name: hello\ndescription: Say hello\nrun: echo hello\n');
    fs.symlinkSync(path.join(elsewhere, 'linked.yaml'), path.join(h.home, 'tools', 'linked.yaml'));
    fs.mkdirSync(path.join(h.home, 'plugins'), { recursive: true, mode: 0o700 });
    fs.symlinkSync(path.join(elsewhere, 'linked.mjs'), path.join(h.home, 'plugins', 'linked.mjs'));
    const hub = await startHubProcess(h.home);
    try {
      const tools = (await (await fetch(`${hub.url}/api/tools`, { headers: hub.headers() })).json()) as { tools: { name: string }[]; plugins: { file: string; tools: string[]; problems: { line: number; message: string }[] }[] };
      assert.ok(tools.tools.some((t) => t.name === 'hello'), 'the regular command tool loads');
      assert.ok(!tools.tools.some((t) => t.name.startsWith('linked')), 'no linked tool loads');
      for (const name of ['linked.yaml', 'linked.mjs']) {
        const entry = tools.plugins.find((p) => p.file.endsWith(name));
        assert.deepEqual(entry?.tools, [], `${name} adds nothing`);
        assert.match(entry!.problems[0]!.message, new RegExp(`${name.replace('.', '\\.')} is a symbolic link.*Copy the file into .* instead of linking it`));
      }
    } finally {
      await hub.stop();
    }
  } finally {
    fs.rmSync(elsewhere, { recursive: true, force: true });
    h.cleanup();
  }
});
