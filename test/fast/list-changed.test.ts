import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { textOf } from '../helpers/clients.js';
import { TOOL_COUNT } from '../helpers/catalogue.js';
import { waitFor } from '../helpers/env.js';
import { inProcess } from '../helpers/in-process.js';

// The settings file watched as a hub watches it: a change of TOOLS or TOOL_<NAME> reaches every
// connected client as tools/list_changed, and the list and calls follow it.

test('TOOL_BASH=false in the settings file removes Bash and sends tools/list_changed (v2 client)', async (t) => {
  const p = await inProcess({ watch: true, settings: { STREAMING: 'true' } }, t);
  const file = path.join(p.home, 'pincer-env.txt');
  fs.writeFileSync(file, '# my settings\nSTREAMING=true\n');
  const { client } = await p.connect();
  let changed = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changed++;
  });
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'Bash'));
  fs.appendFileSync(file, 'TOOL_BASH=false\n');
  await waitFor(() => changed > 0, 'notifications/tools/list_changed');
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(!names.includes('Bash'));
  assert.equal(names.length, TOOL_COUNT - 1);
  const off = await client.callTool({ name: 'Bash', arguments: { command: 'true' } });
  assert.equal(off.isError, true);
  assert.match(textOf(off), /Bash is turned off in Pincer \(TOOL_BASH=false\)/);

  fs.writeFileSync(file, '# my settings\nSTREAMING=true\nTOOL_BASH=true\nTOOLS=false\n');
  await waitFor(() => changed > 1, 'a second list_changed');
  assert.deepEqual((await client.listTools()).tools, []);
  const paused = await client.callTool({ name: 'ListBgTasks', arguments: {} });
  assert.match(textOf(paused), /serving is paused \(TOOLS=false\)/);
});

test('the v1 client also receives tools/list_changed', async (t) => {
  const p = await inProcess({ watch: true }, t);
  const file = path.join(p.home, 'pincer-env.txt');
  const { client } = await p.connectV1();
  const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed++;
  });
  fs.writeFileSync(file, 'TOOL_KILLBGTASK=false\n');
  await waitFor(() => changed > 0, 'notifications/tools/list_changed');
  assert.ok(!(await client.listTools()).tools.some((tool) => tool.name === 'KillBgTask'));
});
