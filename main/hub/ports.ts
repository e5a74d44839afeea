import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Best effort: "node server.js (pid 1234)". Finds the pid with the tools each
 * OS has, then names it by its program (and script) rather than by what
 * lsof/ss report, the main thread's name ("MainThread" for Node).
 */
export async function portHolder(port: number): Promise<string | undefined> {
  const found = (process.platform === 'linux' ? procListener(port) : undefined) ?? (await listenerOf(port));
  if (!found) return undefined;
  if ('owner' in found) return found.owner;
  const name = (await programOf(found.pid)) ?? found.name;
  return name ? `${name} (pid ${found.pid})` : `pid ${found.pid}`;
}

async function listenerOf(port: number): Promise<{ pid: string; name?: string } | undefined> {
  try {
    if (process.platform === 'win32') {
      const { stdout } = await run('netstat', ['-ano', '-p', 'tcp'], { timeout: 3000 });
      const line = stdout.split(/\r?\n/).find((l) => new RegExp(`:${port}\\s+\\S+\\s+LISTENING`, 'i').test(l));
      const pid = line?.trim().split(/\s+/).pop();
      return pid ? { pid } : undefined;
    }
    try {
      const { stdout } = await run('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc'], { timeout: 3000 });
      const pid = /^p(\d+)/m.exec(stdout)?.[1];
      if (pid) return { pid, name: /^c(.+)$/m.exec(stdout)?.[1] };
    } catch {
      // lsof missing: try ss.
    }
    const { stdout } = await run('ss', ['-ltnpH', `sport = :${port}`], { timeout: 3000 });
    const m = /users:\(\("([^"]+)",pid=(\d+)/.exec(stdout);
    return m ? { pid: m[2]!, name: m[1] } : undefined;
  } catch {
    // Neither lsof nor ss could tell: the caller says the port is taken without naming by whom.
    return undefined;
  }
}

/** The program a pid runs, with its script when it is an interpreter's: "node server.js". Never its other arguments (they may hold secrets). */
async function programOf(pid: string): Promise<string | undefined> {
  try {
    if (process.platform === 'win32') {
      const { stdout } = await run('tasklist', ['/FI', `PID eq ${pid}`, '/FO', 'CSV', '/NH'], { timeout: 3000 });
      return /^"([^"]+)"/.exec(stdout.trim())?.[1];
    }
    let args: string[];
    if (process.platform === 'linux') {
      args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } else {
      const { stdout } = await run('ps', ['-o', 'args=', '-p', pid], { timeout: 3000 });
      args = stdout.trim().split(/\s+/);
    }
    if (!args[0]) return undefined;
    const script = args.slice(1).find((a) => !a.startsWith('-'));
    return [path.basename(args[0]), ...(script && /\.[cm]?[jt]s$|\.py$|\.rb$|\.pl$/.test(script) ? [path.basename(script)] : [])].join(' ');
  } catch {
    // The process ended, or ps/tasklist could not say: lsof's or ss's name is used.
    return undefined;
  }
}

/**
 * Linux: the listening socket on `port` from /proc/net/tcp{,6} (its inode and
 * owner), then the process whose fd is that socket. Another user's process
 * cannot be looked into: then its owner is what can be said.
 */
export function procListener(port: number): { pid: string; name?: string } | { owner: string } | undefined {
  const wanted = port.toString(16).toUpperCase().padStart(4, '0');
  let socket: { inode: string; uid: number } | undefined;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; uid and inode are fields 7 and 9.
      if (f.length > 9 && f[1]!.endsWith(`:${wanted}`) && f[3] === '0A') socket = { inode: f[9]!, uid: Number(f[7]) };
      if (socket) break;
    }
    if (socket) break;
  }
  if (!socket || socket.inode === '0') return undefined;
  const target = `socket:[${socket.inode}]`;
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    // No /proc listing: say what the socket table told.
  }
  for (const pid of pids.slice(0, 100_000)) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // another user's process, or gone
    }
    for (const fd of fds) {
      let link = '';
      try {
        link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (link === target) return { pid };
    }
  }
  return { owner: `a process of ${userName(socket.uid)} (uid ${socket.uid}; this system does not show its pid to you)` };
}

function userName(uid: number): string {
  try {
    const line = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[2] === String(uid));
    const name = line?.split(':')[0];
    if (name) return `user ${name}`;
  } catch {
    // No passwd file: the uid alone.
  }
  return 'another user';
}

/**
 * Linux: how many sockets listen on exactly this address and port (one per member of an
 * SO_REUSEPORT group), from /proc/net/tcp{,6}; undefined where that cannot be read.
 */
export function listenersOn(address: string, port: number): number | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const v6 = address.includes(':');
  const hexAddr = v6 ? (address === '::1' ? '00000000000000000000000001000000' : undefined) : address.split('.').reverse().map((b) => Number(b).toString(16).toUpperCase().padStart(2, '0')).join('');
  if (!hexAddr) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(v6 ? '/proc/net/tcp6' : '/proc/net/tcp', 'utf8');
  } catch {
    return undefined;
  }
  let n = 0;
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // local_address is ADDR:PORT in hex (each 32-bit word in host order); state 0A is LISTEN.
    if (f[1] === `${hexAddr}:${hexPort}` && f[3] === '0A') n++;
  }
  return n;
}
