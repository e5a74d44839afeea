import os from 'node:os';
import { pidAlive } from '../../core/pid.js';
import { spawn, execFileSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import fs from 'node:fs';
import treeKill from 'tree-kill';
import { UserError } from '../../core/errors.js';
import type { SettingsView } from '../../core/settings/view.js';
import { withoutPincerSecrets } from '../../core/settings/secrets.js';
import { resolveLoginEnv, bareSystemPath } from './login-env.js';
import { findShell, systemProbe, shellPhrase, type ShellSpec, type ShellProbe, type SkippedShell } from './shells.js';

export type { ShellSpec } from './shells.js';

let provisionalShown = false;

/** Whether a description named a shell before its probe answered (since the last ask): its tool list is to be sent again. */
export function shownProvisionally(): boolean {
  const was = provisionalShown;
  provisionalShown = false;
  return was;
}

/** Found shells, by BASH_SHELL, for a while: a search may stat a dozen files and ask the registry. */
const found = new Map<string, { shell: ShellSpec | string; at: number }>();
const FOUND_FOR_MS = 60_000;

/**
 * The shell Bash and BackgroundBash run commands in (shells.ts), or a clear error naming what to set.
 * `peek` (descriptions, the dashboard): never waits on a shell's probe; a command awaits shellsReady first.
 */
export function resolveShell(settings: SettingsView, probe?: ShellProbe, mode: 'wait' | 'peek' = 'wait'): ShellSpec {
  const choice = settings.get('BASH_SHELL');
  const now = Date.now();
  let hit = probe ? undefined : found.get(choice);
  if (!hit || now - hit.at > FOUND_FOR_MS) {
    hit = { shell: findShell(choice, probe ?? systemProbe(mode)), at: now };
    // A choice made before the probes answered is made again next time.
    if (!probe && !(typeof hit.shell === 'object' && hit.shell.provisional)) found.set(choice, hit);
  }
  if (typeof hit.shell === 'object' && hit.shell.provisional) provisionalShown = true;
  if (typeof hit.shell === 'string') throw new UserError(`Bash: ${hit.shell}`, 'UNAVAILABLE');
  return hit.shell;
}

/** For the dashboard: which shell runs commands, which were skipped for not answering, or why none does. */
export function shellStatus(settings: SettingsView): { runs: string | null; skipped: SkippedShell[]; problem?: string } {
  try {
    const shell = resolveShell(settings, undefined, 'peek');
    return { runs: shellPhrase(shell), skipped: shell.skipped ?? [] };
  } catch (err) {
    return { runs: null, skipped: [], problem: (err as Error).message };
  }
}

/** For tool descriptions: "it runs in PowerShell 7 on Windows; write PowerShell syntax". */
export function shellSentence(settings: SettingsView): string {
  let shell: ShellSpec;
  try {
    shell = resolveShell(settings, undefined, 'peek');
  } catch (err) {
    return `no shell is available: ${(err as Error).message}`;
  }
  const syntax = shell.kind === 'bash' ? 'bash' : shell.kind === 'sh' ? 'POSIX sh' : shell.kind === 'powershell' ? 'PowerShell' : 'cmd.exe batch';
  // A shell that did not answer its probe is named, so the model (and the dashboard) knows why not that one.
  const skipped = (shell.skipped ?? []).map((s) => `${s.name} (${s.file}) was skipped: ${s.why}`).join('; ');
  return `it runs in ${shellPhrase(shell)}, so write ${syntax} syntax${skipped ? ` (${skipped})` : ''}`;
}

export function resolveCwd(settings: SettingsView): string {
  const configured = settings.get('BASH_CWD').trim();
  const dir = configured === '' ? userHome() : configured;
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new UserError(`Bash: working directory ${dir} does not exist; fix BASH_CWD in pincer-env.txt.`, 'UNAVAILABLE');
  }
  return dir;
}

/**
 * The user's home folder from the account (passwd, the Windows profile), not the HOME of whichever
 * process started the hub: a hub started by a client's bridge inherits that client's environment.
 */
export function userHome(): string {
  try {
    return os.userInfo().homedir;
  } catch {
    // No account entry for this uid (a container's arbitrary user): the environment is all there is.
    return process.env.HOME ?? process.env.USERPROFILE ?? process.cwd();
  }
}

let inherited: NodeJS.ProcessEnv | undefined;
let loginEnv: Record<string, string> | undefined;
let loginPending: Promise<void> | undefined;
let loginSettled = false;

/** Reads the login shell's environment once (login-env.ts); commands wait for it, at most its timeout. */
export function useLoginEnvironment(timeoutMs?: number): Promise<void> {
  if (process.platform === 'win32') return Promise.resolve();
  return (loginPending ??= resolveLoginEnv({ timeoutMs }).then((env) => {
    loginEnv = env;
    loginSettled = true;
    inherited = undefined;
  }));
}

/**
 * Before a command starts: the login environment, when it is being read (and a process whose PATH
 * is a bare system PATH — started from a dock or menu — starts reading it here). Undefined: ready.
 */
export function commandEnvReady(): Promise<void> | undefined {
  if (!loginPending && process.platform !== 'win32' && bareSystemPath(process.env.PATH)) void useLoginEnvironment();
  return loginSettled ? undefined : loginPending;
}

/**
 * The environment commands run with: the login shell's when it was read, else Pincer's own; without
 * Pincer's secrets either way. Copied once: Node reads `process.env` through a getenv interceptor,
 * one native call per variable, on every spawn (~30 µs for 40 variables, a tenth of a cheap tool
 * call; bench/RESULTS.md "hotpath"); a plain object costs under a microsecond.
 */
export function commandEnv(): NodeJS.ProcessEnv {
  if (inherited) return inherited;
  const env = hardenCommandEnv(withoutPincerSecrets(loginEnv ?? process.env), process.platform);
  // The packaged app runs its hub as Node through this switch; an Electron app a command starts (VS Code's `code`) must not inherit it.
  if (process.versions.electron) delete env.ELECTRON_RUN_AS_NODE;
  // While the login environment is being read, this answer is provisional.
  if (!loginPending || loginSettled) inherited = env;
  return env;
}

/**
 * On Windows, cmd.exe looks for a bare program name (`git`) in the current folder before PATH: a
 * cloned repository's git.bat would run. NoDefaultCurrentDirectoryInExePath turns that off for
 * every command Pincer starts (security review: plugins/command tools, finding A). Changes `env`.
 */
export function hardenCommandEnv(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): NodeJS.ProcessEnv {
  if (platform === 'win32') env.NoDefaultCurrentDirectoryInExePath = '1';
  return env;
}

export function spawnShell(shell: ShellSpec, command: string, opts: { cwd: string; stdio: StdioOptions; detached: boolean; env?: NodeJS.ProcessEnv }): ChildProcess {
  return spawn(shell.file, shell.args(command), {
    cwd: opts.cwd,
    windowsVerbatimArguments: shell.verbatim === true,
    stdio: opts.stdio,
    // Its own process group, so a timeout or kill reaches every process the command started.
    detached: opts.detached,
    windowsHide: true,
    env: opts.env ?? commandEnv(),
  });
}

/**
 * Signals a whole process tree: the process group led by `pid` on POSIX, taskkill /T on Windows.
 * Never the pid alone: when `pid` leads no group, the process there is not the one that was
 * started (its pid was reused), and signalling it would hit a stranger (test/jobs-stranger.test.ts).
 */
export function killTree(pid: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<SignalOutcome> {
  if (process.platform === 'win32') {
    return new Promise((resolve) => treeKill(pid, signal, (err) => resolve(err ? { refused: err.message } : 'sent')));
  }
  return Promise.resolve(signalGroup(pid, signal));
}

/**
 * What signalling a tree came to: delivered, nothing there (the group is gone, or that pid now belongs
 * to a process that leads none), or refused by the system (EPERM: not ours), with why.
 */
export type SignalOutcome = 'sent' | 'gone' | { refused: string };

/** Signals the POSIX process group `pgid` leads, synchronously. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): SignalOutcome {
  try {
    process.kill(-pgid, signal);
    return 'sent';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ESRCH' ? 'gone' : { refused: `${signal} to process group ${pgid}: ${code ?? (err as Error).message}` };
  }
}

/**
 * The process group `pid` is in (POSIX): /proc/<pid>/stat field 5 on Linux, `ps -o pgid=` elsewhere.
 * Undefined when it cannot be read (gone, Windows, no ps): callers then signal nothing.
 */
export function processGroup(pid: number, platform: NodeJS.Platform = process.platform): number | undefined {
  if (!Number.isInteger(pid) || pid <= 0 || platform === 'win32') return undefined;
  try {
    let text: string | undefined;
    if (platform === 'linux') {
      // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      text = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2];
    } else text = execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    const pgid = Number(text?.trim());
    return Number.isInteger(pgid) && pgid > 0 ? pgid : undefined;
  } catch {
    // Gone, or ps is missing: unknown.
    return undefined;
  }
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
