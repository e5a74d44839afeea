import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { findShell, probeShell, probeShellAsync, shellPhrase, withDelayedExpansion, type ShellProbe, type ShellSpec } from '../main/tools/shell/shells.js';
import { notHere } from './helpers/prerequisites.js';
import { hardenCommandEnv } from '../main/tools/shell/process.js';
import { connectV2, textOf } from './helpers/clients.js';
import { tempHome } from './helpers/env.js';

/** A Windows machine on paper: the files it has, its environment, its registry's Git folder. */
function windows(files: string[], env: Record<string, string>, gitInstallPath?: string): ShellProbe {
  const have = new Set(files.map((f) => f.toLowerCase()));
  return { platform: 'win32', env: { SystemRoot: 'C:\\Windows', ...env }, exists: (f) => have.has(f.toLowerCase()), gitInstallPath: () => gitInstallPath };
}

const shell = (s: ShellSpec | string): ShellSpec => {
  assert.equal(typeof s, 'object', String(s));
  return s as ShellSpec;
};

const PS51 = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe';
const CMD = 'C:\\Windows\\System32\\cmd.exe';

test('Windows: Git Bash is found through git on PATH, never WSL\'s System32 bash', () => {
  const p = windows(['C:\\Windows\\System32\\bash.exe', 'D:\\Tools\\Git\\cmd\\git.exe', 'D:\\Tools\\Git\\bin\\bash.exe', PS51, CMD], { Path: 'C:\\Windows\\System32;D:\\Tools\\Git\\cmd' });
  const s = shell(findShell('auto', p));
  assert.deepEqual([s.kind, s.file, shellPhrase(s)], ['bash', 'D:\\Tools\\Git\\bin\\bash.exe', 'Git Bash on Windows']);
});

test('Windows: Git Bash from the registry\'s install folder, then the usual folders', () => {
  const fromRegistry = shell(findShell('auto', windows(['E:\\Git\\bin\\bash.exe', PS51], { PATH: 'C:\\Windows\\System32' }, 'E:\\Git')));
  assert.equal(fromRegistry.file, 'E:\\Git\\bin\\bash.exe');
  const usual = shell(findShell('auto', windows(['C:\\Users\\me\\AppData\\Local\\Programs\\Git\\bin\\bash.exe'], { LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' })));
  assert.equal(usual.file, 'C:\\Users\\me\\AppData\\Local\\Programs\\Git\\bin\\bash.exe');
});

test('Windows without Git: PowerShell 7, else Windows PowerShell 5.1, else cmd.exe — each named for the model', () => {
  const ps7 = shell(findShell('auto', windows(['C:\\Program Files\\PowerShell\\7\\pwsh.exe', PS51, CMD], { ProgramFiles: 'C:\\Program Files', ComSpec: CMD })));
  assert.deepEqual([ps7.kind, shellPhrase(ps7)], ['powershell', 'PowerShell 7 on Windows']);
  const ps51 = shell(findShell('auto', windows([PS51, CMD], { ComSpec: CMD })));
  assert.deepEqual([ps51.file, shellPhrase(ps51)], [PS51, 'Windows PowerShell 5.1 on Windows']);
  // PowerShell gets the command base64-encoded: no quoting through the Windows command line.
  const encoded = ps51.args('echo "a b"; exit 3');
  assert.equal(Buffer.from(encoded.at(-1)!, 'base64').toString('utf16le').split('\n').at(-1), 'echo "a b"; exit 3');
  const cmd = shell(findShell('auto', windows([CMD], { ComSpec: CMD })));
  assert.deepEqual([cmd.kind, cmd.file, shellPhrase(cmd), cmd.verbatim], ['cmd', CMD, 'cmd.exe on Windows', true]);
  assert.deepEqual(cmd.args('echo hi'), ['/d', '/s', '/c', '"echo hi"']);
});

test("a command tool's shell: cmd.exe with delayed expansion (/v:on, so !ARG_X! expands after parsing); other shells unchanged", () => {
  const cmd = shell(findShell('cmd', windows([CMD], { ComSpec: CMD })));
  const tool = withDelayedExpansion(cmd);
  assert.deepEqual(tool.args('echo "!ARG_TEXT!"'), ['/d', '/v:on', '/s', '/c', '"echo "!ARG_TEXT!""']);
  assert.deepEqual([tool.kind, tool.file, tool.verbatim], ['cmd', CMD, true]);
  // Bash's own cmd.exe keeps its command line.
  assert.deepEqual(cmd.args('echo hi'), ['/d', '/s', '/c', '"echo hi"']);
  const ps = shell(findShell('auto', windows([PS51, CMD], { ComSpec: CMD })));
  assert.equal(withDelayedExpansion(ps), ps);
});

test('on Windows every command gets NoDefaultCurrentDirectoryInExePath=1 (no git.bat from the current folder); elsewhere nothing is added', () => {
  assert.deepEqual(hardenCommandEnv({ PATH: 'C:\\Windows' }, 'win32'), { PATH: 'C:\\Windows', NoDefaultCurrentDirectoryInExePath: '1' });
  assert.deepEqual(hardenCommandEnv({ PATH: '/usr/bin' }, 'linux'), { PATH: '/usr/bin' });
  assert.deepEqual(hardenCommandEnv({}, 'darwin'), {});
});

test('a configured shell that is missing is a clear error naming what to set', () => {
  assert.match(String(findShell('bash', windows([CMD], {}))), /no Git Bash was found .* Install Git for Windows, or set BASH_SHELL=auto/);
  assert.match(String(findShell('powershell', windows([CMD], {}))), /neither PowerShell 7 \(pwsh\) nor Windows PowerShell was found/);
  assert.match(String(findShell('cmd', { ...windows([], {}), platform: 'linux' })), /BASH_SHELL=cmd works on Windows only/);
});

test('with no bash on PATH, Bash and BackgroundBash run in sh, say so, and cd carries over', { skip: process.platform === 'win32' ? 'POSIX sh' : false }, async () => {
  const h = tempHome();
  const bin = path.join(h.home, 'bin');
  fs.mkdirSync(bin);
  for (const name of ['sh', 'mkdir', 'cat']) fs.symlinkSync(execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim(), path.join(bin, name));
  const { client } = await connectV2({ home: h.home, env: { PATH: bin } });
  try {
    const tools = (await client.listTools()).tools;
    assert.match(tools.find((t) => t.name === 'Bash')!.description!, /it runs in sh on Linux|it runs in sh on macOS/);
    assert.match(tools.find((t) => t.name === 'BackgroundBash')!.description!, /it runs in sh on/);
    const r = await client.callTool({ name: 'Bash', arguments: { command: 'mkdir -p sub && cd sub && echo "$0"' } });
    assert.match(textOf(r), /\[Ran in sh on \w+\]/);
    assert.equal((r.structuredContent as { cwd_after: string }).cwd_after, path.join(h.home, 'sub'));
    const again = await client.callTool({ name: 'Bash', arguments: { command: 'pwd' } });
    assert.equal((again.structuredContent as { output: string }).output, `${path.join(h.home, 'sub')}\n`);
    const job = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'echo from-sh' } });
    assert.ok(!job.isError, textOf(job));
    assert.match((job.structuredContent as { shell: string }).shell, /^sh on /);
  } finally {
    await client.close();
    h.cleanup();
  }
});

test('the ladder trusts a shell only once it answers the probe: one that does not is skipped and named; a configured one is an error', () => {
  const silent = new Set([PS51.toLowerCase()]);
  const probed: string[] = [];
  const p: ShellProbe = {
    ...windows(['C:\\Program Files\\PowerShell\\7\\pwsh.exe', PS51, CMD], { ProgramFiles: 'C:\\Program Files', ComSpec: CMD }),
    answers: (s) => {
      probed.push(s.name);
      if (s.name === 'PowerShell 7') return { ok: false, why: 'it could not be started (EACCES)' };
      return silent.has(s.file.toLowerCase()) ? { ok: false, why: 'it printed nothing for a test command (exit 0)' } : { ok: true, codePage: 850 };
    },
  };
  const chosen = shell(findShell('auto', p));
  assert.deepEqual([chosen.kind, chosen.codePage], ['cmd', 850]);
  assert.deepEqual(probed, ['PowerShell 7', 'Windows PowerShell 5.1', 'cmd.exe']);
  assert.deepEqual(chosen.skipped, [
    { name: 'PowerShell 7', file: 'C:\\Program Files\\PowerShell\\7\\pwsh.exe', why: 'it could not be started (EACCES)' },
    { name: 'Windows PowerShell 5.1', file: PS51, why: 'it printed nothing for a test command (exit 0)' },
  ]);
  assert.match(String(findShell('powershell', p)), /^BASH_SHELL=powershell, but no shell answered a test command: PowerShell 7 .*EACCES.*Windows PowerShell 5\.1 .*printed nothing.* Fix it, or set BASH_SHELL=auto\.$/);
  const none: ShellProbe = { ...p, answers: () => ({ ok: false, why: 'it did not answer a test command within 10 s' }) };
  assert.match(String(findShell('auto', none)), /^no shell answered a test command: .*cmd\.exe \(C:\\Windows\\System32\\cmd\.exe\): it did not answer.* Set BASH_SHELL to a shell that works\.$/);
  assert.match(String(findShell('cmd', none)), /^BASH_SHELL=cmd, but cmd\.exe .* does not work: it did not answer/);
});

test('the probe runs the shell for real, blocking or not: bash answers; a "shell" that prints nothing, fails or is missing does not', { skip: notHere(process.platform === 'win32' && 'POSIX scripts stand in for broken shells') }, async () => {
  const h = tempHome();
  try {
    const bash = shell(findShell('bash', { platform: process.platform, env: process.env, exists: (f) => fs.existsSync(f), gitInstallPath: () => undefined }));
    const fake = (name: string, body: string): ShellSpec => {
      const file = path.join(h.home, name);
      fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
      return { ...bash, file, name };
    };
    const cases: [ShellSpec, unknown][] = [
      [bash, { ok: true }],
      [fake('quiet', 'exit 0'), { ok: false, why: 'it printed nothing for a test command (exit 0)' }],
      [fake('blocked', 'echo "This program is blocked by group policy." >&2; exit 1'), { ok: false, why: 'it printed nothing for a test command (exit 1): This program is blocked by group policy.' }],
      [fake('other', 'echo something else'), { ok: false, why: 'it printed "something else" for a test command (exit 0)' }],
      [{ ...bash, file: path.join(h.home, 'missing') }, { ok: false, why: 'it could not be started (ENOENT)' }],
    ];
    for (const [spec, verdict] of cases) {
      assert.deepEqual(probeShell(spec), verdict, `${spec.name}, blocking`);
      assert.deepEqual(await probeShellAsync(spec), verdict, `${spec.name}, in the background`);
    }
  } finally {
    h.cleanup();
  }
});
