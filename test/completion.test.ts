import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connectV2 } from './helpers/clients.js';
import { tempHome } from './helpers/env.js';
import { parseSkillFile } from '../main/tools/workflow/skills.js';
import { RawStdio } from './helpers/raw-stdio.js';

function writeSkill(home: string, name: string, frontMatter: string): void {
  const dir = path.join(home, 'skills', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: Deploy the app\n${frontMatter}---\nDeploy to $ARGUMENTS\n`);
}

for (const modern of [false, true]) {
  test(`completion/complete offers a skill's declared values (${modern ? '2026-07-28' : '2025-11-25'})`, async () => {
    const h = tempHome();
    writeSkill(h.home, 'deploy', 'completions: [staging, production, Preview, prod-eu]\n');
    writeSkill(h.home, 'plain', '');
    const { client } = await connectV2({ home: h.home, modern });
    try {
      assert.deepEqual(client.getServerCapabilities()?.completions, {});
      const prod = await client.complete({ ref: { type: 'ref/prompt', name: 'deploy' }, argument: { name: 'arguments', value: 'pro' } });
      assert.deepEqual(prod.completion, { values: ['production', 'prod-eu'], total: 2, hasMore: false });
      // Case-insensitive; an empty value offers everything in declared order.
      assert.deepEqual((await client.complete({ ref: { type: 'ref/prompt', name: 'deploy' }, argument: { name: 'arguments', value: 'p' } })).completion.values, ['production', 'Preview', 'prod-eu']);
      assert.equal((await client.complete({ ref: { type: 'ref/prompt', name: 'deploy' }, argument: { name: 'arguments', value: '' } })).completion.values.length, 4);
      // A skill without completions answers an empty list, not an error.
      assert.deepEqual((await client.complete({ ref: { type: 'ref/prompt', name: 'plain' }, argument: { name: 'arguments', value: 'x' } })).completion.values, []);
      await assert.rejects(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'arguments', value: '' } }), /Prompt not found: nope/);
      await assert.rejects(client.complete({ ref: { type: 'ref/prompt', name: 'deploy' }, argument: { name: 'target', value: '' } }), /has no argument target/);
      await assert.rejects(client.complete({ ref: { type: 'ref/resource', uri: 'pincer://nothing/{id}' }, argument: { name: 'id', value: '' } }), /Resource template not found/);
    } finally {
      await client.close();
      h.cleanup();
    }
  });
}

test('a skill whose completions are not a list is reported with its file and line, and still not served', async () => {
  const h = tempHome();
  writeSkill(h.home, 'bad', 'completions: staging\n');
  const { client } = await connectV2({ home: h.home });
  try {
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    assert.ok(!prompts.includes('bad'));
    const parsed = parseSkillFile(fs.readFileSync(path.join(h.home, 'skills', 'bad', 'SKILL.md'), 'utf8'), 'SKILL.md', 'bad');
    assert.deepEqual(parsed.problem, { file: 'SKILL.md', line: 2, message: 'completions must be a list of values, e.g. completions: [staging, production].' });
  } finally {
    await client.close();
    h.cleanup();
  }
});

test('completion/complete with an unknown ref type, no ref or a malformed argument: -32602 with one sentence, on a 2025 session and on 2026-07-28', async () => {
  const h = tempHome();
  writeSkill(h.home, 'deploy', 'completions: [staging, production]\n');
  const raw = new RawStdio(h.home);
  try {
    await raw.initialize('2025-11-25');
    const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ref: { type: 'ref/bogus', name: 'deploy' }, argument: { name: 'arguments', value: '' } }, /^Invalid params for completion\/complete: ref\.type must be ref\/prompt \(with the prompt's name\) or ref\/resource \(with a resource template's uri\)\.$/],
      [{ argument: { name: 'arguments', value: '' } }, /^Invalid params for completion\/complete: ref is missing: give ref\/prompt/],
      [{ ref: { type: 'ref/prompt' }, argument: { name: 'arguments', value: '' } }, /^Invalid params for completion\/complete: ref\.name must be the prompt's name \(a string\)\.$/],
      [{ ref: { type: 'ref/prompt', name: 'deploy' }, argument: { name: 'arguments' } }, /^Invalid params for completion\/complete: argument\.value must be what is typed so far/],
      [{ ref: { type: 'ref/prompt', name: 'deploy' } }, /^Invalid params for completion\/complete: argument is missing/],
    ];
    let id = 0;
    for (const modern of [false, true]) {
      for (const [params, message] of cases) {
        raw.send({ jsonrpc: '2.0', id: ++id, method: 'completion/complete', params: modern ? { ...params, _meta: modernMeta } : params });
        const r = (await raw.response(id)) as { error?: { code: number; message: string } };
        assert.equal(r.error?.code, -32602, `${modern ? '2026-07-28' : '2025'} ${JSON.stringify(params)}: ${JSON.stringify(r)}`);
        assert.match(r.error!.message, message);
      }
    }
    // A well-formed request is answered as before.
    raw.send({ jsonrpc: '2.0', id: ++id, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'deploy' }, argument: { name: 'arguments', value: 'st' } } });
    assert.deepEqual(((await raw.response(id)) as { result: { completion: { values: string[] } } }).result.completion.values, ['staging']);
  } finally {
    raw.close();
    h.cleanup();
  }
});
