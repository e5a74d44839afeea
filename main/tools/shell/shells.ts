import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

/**
 * Which shell runs Bash and BackgroundBash commands (README "Tools"): the configured BASH_SHELL,
 * else the first found of bash (on Windows: Git Bash — from PATH, the Git for Windows registry
 * key or its usual folders; never WSL's System32\bash.exe), PowerShell 7, Windows PowerShell
 * 5.1, cmd.exe (on POSIX: sh). The model is told which, so it writes that shell's syntax.
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
}

/** What the search may look at; tests give a fake Windows. */
export interface ShellProbe {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  exists(file: string): boolean;
  /** Git for Windows' InstallPath from the registry (HKLM, then HKCU). */
  gitInstallPath(): string | undefined;
}

export function systemProbe(): ShellProbe {
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
  };
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

function findPowerShell(p: ShellProbe): ShellSpec | undefined {
  const win = p.platform === 'win32';
  const pwsh = onPath('pwsh', p) ?? (win ? [envGet(p.env, 'ProgramFiles', 'win32')].filter(Boolean).map((d) => path.win32.join(d!, 'PowerShell', '7', 'pwsh.exe')).find((f) => p.exists(f)) : undefined);
  if (pwsh) return powershellSpec(pwsh, 'PowerShell 7', p.platform);
  if (!win) return undefined;
  const root = envGet(p.env, 'SystemRoot', 'win32') ?? 'C:\\Windows';
  const classic = [path.win32.join(root, 'System32', 'WindowsPowerShell', 'v1.0', 'powershell.exe')].find((f) => p.exists(f)) ?? onPath('powershell', p);
  return classic ? powershellSpec(classic, 'Windows PowerShell 5.1', p.platform) : undefined;
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
 * The shell for `choice`, or why there is none. `auto` always finds one: cmd.exe on Windows, sh elsewhere.
 */
export function findShell(choice: ShellChoice, p: ShellProbe): ShellSpec | string {
  switch (choice) {
    case 'bash':
      return findBash(p) ?? (p.platform === 'win32'
        ? 'BASH_SHELL=bash, but no Git Bash was found (PATH, the Git for Windows registry key, Program Files). Install Git for Windows, or set BASH_SHELL=auto to use PowerShell or cmd.exe.'
        : 'BASH_SHELL=bash, but no bash was found on PATH. Install bash, or set BASH_SHELL=auto.');
    case 'powershell':
      return findPowerShell(p) ?? 'BASH_SHELL=powershell, but neither PowerShell 7 (pwsh) nor Windows PowerShell was found. Install PowerShell, or set BASH_SHELL=auto.';
    case 'cmd':
      return findCmd(p) ?? 'BASH_SHELL=cmd works on Windows only; set BASH_SHELL=auto.';
    default:
      return findBash(p) ?? findPowerShell(p) ?? findCmd(p) ?? findSh(p);
  }
}
