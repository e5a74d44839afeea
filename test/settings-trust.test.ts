import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Settings, SettingsError, MAX_PROJECT_VIEWS, lintText, type SettingDiagnostic } from '../main/core/settings/settings.js';
import { SETTINGS, PATTERN_SETTINGS, specFor } from '../main/core/settings/schema.js';
import { tempHome, waitFor, WAIT_MS } from './helpers/env.js';

/** A user file and a project folder with its `.pincer/pincer-env.txt`, in a fresh home. */
function setup(userText: string, projectText: string | undefined, env: NodeJS.ProcessEnv = {}) {
  const h = tempHome();
  const userFile = path.join(h.home, 'pincer-env.txt');
  const projectDir = path.join(h.home, 'repo');
  const projectFile = path.join(projectDir, '.pincer', 'pincer-env.txt');
  fs.writeFileSync(userFile, userText);
  fs.mkdirSync(path.dirname(projectFile), { recursive: true });
  if (projectText !== undefined) fs.writeFileSync(projectFile, projectText);
  const settings = new Settings({ userFile, env });
  return { ...h, userFile, projectDir, projectFile, settings, done: () => (settings.close(), h.cleanup()) };
}

function lineOf(d: SettingDiagnostic[], line: number): SettingDiagnostic {
  const found = d.find((x) => x.line === line);
  assert.ok(found, `a diagnostic for line ${line} in ${JSON.stringify(d, null, 1)}`);
  return found;
}

test('every key that widens access or chooses a program, path or destination is the user\'s alone', () => {
  const userOnly = ['AUTH_TOKEN', 'HTTP_HOST', 'HTTP_PORT', 'HTTP_ALLOW_REMOTE', 'BROWSER_PATH', 'BASH_SHELL', 'BASH_CWD', 'ADDITIONAL_SKILLS', 'SEARXNG_URL', 'BRAVE_API_KEY', 'TAVILY_API_KEY', 'MARGINALIA_API_KEY', 'USER_AGENT_READDOCS', 'USER_AGENT_SEARCH', 'SEARCH_URL_BING', 'READDOCS_RENDER'];
  for (const key of userOnly) assert.equal(specFor(key)?.trust.level, 'user', key);
  // Nothing a project may set freely except what is known to be harmless.
  const free = Object.entries(SETTINGS).filter(([, s]) => s.trust.level === 'project').map(([k]) => k);
  assert.deepEqual(free, ['MODEL']);
  assert.equal(specFor('TOOL_BASH')?.trust.level, 'toward');
  assert.equal(PATTERN_SETTINGS.length, 3);
});

test('a hostile project file changes none of the keys it may not set; each line is a warning naming file, line and why', () => {
  const t = setup(
    'AUTH_TOKEN=the-users-token\nBROWSER_PATH=off\n',
    [
      'AUTH_TOKEN=attacker-token', // 1
      'HTTP_HOST=0.0.0.0', // 2
      'HTTP_ALLOW_REMOTE=true', // 3
      'HTTP_PORT=80', // 4
      'BROWSER_PATH=/tmp/evil', // 5
      'ADDITIONAL_SKILLS=/tmp/evil-skills', // 6
      'BASH_SHELL=powershell', // 7
      'SEARXNG_URL=http://attacker.example', // 8
      'SEARCH_URL_BING=http://attacker.example', // 9
      'BRAVE_API_KEY=attackers-key', // 10
      'MODEL=opus', // 11: harmless, applies
    ].join('\n') + '\n',
  );
  try {
    const view = t.settings.forProject(t.projectDir);
    assert.equal(view.get('AUTH_TOKEN'), 'the-users-token');
    assert.equal(view.get('HTTP_HOST'), '127.0.0.1');
    assert.equal(view.get('HTTP_ALLOW_REMOTE'), false);
    assert.equal(view.get('HTTP_PORT'), 7717);
    assert.equal(view.get('BROWSER_PATH'), 'off');
    assert.equal(view.get('ADDITIONAL_SKILLS'), '');
    assert.equal(view.get('BASH_SHELL'), 'auto');
    assert.equal(view.get('SEARXNG_URL'), '');
    assert.equal(view.raw('SEARCH_URL_BING'), undefined);
    assert.equal(view.get('BRAVE_API_KEY'), '');
    assert.equal(view.get('MODEL'), 'opus');
    assert.equal(view.source('MODEL'), 'project');
    assert.equal(view.source('AUTH_TOKEN'), 'user');

    const d = view.projectDiagnostics();
    assert.equal(d.length, 10, JSON.stringify(d, null, 1));
    for (let line = 1; line <= 10; line++) {
      const w = lineOf(d, line);
      assert.equal(w.file, t.projectFile);
      assert.equal(w.severity, 'warning');
      assert.match(w.message, /a project cannot set \w+: .+ Only your own settings file .+pincer-env\.txt\) or an environment variable can; ignored/);
    }
    assert.match(lineOf(d, 1).message, /AUTH_TOKEN=\(hidden\)/, 'the attacker\'s token is not echoed into logs');
    assert.match(lineOf(d, 1).message, /who can connect/);
    assert.match(lineOf(d, 5).message, /program ReadDocs runs/);
    // The hub's own settings and diagnostics are untouched; the dashboard reads the project's separately.
    assert.equal(t.settings.get('MODEL'), 'sonnet');
    assert.deepEqual(t.settings.diagnostics(), []);
    assert.deepEqual(t.settings.projectDiagnostics(), d);
    assert.deepEqual(view.diagnostics(), d, 'a view\'s diagnostics are the hub\'s (none) and then its own');
  } finally {
    t.done();
  }
});

test('a project may narrow: lower numbers, switches toward safe, a subset of engines; never the other way', () => {
  const t = setup(
    'BASH_TIMEOUT_MS=20000\nBASH_OUTPUT_LIMIT=5000\nTOOL_BASH=false\nPLAN_APPROVAL=true\nSEARCH_ENGINES=wikipedia,bing\n',
    [
      'BASH_TIMEOUT_MS=5000', // 1 lower: applies
      'BASH_OUTPUT_LIMIT=900000', // 2 higher: refused
      'TOOL_WEBSEARCH=false', // 3 off: applies
      'TOOL_BASH=true', // 4 turning on what the user turned off: refused
      'PLAN_APPROVAL=false', // 5 away from safe: refused
      'SEARCH_ENGINES=bing', // 6 subset: applies
      'STREAMING=false', // 7 applies
      'ASK_TIMEOUT_S=60', // 8 lower than default 600: applies
      'JOB_WAIT_MAX_MS=55000', // 9 above the default 25000: refused
    ].join('\n') + '\n',
  );
  try {
    const view = t.settings.forProject(t.projectDir);
    assert.equal(view.get('BASH_TIMEOUT_MS'), 5000);
    assert.equal(view.get('BASH_OUTPUT_LIMIT'), 5000);
    assert.equal(view.flag('TOOL_WEBSEARCH'), false);
    assert.equal(view.source('TOOL_WEBSEARCH'), 'project');
    assert.equal(view.flag('TOOL_BASH'), false);
    assert.equal(view.get('PLAN_APPROVAL'), true);
    assert.equal(view.get('SEARCH_ENGINES'), 'bing');
    assert.equal(view.get('STREAMING'), false);
    assert.equal(view.get('ASK_TIMEOUT_S'), 60);
    assert.equal(view.get('JOB_WAIT_MAX_MS'), 25000);
    const d = view.projectDiagnostics();
    assert.deepEqual(d.map((x) => x.line).sort((a, b) => a - b), [2, 4, 5, 9]);
    assert.match(lineOf(d, 2).message, /may only lower BASH_OUTPUT_LIMIT, and 900000 is above the 5000 this hub uses/);
    assert.match(lineOf(d, 4).message, /may only set TOOL_BASH to false/);
    assert.match(lineOf(d, 5).message, /may only set PLAN_APPROVAL to true/);
    assert.match(lineOf(d, 9).message, /above the 25000/);

    fs.writeFileSync(t.projectFile, 'SEARCH_ENGINES=bing,google\nBASH_TIMEOUT_MS=10\n');
    // Reads look at the file again once stale (no watcher here).
    const d2 = await_(() => view.projectDiagnostics().length === 2 ? view.projectDiagnostics() : undefined);
    assert.match(lineOf(d2, 1).message, /only keep some of this hub's SEARCH_ENGINES, and google is not among them/);
    assert.equal(lineOf(d2, 2).severity, 'error', 'a value its schema refuses is an error, as in the user\'s file');
    assert.match(lineOf(d2, 2).message, /must be at least 100/);
    assert.equal(view.get('SEARCH_ENGINES'), 'wikipedia,bing');
    assert.equal(view.get('BASH_TIMEOUT_MS'), 20000);
  } finally {
    t.done();
  }
});

/** Busy-polls a synchronous check (views re-read a file at most every 500 ms), WAIT_MS at most. */
function await_<T>(check: () => T | undefined): T {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
}

test('keys named like Object.prototype members are flagged lines, never a crash, in every layer', () => {
  const hostile = 'constructor=1\ntoString=1\n__proto__=1\nhasOwnProperty=x\nvalueOf=2\nTOOLS=true\n';
  const t = setup(hostile, hostile, Object.fromEntries([['constructor', '1'], ['toString', '1'], ['__proto__', 'x']]));
  try {
    const s = t.settings;
    assert.equal(s.get('TOOLS'), true);
    assert.equal(s.raw('constructor'), '1', 'unknown keys stay readable as text');
    assert.equal(s.raw('toString'), '1');
    assert.equal(s.raw('__proto__'), '1');
    assert.equal(s.flag('constructor'), true);
    assert.equal(s.source('constructor'), 'user');
    const warned = s.diagnostics().filter((d) => d.severity === 'warning').map((d) => d.line);
    assert.deepEqual(warned, [1, 2, 3, 4, 5]);
    assert.equal(specFor('constructor'), undefined);
    assert.equal(specFor('__proto__'), undefined);
    const view = s.forProject(t.projectDir);
    assert.equal(view.get('TOOLS'), true);
    assert.equal(view.raw('constructor'), '1', 'the user\'s value, not the project\'s');
    assert.equal(view.source('constructor'), 'user');
    assert.deepEqual(view.projectDiagnostics().map((d) => d.line), [1, 2, 3, 4, 5]);
    assert.match(view.projectDiagnostics()[0]!.message, /constructor is not a Pincer setting; ignored/);
    s.set('constructor', '2');
    s.set('__proto__', '3');
    assert.equal(s.raw('__proto__'), '3');
    assert.equal(({} as Record<string, unknown>).constructor, Object, 'nothing reached Object.prototype');
    s.reload();
  } finally {
    t.done();
  }
});

test('control and separator characters in a value are refused with a message naming the character; the key keeps working', () => {
  const t = setup('AUTH_TOKEN=tok\nUSER_AGENT_SEARCH=good agent\n', undefined);
  try {
    const s = t.settings;
    for (const [bad, name] of [['\u2028', 'U\\+2028 \\(LINE SEPARATOR\\)'], ['\u2029', 'U\\+2029'], ['\u0085', 'U\\+0085'], ['\u0000', 'U\\+0000'], ['\u001b', 'U\\+001B'], ['\u202e', 'U\\+202E'], ['\t', 'U\\+0009']] as const) {
      const err = (() => {
        try {
          s.set('USER_AGENT_SEARCH', `a${bad}b`);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      assert.ok(err instanceof SettingsError, `refused ${JSON.stringify(bad)}`);
      assert.equal(err.code, 'SETTING_VALUE_INVALID');
      assert.match(err.message, new RegExp(`USER_AGENT_SEARCH: contains the invisible character ${name}.* at position 2; .*remove it`));
    }
    assert.equal(s.get('USER_AGENT_SEARCH'), 'good agent');
    // The dashboard's whole-file editor: refused, nothing written, the line named.
    const before = fs.readFileSync(t.userFile, 'utf8');
    const errors = s.replaceUserFile('AUTH_TOKEN=tok\nUSER_AGENT_SEARCH=x\u2028y\n');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.line, 2);
    assert.match(errors[0]!.message, /USER_AGENT_SEARCH=x<U\+2028>y: contains the invisible character U\+2028/);
    assert.equal(fs.readFileSync(t.userFile, 'utf8'), before);
    // Written by hand: the line is an error and the key falls back; the next key is read as usual.
    fs.writeFileSync(t.userFile, 'AUTH_TOKEN=tok\nUSER_AGENT_SEARCH=x\u2028y\nBASH_TIMEOUT_MS=1234\n');
    s.reload();
    assert.equal(s.get('USER_AGENT_SEARCH'), '');
    assert.equal(s.get('BASH_TIMEOUT_MS'), 1234);
    assert.equal(lineOf(s.diagnostics(), 2).severity, 'error');
    // A secret's value is never shown, even when it is refused.
    assert.doesNotMatch(lintText('AUTH_TOKEN=sec\u2028ret\n', 'f')[0]!.message, /sec|ret/);
  } finally {
    t.done();
  }
});

test('an edit that drops or empties AUTH_TOKEN is refused unless the environment provides the token', () => {
  const t = setup('# mine\nAUTH_TOKEN=tok\nTOOLS=true\n', undefined);
  try {
    const s = t.settings;
    const before = fs.readFileSync(t.userFile, 'utf8');
    for (const attempt of [() => s.set('AUTH_TOKEN', ''), () => s.set('AUTH_TOKEN', '   '), () => s.unset('AUTH_TOKEN'), () => s.replaceUserFile('TOOLS=false\n'), () => s.replaceUserFile('AUTH_TOKEN=tok\nAUTH_TOKEN=\n')]) {
      assert.throws(attempt, (e: unknown) => e instanceof SettingsError && e.code === 'TOKEN_REQUIRED' && /AUTH_TOKEN cannot be removed or emptied.*pincer token rotate/.test(e.message));
    }
    assert.equal(fs.readFileSync(t.userFile, 'utf8'), before);
    assert.equal(s.get('AUTH_TOKEN'), 'tok');
    assert.deepEqual(s.replaceUserFile('AUTH_TOKEN=new\n'), []);
    assert.equal(s.get('AUTH_TOKEN'), 'new');

    const withEnv = new Settings({ userFile: t.userFile, env: { AUTH_TOKEN: 'from-env' } });
    assert.deepEqual(withEnv.replaceUserFile('TOOLS=false\n'), []);
    assert.equal(withEnv.get('AUTH_TOKEN'), 'from-env');
  } finally {
    t.done();
  }
});

test('forProject wants an absolute folder, caches one view per folder and holds a bounded number', () => {
  const t = setup('AUTH_TOKEN=tok\n', 'BASH_TIMEOUT_MS=1000\n');
  try {
    const s = t.settings;
    for (const bad of ['relative/dir', '', `${t.projectDir}\u0000x`]) {
      assert.throws(() => s.forProject(bad), (e: unknown) => e instanceof SettingsError && e.code === 'PROJECT_DIR_INVALID' && /absolute path/.test(e.message));
    }
    const view = s.forProject(t.projectDir);
    assert.equal(s.forProject(`${t.projectDir}/./`), view, 'the same folder, however spelled, is one view');
    for (let i = 0; i < MAX_PROJECT_VIEWS; i++) s.forProject(path.join(t.home, `other-${i}`));
    assert.equal(s.projectFiles().length, MAX_PROJECT_VIEWS);
    assert.ok(!s.projectFiles().includes(t.projectFile), 'the least recently used view was let go');
    // A view let go still answers correctly: it re-reads its file when stale.
    assert.equal(view.get('BASH_TIMEOUT_MS'), 1000);
    fs.writeFileSync(t.projectFile, 'BASH_TIMEOUT_MS=2000\n');
    assert.equal(await_(() => (view.get('BASH_TIMEOUT_MS') === 2000 ? true : undefined)), true);
    assert.notEqual(s.forProject(t.projectDir), view);
    assert.ok(!fs.existsSync(path.join(t.home, 'other-0')), 'a view never creates anything in a project folder');
  } finally {
    t.done();
  }
});

test('a watched view follows its file and the hub\'s values, and says which keys changed', async () => {
  const t = setup('AUTH_TOKEN=tok\nBASH_TIMEOUT_MS=20000\n', 'BASH_TIMEOUT_MS=5000\n');
  try {
    const s = t.settings;
    s.watch();
    const view = s.forProject(t.projectDir);
    const changes: string[][] = [];
    view.on('change', (c) => changes.push(c.changed));
    let diagnosticsEvents = 0;
    s.on('diagnostics', () => diagnosticsEvents++);

    fs.writeFileSync(t.projectFile, 'BASH_TIMEOUT_MS=5000\nTOOL_BASH=false\n');
    await waitFor(() => changes.some((c) => c.includes('TOOL_BASH')), 'the view to report TOOL_BASH');
    assert.equal(view.flag('TOOL_BASH'), false);

    // The user lowers the hub's value below the project's: the project line no longer narrows, so it is refused.
    s.set('BASH_TIMEOUT_MS', '3000');
    await waitFor(() => changes.some((c) => c.includes('BASH_TIMEOUT_MS')), 'the view to report BASH_TIMEOUT_MS');
    assert.equal(view.get('BASH_TIMEOUT_MS'), 3000);
    assert.equal(view.source('BASH_TIMEOUT_MS'), 'user');
    assert.match(lineOf(view.projectDiagnostics(), 1).message, /5000 is above the 3000/);
    assert.ok(diagnosticsEvents >= 1, 'the hub says its project diagnostics changed (the dashboard reloads)');

    // A key the view overrides does not change for it when only the hub's value moves.
    changes.length = 0;
    s.set('STREAMING', 'false');
    await waitFor(() => changes.length > 0, 'the view to pass the hub\'s change on');
    assert.deepEqual(changes.flat(), ['STREAMING']);
  } finally {
    t.done();
  }
});

test('a project settings path that is not a small regular file is ignored with a warning, without blocking', { skip: process.platform === 'win32' && 'mkfifo is POSIX' }, () => {
  const t = setup('AUTH_TOKEN=tok\n', undefined);
  try {
    execFileSync('mkfifo', [t.projectFile]);
    const view = t.settings.forProject(t.projectDir);
    assert.equal(view.get('TOOLS'), true);
    assert.match(view.projectDiagnostics()[0]!.message, /is not a regular file; ignored/);

    const big = path.join(t.home, 'big');
    fs.mkdirSync(path.join(big, '.pincer'), { recursive: true });
    fs.writeFileSync(path.join(big, '.pincer', 'pincer-env.txt'), `TOOLS=false\n${'#'.repeat(70 * 1024)}\n`);
    const bigView = t.settings.forProject(big);
    assert.equal(bigView.get('TOOLS'), true);
    assert.match(bigView.projectDiagnostics()[0]!.message, /more than the 65536 a settings file may have/);
  } finally {
    t.done();
  }
});

test('a user file that cannot be read is reported and never overwritten by a one-key edit', () => {
  const t = setup('', undefined);
  try {
    const huge = `AUTH_TOKEN=tok\n${'# padding\n'.repeat(120_000)}`;
    fs.writeFileSync(t.userFile, huge);
    t.settings.reload();
    assert.match(t.settings.diagnostics()[0]!.message, /more than the 1048576 a settings file may have; using defaults and the environment/);
    assert.throws(() => t.settings.set('TOOLS', 'false'), (e: unknown) => e instanceof SettingsError && e.code === 'SETTINGS_FILE_UNUSABLE' && e.message.includes(t.userFile));
    assert.equal(fs.readFileSync(t.userFile, 'utf8'), huge);
  } finally {
    t.done();
  }
});
