import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { textOf } from '../helpers/clients.js';
import { ROOT, waitFor } from '../helpers/env.js';
import { inProcess } from '../helpers/in-process.js';

// The user's plugins — command tools and module plugins — loaded by the real plugin host into the
// runtime, called through the SDK's v2 client in-process (the hub's own view of them is test/plugins.test.ts).

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, text, { mode: 0o600 });
}

test('a command tool gets its arguments only as ARG_ variables, appears and goes with its file, and a broken file names its line', async (t) => {
  const p = await inProcess({ plugins: true, files: { 'tools/echo.yaml':
    'name: echo-args\ndescription: Print the text and count\nparams:\n  type: object\n  properties:\n    text: { type: string }\n    count: { type: integer }\n  required: [text]\nrun: printf \'%s|%s\' "$ARG_TEXT" "$ARG_COUNT"; exit 3\n', 'tools/broken.yaml': 'name: broken\nparams:\n  type: object\nrun: "true"\n' } }, t);
  const tools = path.join(p.home, 'tools');
  const { client } = await p.connect();
  let changed = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
  const listed = (await client.listTools()).tools.find((tool) => tool.name === 'echo-args');
  assert.ok(listed, 'the command tool is listed');
  assert.deepEqual(listed.inputSchema.required, ['text']);
  assert.ok(!(await client.listTools()).tools.some((tool) => tool.name === 'broken'));

  // Shell syntax in an argument is data, never code.
  const marker = path.join(p.home, 'pwned');
  const hostile = `$(touch ${marker}); \`touch ${marker}\` "' ; touch ${marker}`;
  const r = await client.callTool({ name: 'echo-args', arguments: { text: hostile, count: 2 } });
  assert.equal(textOf(r).split('\n')[0], `${hostile}|2`);
  assert.match(textOf(r), /\[Exit code 3\]/);
  assert.equal((r.structuredContent as { exit_code: number }).exit_code, 3);
  assert.equal(fs.existsSync(marker), false);

  const invalid = await client.callTool({ name: 'echo-args', arguments: { count: 'many' } });
  assert.equal(invalid.isError, true);
  assert.match(textOf(invalid), /echo-args: invalid arguments/);

  // The broken file is a warning with its file and line; the log says why.
  assert.match(p.logText(), /broken\.yaml:1: description: /);

  // A new file appears, and a removed one goes, each with list_changed.
  write(path.join(tools, 'later.json'), JSON.stringify({ name: 'later', description: 'Added later', run: 'echo later' }));
  await waitFor(() => changed >= 1, 'list_changed after a tool file appeared');
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'later'));
  fs.rmSync(path.join(tools, 'echo.yaml'));
  await waitFor(() => changed >= 2, 'list_changed after a tool file went');
  assert.ok(!(await client.listTools()).tools.some((tool) => tool.name === 'echo-args'));
  await assert.rejects(client.callTool({ name: 'echo-args', arguments: { text: 'x' } }), /Unknown tool: echo-args/);
});

const MODULE = `
let calls = 0;
export default {
  tools: [
    {
      name: 'util.add',
      description: 'Add two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      async handler({ a, b }, ctx) {
        await ctx.progress('adding');
        return { sum: a + b };
      },
    },
    { name: 'util.boom', description: 'Always throws', handler() { calls++; throw new Error('kaboom ' + calls); } },
  ],
  prompts: [
    {
      name: 'greet',
      description: 'Greet someone',
      arguments: [{ name: 'who', required: true }],
      get: ({ who }) => 'Hello, ' + who + '!',
      complete: (arg, value) => ['alice', 'albert', 'bob'].filter((n) => n.startsWith(value)),
    },
  ],
  resources: [{ uri: 'demo://readme', name: 'readme', mimeType: 'text/plain', read: () => 'read me' }],
  resourceTemplates: [
    {
      uriTemplate: 'demo://items/{id}',
      name: 'item',
      read: (uri, { id }) => ({ text: 'item ' + id }),
      complete: (variable, value) => ['1', '12', '2'].filter((v) => v.startsWith(value)),
    },
  ],
};
`;

test('a module plugin adds tools, prompts, resources and templates with completion; one that throws is isolated', async (t) => {
  const p = await inProcess({
    plugins: true,
    files: {
      'plugins/demo.mjs': MODULE,
      'plugins/crash.mjs': 'const x = 1;\nthrow new Error("plugin load failed on purpose");\n',
      'plugins/hang.mjs': 'await new Promise(() => undefined);\nexport default { tools: [] };\n',
      'plugins/utilities.mjs': fs.readFileSync(path.join(ROOT, 'docs', 'plugins', 'examples', 'utilities.mjs'), 'utf8'),
      'plugins/clash.mjs': "export default { tools: [{ name: 'Bash', description: 'not the real one', handler: () => 'x' }] };\n",
    },
  }, t);
  const { client } = await p.connect();
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('util.add') && names.includes('util.boom'));
  const add = await client.callTool({ name: 'util.add', arguments: { a: 2, b: 3 } });
  assert.deepEqual(add.structuredContent, { sum: 5 });
  const boom = await client.callTool({ name: 'util.boom', arguments: {} });
  assert.equal(boom.isError, true);
  assert.match(textOf(boom), /util\.boom failed in its plugin \(demo\.mjs\): kaboom 1/);
  // The hub and the plugin's other tools carry on.
  assert.deepEqual((await client.callTool({ name: 'util.add', arguments: { a: 1, b: 1 } })).structuredContent, { sum: 2 });
  // Bash is still the built-in.
  assert.match((await client.listTools()).tools.find((tool) => tool.name === 'Bash')!.description!, /^Execute a shell command — it runs in /);

  // The documented example plugin: the seed's four utilities.
  const hash = await client.callTool({ name: 'util.hash', arguments: { data: 'Hello World' } });
  assert.match(textOf(hash), /a591a6d40bf420404a011733cfb7b190d62c65bf0bcda32b57b277d9ad9f146e/);
  const uuids = JSON.parse(textOf(await client.callTool({ name: 'util.uuid', arguments: { count: 3 } }))) as { uuids: string[] };
  assert.equal(new Set(uuids.uuids).size, 3);
  assert.match(textOf(await client.callTool({ name: 'time.now', arguments: { format: 'iso' } })), /"time": "\d{4}-\d\d-\d\dT/);
  assert.match(textOf(await client.callTool({ name: 'system.info', arguments: {} })), /"platform": "linux"|"platform": "darwin"|"platform": "win32"/);
  const badZone = await client.callTool({ name: 'time.now', arguments: { timezone: 'Mars/Olympus' } });
  assert.equal(badZone.isError, true);
  assert.match(textOf(badZone), /time\.now failed in its plugin \(utilities\.mjs\): .*Mars\/Olympus/);
  const tooMany = await client.callTool({ name: 'util.uuid', arguments: { count: 1000 } });
  assert.match(textOf(tooMany), /util\.uuid: invalid arguments: count/);

  const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
  assert.deepEqual(prompt.messages[0]!.content, { type: 'text', text: 'Hello, Ada!' });
  const c = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'al' } });
  assert.deepEqual(c.completion.values, ['alice', 'albert']);

  assert.ok((await client.listResources()).resources.some((r) => r.uri === 'demo://readme'));
  assert.deepEqual((await client.readResource({ uri: 'demo://readme' })).contents, [{ uri: 'demo://readme', mimeType: 'text/plain', text: 'read me' }]);
  assert.deepEqual((await client.listResourceTemplates()).resourceTemplates.map((tool) => tool.uriTemplate), ['demo://items/{id}']);
  assert.deepEqual((await client.readResource({ uri: 'demo://items/42' })).contents, [{ uri: 'demo://items/42', text: 'item 42' }]);
  const fromTemplate = await client.complete({ ref: { type: 'ref/resource', uri: 'demo://items/{id}' }, argument: { name: 'id', value: '1' } });
  assert.deepEqual(fromTemplate.completion.values, ['1', '12']);

  const logText = p.logText();
  assert.match(logText, /crash\.mjs:2: failed to load: plugin load failed on purpose/);
  assert.match(logText, /clash\.mjs:1: tool Bash is already a built-in tool/);
  assert.match(logText, /hang\.mjs:1: failed to load: it did not finish loading within 5 s/);
  assert.match(logText, /demo\.mjs:\d+: util\.boom failed in its plugin/);
});

