import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ShellSpec } from './shells.js';

/**
 * How a Bash call learns the folder its command ended in, so that a `cd` carries over to the
 * client's next command in every shell. bash and sh on POSIX write it to fd 3 (no file); Git
 * Bash, PowerShell and cmd.exe write it to a temporary file (Windows passes no extra pipes to
 * them). Git Bash answers `pwd -W` (C:/…), turned into a Windows path. An `exit` in the command
 * skips the report: the folder then stays as it was.
 */
export interface CwdTracker {
  /** The command to give the shell. */
  command: string;
  /** Whether the command writes the folder to fd 3 (a pipe the caller adds). */
  fd3: boolean;
  /** The folder the command ended in, from what fd 3 carried (or the file); undefined when it did not say. */
  result(fd3Text: string): string | undefined;
}

/**
 * `reportFile`: the folder goes to this file in every shell (a command run as a job has no fd 3,
 * and the next hub may be the one that reads it); the file is left for its owner to remove.
 */
export function trackCwd(shell: ShellSpec, command: string, reportFile?: string): CwdTracker {
  const win = shell.platform === 'win32';
  if (!win && (shell.kind === 'bash' || shell.kind === 'sh') && reportFile) {
    return {
      command: `${command}\n__pincer_status=$?; pwd > '${reportFile.replace(/'/g, `'\\''`)}' 2>/dev/null; exit $__pincer_status`,
      fd3: false,
      result: () => readReport(reportFile, false, (t) => t),
    };
  }
  if (!win && (shell.kind === 'bash' || shell.kind === 'sh')) {
    return {
      command: `${command}\n__pincer_status=$?; pwd >&3 2>/dev/null; exit $__pincer_status`,
      fd3: true,
      result: (text) => text.trim() || undefined,
    };
  }
  const file = reportFile ?? path.join(os.tmpdir(), `pincer-cwd-${process.pid}-${randomBytes(6).toString('hex')}.txt`);
  let wrapped: string;
  if (shell.kind === 'powershell') {
    const quoted = `'${file.replace(/'/g, "''")}'`;
    wrapped = `& {\n${command}\n}\n$__pincer_ok = $?\n[IO.File]::WriteAllText(${quoted}, (Get-Location).ProviderPath)\nif (-not $__pincer_ok) { exit $(if ($LASTEXITCODE) { $LASTEXITCODE } else { 1 }) }`;
  } else if (shell.kind === 'cmd') {
    // `cd` alone prints the folder and leaves ERRORLEVEL as the command set it, so the exit code is the command's.
    wrapped = `${command} & cd > "${file}"`;
  } else {
    wrapped = `${command}\n__pincer_status=$?; { pwd -W 2>/dev/null || pwd; } > '${file.replace(/\\/g, '/')}' 2>/dev/null; exit $__pincer_status`;
  }
  return {
    command: wrapped,
    fd3: false,
    result: () => readReport(file, reportFile === undefined, windowsPath),
  };
}

/** The folder a command run with a `reportFile` reported (undefined when it did not); the file stays. */
export function readFolderReport(file: string, platform: NodeJS.Platform = process.platform): string | undefined {
  return readReport(file, false, platform === 'win32' ? windowsPath : (t) => t);
}

/** The folder a command reported in its file (then removed, unless the caller owns the file). */
function readReport(file: string, remove: boolean, toPath: (text: string) => string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch {
    // No report (an `exit` in the command skipped it): the folder stays as it was.
    return undefined;
  } finally {
    if (remove) fs.rmSync(file, { force: true });
  }
  return text ? toPath(text) : undefined;
}

/** `C:/x/y` (pwd -W) or `/c/x/y` (MSYS pwd) as C:\x\y; anything else normalised. */
function windowsPath(text: string): string {
  const msys = /^\/([a-zA-Z])(\/.*)?$/.exec(text);
  const p = msys ? `${msys[1]!.toUpperCase()}:${msys[2] ?? '\\'}` : text;
  return path.win32.normalize(p);
}
