import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';

/**
 * Which shell runs Bash and BackgroundBash commands (README "Tools"): the configured BASH_SHELL,
 * else the first found of bash (on Windows: Git Bash — from PATH, the Git for Windows registry
 * key or its usual folders; never WSL's System32\bash.exe), PowerShell 7, Windows PowerShell
 * 5.1, cmd.exe (on POSIX: sh) that answers a probe command. The model is told which, so it writes
 * that shell's syntax, and which were skipped for not answering.
 */

export type ShellKind = 'bash' | 'powershell' | 'cmd' | 'sh';
export type ShellChoice = 'auto' | 'bash' | 'powershell' | 'cmd';

export interface ShellSpec {
  kind: ShellKind;
  file: string;
  /** What to call it: bash, Git Bash, PowerShell 7, Windows PowerShell 5.1, cmd.exe, sh. */
  name: string;
  /** Arguments that run `command` (stderr merged into stdout where the shell can, so output keeps its order). */
  args(command: string): string[];
  /** The arguments are passed as written (cmd.exe parses its own command line). */
  verbatim?: boolean;
  platform: NodeJS.Platform;
  /** The code page its output is written in, when not UTF-8 (cmd.exe writes the console's, e.g. 850). */
  codePage?: number;
  /** Shells before this one on the ladder that were found but did not answer the probe. */
  skipped?: SkippedShell[];
  /** Chosen before its probe answered (a tool description as the process starts): not to be kept. */
  provisional?: true;
}

export interface SkippedShell {
  name: string;
  file: string;
  why: string;
}

/** What a shell did with the probe command: answered (with its output code page, cmd.exe), or why not. */
export type ProbeAnswer = { ok: true; codePage?: number; provisional?: true } | { ok: false; why: string };

/** What the search may look at; tests give a fake Windows. */
export interface ShellProbe {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  exists(file: string): boolean;
  /** Git for Windows' InstallPath from the registry (HKLM, then HKCU). */
  gitInstallPath(): string | undefined;
  /** Runs the probe command in `shell` (see probeShell); absent: every shell found is trusted. */
  answers?(shell: ShellSpec): ProbeAnswer;
}

/**
 * The machine as it is. `peek`: a shell not probed yet is taken as answering for now and probed in
 * the background (for tool descriptions and the dashboard, which must not wait on a shell).
 */
export function systemProbe(mode: 'wait' | 'peek' = 'wait'): ShellProbe {
  return {
    platform: process.platform,
    env: process.env,
    exists: (f) => {
      try {
        return fs.statSync(f).isFile();
      } catch {
        return false;
      }
    },
    gitInstallPath: () => {
      for (const hive of ['HKLM', 'HKCU']) {
        try {
          const out = execFileSync('reg', ['query', `${hive}\\SOFTWARE\\GitForWindows`, '/v', 'InstallPath'], { encoding: 'utf8', windowsHide: true, timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
          const m = /InstallPath\s+REG_\w+\s+(.+)/.exec(out);
          if (m) return m[1]!.trim();
        } catch {
          // No such key.
        }
      }
      return undefined;
    },
    answers: (shell) => (mode === 'peek' && !verdicts.has(keyOf(shell)) ? peekProbe(shell) : cachedProbe(shell)),
  };
}

const PROBE_MARK = 'pincer-shell-probe';
const PROBE_TIMEOUT_MS = 10_000;
/** How long a verdict stands: a shell that did not answer (a policy since lifted) is tried again after it. */
const VERDICT_FOR_MS = 5 * 60_000;
const verdicts = new Map<string, { answer: ProbeAnswer; at: number; refreshing?: boolean }>();
const keyOf = (shell: ShellSpec) => `${shell.kind}\0${shell.file}`;

/**
 * The verdict on `shell`: a shell never seen is probed at once (the only time a caller waits for
 * it; `warmShells` usually got there first); an old verdict stands while a new probe runs in the
 * background, so a hub's event loop never waits on a shell again.
 */
function cachedProbe(shell: ShellSpec): ProbeAnswer {
  const key = keyOf(shell);
  const hit = verdicts.get(key);
  if (!hit) {
    const answer = probeShell(shell);
    verdicts.set(key, { answer, at: Date.now() });
    return answer;
  }
  if (Date.now() - hit.at >= VERDICT_FOR_MS && !hit.refreshing) {
    hit.refreshing = true;
    void probeShellAsync(shell).then((answer) => verdicts.set(key, { answer, at: Date.now() }));
  }
  return hit.answer;
}

function peekProbe(shell: ShellSpec): ProbeAnswer {
  void probeShellAsync(shell).then((answer) => {
    if (!verdicts.has(keyOf(shell))) verdicts.set(keyOf(shell), { answer, at: Date.now() });
  });
  return { ok: true, provisional: true };
}

const warming = new Map<ShellChoice, Promise<void>>();

/**
 * Resolves once the shells the ladder for `choice` may take have verdicts (probed once per process,
 * in the background): a command awaits it, so that choosing its shell never waits on a probe.
 */
export function shellsReady(choice: ShellChoice): Promise<void> {
  let w = warming.get(choice);
  if (!w) {
    w = warmShells(choice);
    warming.set(choice, w);
  }
  return w;
}

/**
 * Probes the shells the ladder for `choice` may take, in the background, until one answers: a
 * process calls it as it starts, so that its first tool list and command find the verdicts made.
 */
export async function warmShells(choice: ShellChoice, p: ShellProbe = systemProbe()): Promise<void> {
  const ladder = choice === 'auto' ? [findBash(p), ...powerShells(p), findCmd(p), p.platform === 'win32' ? undefined : findSh(p)] : choice === 'bash' ? [findBash(p)] : choice === 'cmd' ? [findCmd(p)] : powerShells(p);
  for (const shell of ladder) {
    if (!shell || verdicts.has(keyOf(shell))) continue;
    const answer = await probeShellAsync(shell);
    verdicts.set(keyOf(shell), { answer, at: Date.now() });
    if (answer.ok) return;
  }
}

const probeCommand = (shell: ShellSpec) => (shell.kind === 'cmd' ? `chcp & echo ${PROBE_MARK}` : shell.kind === 'powershell' ? `Write-Output ('${PROBE_MARK}-' + [char]0xe9)` : `echo ${PROBE_MARK}`);

/**
 * Runs a command whose output is known in `shell`, the way Bash runs commands: a shell that cannot
 * start, fails, hangs or prints something else (Wine's powershell.exe prints nothing; PowerShell
 * blocked by AppLocker does not start; in constrained language mode it cannot set UTF-8 output,
 * so the probe's "é" comes back wrong) is not trusted with the user's commands. cmd.exe also says
 * its code page (chcp), which its output is written in.
 */
export function probeShell(shell: ShellSpec): ProbeAnswer {
  const r = spawnSync(shell.file, shell.args(probeCommand(shell)), { encoding: 'buffer', timeout: PROBE_TIMEOUT_MS, windowsHide: true, windowsVerbatimArguments: shell.verbatim, stdio: ['ignore', 'pipe', 'pipe'] });
  return verdictOf(shell, { error: r.error, status: r.status, signal: r.signal, stdout: r.stdout ?? Buffer.alloc(0), stderr: r.stderr ?? Buffer.alloc(0) });
}

/** probeShell without blocking: the same command, read as it comes. */
export function probeShellAsync(shell: ShellSpec): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let failure: Error | undefined;
    const child = spawn(shell.file, shell.args(probeCommand(shell)), { windowsHide: true, windowsVerbatimArguments: shell.verbatim, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      failure = Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });
      child.kill('SIGKILL');
    }, PROBE_TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('error', (e) => (failure = e));
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve(verdictOf(shell, { error: failure, status, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
    });
  });
}

function verdictOf(shell: ShellSpec, r: { error?: Error; status: number | null; signal: NodeJS.Signals | null; stdout: Buffer; stderr: Buffer }): ProbeAnswer {
  const errText = r.stderr.toString('utf8').trim().split(/\r?\n/)[0]?.slice(0, 200) ?? '';
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return { ok: false, why: code === 'ETIMEDOUT' ? `it did not answer a test command within ${PROBE_TIMEOUT_MS / 1000} s` : `it could not be started (${code ?? r.error.message})` };
  }
  const out = r.stdout.toString(shell.kind === 'cmd' ? 'latin1' : 'utf8');
  const expected = shell.kind === 'powershell' ? `${PROBE_MARK}-\u00e9` : PROBE_MARK;
  if (!out.split(/\r?\n/).some((line) => line.trim() === expected)) {
    const printed = out.trim() === '' ? 'printed nothing' : `printed ${JSON.stringify(out.trim().slice(0, 80))}`;
    return { ok: false, why: `it ${printed} for a test command (exit ${r.status ?? r.signal})${errText ? `: ${errText}` : ''}` };
  }
  if (shell.kind !== 'cmd') return { ok: true };
  // "Active code page: 850" (the words are the system's language; the number is what counts).
  const page = /(\d{3,5})\D*$/.exec(out.split(/\r?\n/).find((l) => /\d{3,5}/.test(l)) ?? '');
  const codePage = page ? Number(page[1]) : undefined;
  return { ok: true, ...(codePage && codePage !== 65001 ? { codePage } : {}) };
}

const PLATFORM_NAMES: Partial<Record<NodeJS.Platform, string>> = { win32: 'Windows', darwin: 'macOS', linux: 'Linux' };

/** "runs in PowerShell 7 on Windows": for tool descriptions and results. */
export function shellPhrase(shell: ShellSpec): string {
  return `${shell.name} on ${PLATFORM_NAMES[shell.platform] ?? shell.platform}`;
}

/** An environment variable, case-insensitively on Windows (a copied env object is not). */
function envGet(env: NodeJS.ProcessEnv, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

function onPath(name: string, p: ShellProbe, skip: (dir: string) => boolean = () => false): string | undefined {
  const win = p.platform === 'win32';
  const pathApi = win ? path.win32 : path.posix;
  for (const dir of (envGet(p.env, 'PATH', p.platform) ?? '').split(win ? ';' : ':')) {
    if (!dir || skip(dir)) continue;
    const file = pathApi.join(dir.replace(/^"(.*)"$/, '$1'), win && !/\.exe$/i.test(name) ? `${name}.exe` : name);
    if (p.exists(file)) return file;
  }
  return undefined;
}

function findGitBash(p: ShellProbe): string | undefined {
  const w = path.win32;
  const system = (envGet(p.env, 'SystemRoot', 'win32') ?? 'C:\\Windows').toLowerCase();
  // System32\bash.exe and the WindowsApps alias start WSL, a Linux machine with other files: not the user's shell here.
  const isWsl = (dir: string) => w.normalize(dir).toLowerCase().startsWith(system) || /windowsapps/i.test(dir);
  const candidates: (string | undefined)[] = [onPath('bash', p, isWsl)];
  const git = onPath('git', p);
  // Git for Windows puts Git\cmd on PATH (git.exe there); bash.exe is in Git\bin.
  if (git) candidates.push(...[['..'], [], ['..', '..']].map((up) => w.join(w.dirname(git), ...up, 'bin', 'bash.exe')));
  const installed = p.gitInstallPath();
  if (installed) candidates.push(w.join(installed, 'bin', 'bash.exe'));
  for (const root of ['ProgramFiles', 'ProgramW6432', 'ProgramFiles(x86)']) {
    const dir = envGet(p.env, root, 'win32');
    if (dir) candidates.push(w.join(dir, 'Git', 'bin', 'bash.exe'));
  }
  const local = envGet(p.env, 'LOCALAPPDATA', 'win32');
  if (local) candidates.push(w.join(local, 'Programs', 'Git', 'bin', 'bash.exe'));
  return candidates.find((c): c is string => c !== undefined && p.exists(c));
}

function bashSpec(file: string, name: string, platform: NodeJS.Platform, kind: 'bash' | 'sh' = 'bash'): ShellSpec {
  // `exec 2>&1` merges stderr into stdout's pipe: the model sees both in the order they were written.
  return { kind, file, name, platform, args: (command) => ['-c', `exec 2>&1\n${command}`] };
}

function powershellSpec(file: string, name: string, platform: NodeJS.Platform): ShellSpec {
  return {
    kind: 'powershell',
    file,
    name,
    platform,
    // -EncodedCommand (UTF-16LE, base64): no quoting of the command through the Windows command line. Output as UTF-8.
    args: (command) => ['-NoLogo', '-NoProfile', '-NonInteractive', '-EncodedCommand', Buffer.from(`[Console]::OutputEncoding = [Text.UTF8Encoding]::new($false)\n${command}`, 'utf16le').toString('base64')],
  };
}

function findBash(p: ShellProbe): ShellSpec | undefined {
  if (p.platform === 'win32') {
    const git = findGitBash(p);
    return git ? bashSpec(git, 'Git Bash', p.platform) : undefined;
  }
  const file = onPath('bash', p);
  return file ? bashSpec(file, 'bash', p.platform) : undefined;
}

/** PowerShell 7, then Windows PowerShell 5.1: each found one, in that order (the ladder tries both). */
function powerShells(p: ShellProbe): ShellSpec[] {
  const win = p.platform === 'win32';
  const found: ShellSpec[] = [];
  const pwsh = onPath('pwsh', p) ?? (win ? [envGet(p.env, 'ProgramFiles', 'win32')].filter(Boolean).map((d) => path.win32.join(d!, 'PowerShell', '7', 'pwsh.exe')).find((f) => p.exists(f)) : undefined);
  if (pwsh) found.push(powershellSpec(pwsh, 'PowerShell 7', p.platform));
  if (!win) return found;
  const root = envGet(p.env, 'SystemRoot', 'win32') ?? 'C:\\Windows';
  const classic = [path.win32.join(root, 'System32', 'WindowsPowerShell', 'v1.0', 'powershell.exe')].find((f) => p.exists(f)) ?? onPath('powershell', p);
  if (classic) found.push(powershellSpec(classic, 'Windows PowerShell 5.1', p.platform));
  return found;
}

function findCmd(p: ShellProbe): ShellSpec | undefined {
  if (p.platform !== 'win32') return undefined;
  const root = envGet(p.env, 'SystemRoot', 'win32') ?? 'C:\\Windows';
  const file = [envGet(p.env, 'ComSpec', 'win32'), path.win32.join(root, 'System32', 'cmd.exe')].find((f): f is string => f !== undefined && p.exists(f)) ?? 'cmd.exe';
  return { kind: 'cmd', file, name: 'cmd.exe', platform: p.platform, verbatim: true, args: (command) => ['/d', '/s', '/c', `"${command}"`] };
}

/**
 * The shell for a plugin's command tool, whose arguments arrive as ARG_ variables: cmd.exe with
 * delayed expansion on (/v:on), so `!ARG_X!` is expanded after the line is parsed and an argument's
 * `&`, `|` or `>` stays text (`%ARG_X%` is expanded before parsing: injectable; docs/PLUGINS.md).
 * Other shells expand variables after parsing already and are returned as they are.
 */
export function withDelayedExpansion(shell: ShellSpec): ShellSpec {
  if (shell.kind !== 'cmd') return shell;
  return { ...shell, args: (command) => ['/d', '/v:on', '/s', '/c', `"${command}"`] };
}

function findSh(p: ShellProbe): ShellSpec {
  return bashSpec(onPath('sh', p) ?? '/bin/sh', 'sh', p.platform, 'sh');
}

/**
 * The shell for `choice`, or why there is none. `auto` takes the first shell on the ladder that
 * answers the probe, naming those skipped; when none does it names them all. A configured shell
 * that does not answer is an error saying so.
 */
export function findShell(choice: ShellChoice, p: ShellProbe): ShellSpec | string {
  const checked = (shell: ShellSpec | undefined, missing: string): ShellSpec | string => {
    if (!shell) return missing;
    const answer = p.answers?.(shell) ?? { ok: true };
    if (!answer.ok) return `BASH_SHELL=${choice}, but ${shell.name} (${shell.file}) does not work: ${answer.why}. Fix it, or set BASH_SHELL=auto.`;
    return answer.codePage ? { ...shell, codePage: answer.codePage } : shell;
  };
  switch (choice) {
    case 'bash':
      return checked(findBash(p), p.platform === 'win32'
        ? 'BASH_SHELL=bash, but no Git Bash was found (PATH, the Git for Windows registry key, Program Files). Install Git for Windows, or set BASH_SHELL=auto to use PowerShell or cmd.exe.'
        : 'BASH_SHELL=bash, but no bash was found on PATH. Install bash, or set BASH_SHELL=auto.');
    case 'powershell': {
      const found = powerShells(p);
      if (found.length === 0) return 'BASH_SHELL=powershell, but neither PowerShell 7 (pwsh) nor Windows PowerShell was found. Install PowerShell, or set BASH_SHELL=auto.';
      const shell = firstAnswering(found, p);
      return typeof shell === 'string' ? `BASH_SHELL=powershell, but ${shell.replace(/ Set BASH_SHELL to a shell that works\.$/, ' Fix it, or set BASH_SHELL=auto.')}` : shell;
    }
    case 'cmd':
      return checked(findCmd(p), 'BASH_SHELL=cmd works on Windows only; set BASH_SHELL=auto.');
    default:
      return firstAnswering([findBash(p), ...powerShells(p), findCmd(p), p.platform === 'win32' ? undefined : findSh(p)], p);
  }
}

function firstAnswering(ladder: (ShellSpec | undefined)[], p: ShellProbe): ShellSpec | string {
  const skipped: SkippedShell[] = [];
  for (const shell of ladder) {
    if (!shell) continue;
    const answer = p.answers?.(shell) ?? { ok: true };
    if (answer.ok) return { ...shell, ...(answer.codePage ? { codePage: answer.codePage } : {}), ...(skipped.length ? { skipped } : {}), ...(answer.provisional ? { provisional: true } : {}) };
    skipped.push({ name: shell.name, file: shell.file, why: answer.why });
  }
  return `no shell answered a test command: ${skipped.map((s) => `${s.name} (${s.file}): ${s.why}`).join('; ')}. Set BASH_SHELL to a shell that works.`;
}
