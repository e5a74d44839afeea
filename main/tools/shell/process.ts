import { pidAlive } from '../../core/pid.js';
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import treeKill from 'tree-kill';
import { UserError } from '../../core/errors.js';
import type { SettingsView } from '../../core/settings/view.js';
import { withoutPincerSecrets } from '../../core/settings/secrets.js';

export interface ShellSpec {
  file: string;
  /** Arguments that run `command`, with stderr merged into stdout so output keeps its order. */
  args(command: string): string[];
  kind: 'bash' | 'powershell';
}

const GIT_BASH_CANDIDATES = [
  process.env.ProgramFiles && path.join(process.env.ProgramFiles, 'Git', 'bin', 'bash.exe'),
  process.env['ProgramFiles(x86)'] && path.join(process.env['ProgramFiles(x86)'], 'Git', 'bin', 'bash.exe'),
  process.env.LOCALAPPDATA && path.join(process.env.LOCALAPPDATA, 'Programs', 'Git', 'bin', 'bash.exe'),
].filter((p): p is string => Boolean(p));

export function resolveShell(settings: SettingsView, platform = process.platform): ShellSpec {
  if (settings.get('BASH_SHELL') === 'powershell') {
    return {
      kind: 'powershell',
      file: platform === 'win32' ? 'powershell.exe' : 'pwsh',
      args: (command) => ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', `& { ${command} } 2>&1`],
    };
  }
  let file = 'bash';
  if (platform === 'win32') {
    const found = GIT_BASH_CANDIDATES.find((p) => fs.existsSync(p));
    if (!found) {
      throw new UserError('Bash: no bash found. Install Git for Windows (it brings Git Bash), or set BASH_SHELL=powershell in pincer-env.txt.', 'UNAVAILABLE');
    }
    file = found;
  }
  // `exec 2>&1` merges stderr into the same pipe as stdout, so the model sees
  // them interleaved in the order they were written.
  return { kind: 'bash', file, args: (command) => ['-c', `exec 2>&1\n${command}`] };
}

export function resolveCwd(settings: SettingsView): string {
  const configured = settings.get('BASH_CWD').trim();
  const dir = configured === '' ? (process.env.HOME ?? process.env.USERPROFILE ?? process.cwd()) : configured;
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new UserError(`Bash: working directory ${dir} does not exist; fix BASH_CWD in pincer-env.txt.`, 'UNAVAILABLE');
  }
  return dir;
}

let inherited: NodeJS.ProcessEnv | undefined;

/**
 * The environment commands run with: Pincer's own without its secrets (AUTH_TOKEN, API keys: see
 * withoutPincerSecrets), copied once. Node reads `process.env` through
 * a getenv interceptor, one native call per variable, on every spawn (~30 µs for 40 variables, a
 * tenth of a cheap tool call; issue 17); a plain object costs under a microsecond. Pincer never
 * changes its own environment after it starts.
 */
export function commandEnv(): NodeJS.ProcessEnv {
  if (inherited) return inherited;
  inherited = withoutPincerSecrets(process.env);
  // The packaged app runs its hub as Node through this switch; an Electron app a command starts (VS Code's `code`) must not inherit it.
  if (process.versions.electron) delete inherited.ELECTRON_RUN_AS_NODE;
  return inherited;
}

export function spawnShell(shell: ShellSpec, command: string, opts: { cwd: string; stdio: StdioOptions; detached: boolean; env?: NodeJS.ProcessEnv }): ChildProcess {
  return spawn(shell.file, shell.args(command), {
    cwd: opts.cwd,
    stdio: opts.stdio,
    // Its own process group, so a timeout or kill reaches every process the command started.
    detached: opts.detached,
    windowsHide: true,
    env: opts.env ?? commandEnv(),
  });
}

/** Signals a whole process tree: the process group on POSIX, taskkill /T on Windows. */
export function killTree(pid: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (process.platform === 'win32') {
    return new Promise((resolve) => treeKill(pid, signal, () => resolve()));
  }
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
  return Promise.resolve();
}


/** True while any process of the group still exists (POSIX). */
export function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return pidAlive(pgid);
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    // ESRCH: no such group. EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
