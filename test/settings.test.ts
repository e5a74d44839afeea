import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EnvDocument } from '../main/core/settings/envfile.js';
import { Settings, lintText } from '../main/core/settings/settings.js';
import { tempHome, waitFor } from './helpers/env.js';

const SAMPLE = `# Pincer settings
TOOLS=true                  # Enable MCP tool serving

STREAMING=false
# per tool
TOOL_BASH=true
AUTH_TOKEN=abc#def
MYSTERY_KEY=42
`;

test('a settings file round-trips byte for byte', () => {
  assert.equal(new EnvDocument(SAMPLE).toString(), SAMPLE);
  const crlf = SAMPLE.replace(/\n/g, '\r\n');
  assert.equal(new EnvDocument(crlf).toString(), crlf);
  assert.equal(new EnvDocument('A=1').toString(), 'A=1');
});

test('values are trimmed, inline comments need a space, # inside a value stays', () => {
  const doc = new EnvDocument(SAMPLE);
  assert.equal(doc.get('TOOLS'), 'true');
  assert.equal(doc.get('AUTH_TOKEN'), 'abc#def');
  assert.equal(doc.get('MYSTERY_KEY'), '42');
});

test('set rewrites one line in place, keeping its comment and every other line', () => {
  const doc = new EnvDocument(SAMPLE);
  doc.set('TOOLS', 'false');
  doc.set('NEW_KEY', 'x');
  const out = doc.toString();
  assert.equal(out, SAMPLE.replace('TOOLS=true                  #', 'TOOLS=false                  #') + 'NEW_KEY=x\n');
  assert.throws(() => doc.set('BAD KEY', '1'), /not a valid setting name/);
  assert.throws(() => doc.set('TOOLS', 'a\nb'), /single line/);
});

test('layers: defaults, user file, environment; a project view narrows on top', () => {
  const { home, cleanup } = tempHome();
  try {
    const user = path.join(home, 'pincer-env.txt');
    const projectDir = path.join(home, 'proj');
    const project = path.join(projectDir, '.pincer', 'pincer-env.txt');
    fs.mkdirSync(path.dirname(project), { recursive: true });
    fs.writeFileSync(user, 'BASH_TIMEOUT_MS=1000\nBASH_OUTPUT_LIMIT=5000\nSTREAMING=false\n');
    fs.writeFileSync(project, 'BASH_OUTPUT_LIMIT=4000\n');
    const s = new Settings({ userFile: user, env: { STREAMING: 'true', UNRELATED: 'x' } });
    assert.equal(s.get('BASH_TIMEOUT_MS'), 1000);
    assert.equal(s.get('BASH_OUTPUT_LIMIT'), 5000, 'the hub itself never reads a project file');
    assert.equal(s.get('STREAMING'), true);
    assert.equal(s.source('STREAMING'), 'env');
    assert.equal(s.get('HTTP_HOST'), '127.0.0.1');
    assert.equal(s.source('HTTP_HOST'), 'default');
    const view = s.forProject(projectDir);
    assert.equal(view.get('BASH_OUTPUT_LIMIT'), 4000);
    assert.equal(view.source('BASH_OUTPUT_LIMIT'), 'project');
    assert.equal(view.get('BASH_TIMEOUT_MS'), 1000);
    assert.equal(view.source('BASH_TIMEOUT_MS'), 'user');
  } finally {
    cleanup();
  }
});

test('a bad value is reported with file and line and falls back to the default; unknown keys are kept and flagged', () => {
  const { home, cleanup } = tempHome();
  try {
    const user = path.join(home, 'pincer-env.txt');
    fs.writeFileSync(user, '# c\nBASH_TIMEOUT_MS=soon\nTOOLS=maybe\nTOLLS=false\nnot a line\n');
    const s = new Settings({ userFile: user, env: {} });
    assert.equal(s.get('BASH_TIMEOUT_MS'), 30000);
    assert.equal(s.get('TOOLS'), true);
    const d = s.diagnostics();
    const timeout = d.find((x) => x.key === 'BASH_TIMEOUT_MS')!;
    assert.equal(timeout.line, 2);
    assert.equal(timeout.file, user);
    assert.match(timeout.message, /whole number/);
    assert.equal(d.find((x) => x.key === 'TOOLS')!.line, 3);
    const unknown = d.find((x) => x.key === 'TOLLS')!;
    assert.equal(unknown.severity, 'warning');
    assert.match(unknown.message, /not a Pincer setting/);
    assert.ok(d.some((x) => x.line === 5 && x.severity === 'error'));
    assert.equal(s.raw('TOLLS'), 'false', 'unknown keys stay readable');
  } finally {
    cleanup();
  }
});

test('TOOL_<NAME> flags and set() keeping the file private and its comments', () => {
  const { home, cleanup } = tempHome();
  try {
    const user = path.join(home, 'pincer-env.txt');
    fs.writeFileSync(user, '# my comment\nTOOL_BASH=false\n');
    const s = new Settings({ userFile: user, env: {} });
    assert.equal(s.flag('TOOL_BASH'), false);
    assert.equal(s.flag('TOOL_WEBSEARCH'), true);
    s.set('TOOL_BASH', 'true');
    assert.equal(s.flag('TOOL_BASH'), true);
    assert.equal(fs.readFileSync(user, 'utf8'), '# my comment\nTOOL_BASH=true\n');
    if (process.platform !== 'win32') assert.equal(fs.statSync(user).mode & 0o777, 0o600);
    assert.throws(() => s.set('BASH_TIMEOUT_MS', 'x'), /BASH_TIMEOUT_MS: expected a whole number/);
    assert.deepEqual(lintText('TOOLS=yes\n', 'f').length, 0);
  } finally {
    cleanup();
  }
});

test('the watcher reports changed keys when the file is edited', async () => {
  const { home, cleanup } = tempHome();
  const user = path.join(home, 'pincer-env.txt');
  fs.writeFileSync(user, 'TOOLS=true\n');
  const s = new Settings({ userFile: user, env: {} });
  try {
    const changes: string[][] = [];
    s.on('change', (c) => changes.push(c.changed));
    s.watch();
    fs.writeFileSync(user, 'TOOLS=false\n');
    await waitFor(() => changes.length > 0, 'a change event');
    assert.deepEqual(changes[0], ['TOOLS']);
    assert.equal(s.get('TOOLS'), false);
  } finally {
    s.close();
    cleanup();
  }
});
