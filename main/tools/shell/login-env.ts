import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { logger } from '../../core/log.js';

const log = logger('login-env');

/**
 * The user's environment as their login shell makes it (README "Which environment commands get").
 * A hub started by the tray app, or by a client's bridge, inherits what that app was started with:
 * on macOS `/usr/bin:/bin:/usr/sbin:/sbin`, none of the user's profile (Homebrew, nvm, pyenv,
 * ~/bin), and whatever that one client put in its own environment. Such a hub asks the login
 * shell once, the way VS Code does: `$SHELL -i -l -c` running Pincer's own Node, which prints its
 * environment between two random marks; bounded by a timeout, a failure falls back to the hub's
 * own environment. The shell starts from a small neutral environment, so nothing one client set
 * reaches the commands of another.
 */

/** Variables a desktop session gives every program; the rest comes from the user's profile. */
const SESSION_VARS = ['HOME', 'USER', 'LOGNAME', 'SHELL', 'PATH', 'TMPDIR', 'LANG', 'LC_ALL', 'LC_CTYPE', 'DISPLAY', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR', 'DBUS_SESSION_BUS_ADDRESS', 'SSH_AUTH_SOCK', '__CF_USER_TEXT_ENCODING'];

const SYSTEM_DIRS = new Set(['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin', '/usr/local/sbin', '/usr/games', '/usr/local/games', '/snap/bin', '/usr/libexec']);

/** True when PATH holds nothing but system folders: an app started from a dock, a menu or launchd, not from a terminal. */
export function bareSystemPath(p: string | undefined): boolean {
  return (p ?? '').split(':').filter(Boolean).every((dir) => SYSTEM_DIRS.has(dir.replace(/\/+$/, '')));
}

export interface LoginEnvOptions {
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  platform?: NodeJS.Platform;
}

/** The login shell's environment, or undefined (with the reason logged) when it cannot be had in time. */
export function resolveLoginEnv(opts: LoginEnvOptions = {}): Promise<Record<string, string> | undefined> {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  if (platform === 'win32') return Promise.resolve(undefined);
  const shell = env.SHELL && path.isAbsolute(env.SHELL) ? env.SHELL : platform === 'darwin' ? '/bin/zsh' : '/bin/sh';
  const mark = randomBytes(12).toString('hex');
  const neutral: NodeJS.ProcessEnv = {};
  for (const k of SESSION_VARS) if (env[k] !== undefined) neutral[k] = env[k];
  neutral.PINCER_RESOLVING_ENVIRONMENT = '1';
  neutral.PINCER_ENV_NODE = process.execPath;
  neutral.PINCER_ENV_SCRIPT =
    `const e = { ...process.env }; for (const k of ['PINCER_ENV_NODE', 'PINCER_ENV_SCRIPT', 'PINCER_RESOLVING_ENVIRONMENT', 'ELECTRON_RUN_AS_NODE', 'SHLVL', '_']) delete e[k];` +
    ` process.stdout.write('${mark}' + JSON.stringify(e) + '${mark}')`;
  if (process.versions.electron) neutral.ELECTRON_RUN_AS_NODE = '1';
  // csh and tcsh take -l only alone; every other shell takes -i -l -c.
  const args = /(^|\/)t?csh$/.test(shell) ? ['-ic', '"$PINCER_ENV_NODE" -e "$PINCER_ENV_SCRIPT"'] : ['-i', '-l', '-c', '"$PINCER_ENV_NODE" -e "$PINCER_ENV_SCRIPT"'];
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const done = (value: Record<string, string> | undefined, why?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (why) log.warn(`could not read the login environment from ${shell} (${why}); commands run with Pincer's own environment`);
      resolve(value);
    };
    // Its own session: an interactive shell must not take a terminal Pincer may have.
    const child = spawn(shell, args, { env: neutral, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      done(undefined, `no answer within ${timeoutMs / 1000} s; a slow or waiting shell profile?`);
    }, timeoutMs);
    timer.unref();
    child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.once('error', (err) => done(undefined, err.message));
    child.once('close', (code) => {
      const m = new RegExp(`${mark}(.*)${mark}`, 's').exec(out);
      if (!m) return done(undefined, `it exited ${code} without printing the environment`);
      try {
        const parsed = JSON.parse(m[1]!) as Record<string, unknown>;
        done(Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string')));
      } catch (err) {
        done(undefined, (err as Error).message);
      }
    });
  });
}
