import type http from 'node:http';
import path from 'node:path';
import { pincerPaths, ensureHome, type PincerPaths } from '../core/paths.js';
import { EnvDocument } from '../core/settings/envfile.js';
import { readLiveHubFile, type HubInfo } from '../core/hub-file.js';
import { HUB_NODE_FLAGS, hubLaunchEnv } from '../core/node-flags.js';
import { describeExit, hubNode, HubStartError, startFailure } from './hub-start.js';
import { logger } from '../core/log.js';
import { rotateIfLarge } from '../core/log-file.js';
import { checkProof, newChallenge, parseSecret, readHealthAnswer } from '../core/hub-proof.js';

const log = logger('bridge');

// Builtins through getBuiltinModule: an ESM `import http from 'node:http'` reads
// every export of the builtin, and its lazy WebSocket getters load undici (~15 MB
// of RSS); node:fs likewise loads fs/promises. child_process loads only when a hub
// must be started.
const { get, request, Agent } = process.getBuiltinModule('node:http');
const fs = process.getBuiltinModule('node:fs');

// This module is on the bridge's path (`pincer stdio`), which must stay a light
// relay: it reads hub.json with the one zod-free reader (core/hub-file.ts) and the
// token without the zod schemas of core/settings,
// and talks HTTP with node:http rather than fetch, whose first use loads undici.

/** The token clients of this data directory use: AUTH_TOKEN from the environment, else from the settings file. */
export function readToken(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.AUTH_TOKEN;
  if (fromEnv !== undefined) return fromEnv.trim();
  try {
    return new EnvDocument(fs.readFileSync(pincerPaths(home).settingsFile, 'utf8')).get('AUTH_TOKEN') ?? '';
  } catch {
    // No settings file yet: no token (callers say how to get one).
    return '';
  }
}

/**
 * A hub that proved, on this connection, to be the hub of this data folder.
 * `agent` holds that one socket: requests made with it (the pipe's upgrade, with
 * the token) go over the socket the proof came on and can never open another,
 * so a process that binds the port after the proof gets nothing.
 */
export interface ProvenHub extends HubInfo {
  agent: http.Agent;
}

export type Proof =
  | { kind: 'proven'; hub: ProvenHub }
  /** Nothing listens there (the hub is gone or not up yet). */
  | { kind: 'no-answer'; reason: string }
  /** The hub is handing over: the next one is on its way. */
  | { kind: 'restarting' }
  /** Something answered that cannot prove to be this folder's hub: never trusted. */
  | { kind: 'impostor'; port: number; what: string }
  /** Something took the connection and said nothing in time: a squatter, or this folder's hub too busy to answer. Never trusted, asked again. */
  | { kind: 'silent'; port: number; waitedMs: number };

/**
 * Asks what listens at `info.url` to prove it is this data folder's hub
 * (HMAC of a fresh challenge with `hub-secret`, identity.ts). Nothing is sent
 * but the challenge: no token, no cookie, no client identity. A valid proof
 * from another pid is still this folder's hub (a new one that has not written
 * hub.json yet); its pid is what the result carries.
 */
export function proveHub(paths: PincerPaths, info: HubInfo, timeoutMs = 2000): Promise<Proof> {
  let secret: Buffer | undefined;
  try {
    secret = parseSecret(fs.readFileSync(path.join(paths.home, 'hub-secret'), 'utf8'));
  } catch {
    // No secret: nothing can prove to be this folder's hub (a hub makes it before it listens).
  }
  if (!secret) return Promise.resolve({ kind: 'no-answer', reason: 'this data folder has no hub-secret yet' });
  const agent = oneSocketAgent();
  const challenge = newChallenge();
  return new Promise<Proof>((resolve) => {
    const req = request(new URL(`/api/mcp/health?challenge=${challenge}`, info.url), { agent, timeout: timeoutMs });
    req.on('response', (res) => {
      readHealthAnswer(res, (answer) => {
        if (!answer) {
          agent.destroy();
          return resolve({ kind: 'no-answer', reason: 'the answer broke off' });
        }
        const { status, body, address } = answer;
        // The proof must cover the address this very connection reached: a relay on another port gets the real hub's proof for the hub's own address.
        const proven = checkProof(secret, challenge, body, address);
        if (proven && status === 200) return resolve({ kind: 'proven', hub: { ...info, pid: proven.pid, agent } });
        agent.destroy();
        if (status === 503) return resolve({ kind: 'restarting' });
        resolve({ kind: 'impostor', port: info.port, what: `it answered HTTP ${status || '?'} without a valid proof` });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      agent.destroy();
      // Refused: nobody listens. A timeout proves nothing either way (a loaded machine's hub can be slow to answer).
      // Anything else (a reset, not HTTP) means someone holds the port and did not prove itself.
      if (err.code === 'ECONNREFUSED' || err.message === 'the proven connection is gone') resolve({ kind: 'no-answer', reason: err.message });
      else if (err.message === 'timeout') resolve({ kind: 'silent', port: info.port, waitedMs: timeoutMs });
      else resolve({ kind: 'impostor', port: info.port, what: `it did not answer as a hub (${err.message})` });
    });
    req.end();
  });
}

/** A keep-alive agent that opens one socket in its life: a second connection attempt fails instead. */
function oneSocketAgent(): http.Agent {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const open = agent.createConnection.bind(agent);
  let opened = false;
  agent.createConnection = ((options: object, done?: (err: Error | null, socket?: unknown) => void) => {
    if (opened) {
      const err = new Error('the proven connection is gone');
      if (done) done(err);
      else throw err;
      return undefined;
    }
    opened = true;
    return open(options as never, done as never);
  }) as typeof agent.createConnection;
  return agent;
}

/** "port 7717 is held by pid 1234 (python3), which is not Pincer": who holds a port that failed the proof. */
export async function impostorMessage(paths: PincerPaths, proof: Extract<Proof, { kind: 'impostor' }>): Promise<string> {
  const { portHolder } = await import('../hub/ports.js');
  const holder = await portHolder(proof.port);
  return `port ${proof.port} is held by ${holder ?? 'a process this system does not name'}, which is not Pincer: ${proof.what}, so it cannot be the hub of ${paths.home} and nothing was sent to it. Stop that program, or set HTTP_PORT in ${paths.settingsFile} to a free port (or auto).`;
}

/** Nothing answered the identity check in time: who holds the port, and the two things it can be. */
export async function silentMessage(paths: PincerPaths, proof: Extract<Proof, { kind: 'silent' }>): Promise<string> {
  const { portHolder } = await import('../hub/ports.js');
  const holder = await portHolder(proof.port);
  return `port ${proof.port}${holder ? ` (held by ${holder})` : ''} took the connection but did not answer the identity check within ${Math.round(proof.waitedMs / 1000)} s, so nothing was sent to it. If that is the Pincer hub of ${paths.home}, it is overloaded or stuck: see ${paths.logsDir} and try again, or restart it ("pincer stop", then start your client again). If it is another program, stop it or set HTTP_PORT in ${paths.settingsFile} to a free port (or auto).`;
}

export interface EnsureHubOptions {
  timeoutMs?: number;
  cliPath?: string;
}

/**
 * What hub.json names, once it proved itself; what answered without a proof is
 * remembered (and not asked again for the same hub.json), so that a failure to
 * start can say who holds the port.
 */
class ProvenLookup {
  impostor?: Extract<Proof, { kind: 'impostor' }>;
  /** The last check that timed out; cleared by any other answer. */
  silent?: Extract<Proof, { kind: 'silent' }>;
  private refused = '';

  constructor(private readonly paths: PincerPaths) {}

  async find(timeoutMs: number): Promise<ProvenHub | undefined> {
    const info = readLiveHubFile(this.paths);
    if (!info) return undefined;
    const key = `${info.url} ${info.pid} ${info.started}`;
    if (key === this.refused) return undefined;
    const proof = await proveHub(this.paths, info, timeoutMs);
    this.silent = proof.kind === 'silent' ? proof : undefined;
    if (proof.kind === 'proven') return proof.hub;
    if (proof.kind === 'impostor') {
      this.impostor = proof;
      this.refused = key;
    }
    return undefined;
  }

  /** The failure, with who holds the port when something failed the proof there. */
  async failure(message: string, logFile: string): Promise<HubStartError> {
    if (this.silent && !this.impostor) return new HubStartError(`${await silentMessage(this.paths, this.silent)} (${message})`, logFile);
    return new HubStartError(this.impostor ? `${await impostorMessage(this.paths, this.impostor)} (${message})` : message, logFile);
  }
}

/**
 * The hub of this data directory, started detached when none runs, so that it
 * outlives the client that needed it. Waits until it answers. When the hub we
 * started exits with an error (the port is taken, a bad setting), throws at once
 * with the reason it gave instead of waiting out the deadline; when it exits
 * because another hub holds the lock, waits for that one.
 */
export async function ensureHub(home: string, opts: EnsureHubOptions = {}): Promise<ProvenHub> {
  const paths = pincerPaths(home);
  ensureHome(paths);
  // Only a hub that proves itself is used: hub.json and a live pid prove nothing (a crash, a reused pid, a squatter on the port).
  const lookup = new ProvenLookup(paths);
  const existing = await lookup.find(2000);
  if (existing) return existing;
  const cli = opts.cliPath ?? process.argv[1]!;
  const logFile = path.join(paths.logsDir, 'hub-start.log');
  const { node, note } = await hubNode(logFile);
  if (note) log.warn(note);
  // The hub's early words (before its own log is open) go here; a log folder that cannot be written costs them, not the start.
  const out = openStartLog(logFile);
  const logStart = out === 'ignore' ? 0 : fs.fstatSync(out).size;
  const { spawn } = process.getBuiltinModule('node:child_process');
  const child = spawn(node.path, [...HUB_NODE_FLAGS, cli, 'serve', '--quiet', '--if-none'], {
    detached: true,
    // Never the bridge's folder: the hub serves every client and must not run in (or read) one project.
    cwd: paths.home,
    stdio: ['ignore', out, out],
    env: hubLaunchEnv({ ...process.env, PINCER_HOME: home }),
    windowsHide: true,
  });
  child.unref();
  if (out !== 'ignore') fs.closeSync(out);
  let failedAt: number | undefined;
  let ended = '';
  child.once('exit', (code, signal) => {
    ended = describeExit(code, signal);
    // 3: another hub holds the lock (it is starting or handing over); wait for it.
    if (code !== 0 && code !== 3) failedAt = Date.now();
  });
  child.once('error', (err) => {
    ended = `could not be started with ${node.path} (${err.message})`;
    failedAt = Date.now();
  });
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // Either ours or one another bridge started at the same moment. A hub that was slow to answer is given longer each time.
    const proven = await lookup.find(lookup.silent ? Math.min(5000, Math.max(1000, deadline - Date.now())) : 1000);
    if (proven) return proven;
    // A short grace after our hub failed, in case another one is coming up.
    if (failedAt !== undefined && Date.now() - failedAt > 500) {
      throw await lookup.failure(`the Pincer hub could not start: ${startFailure(logFile, logStart, ended)}`, logFile);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw await lookup.failure(`the Pincer hub did not start within ${Math.round(timeoutMs / 1000)} s; see ${logFile} and ${path.join(paths.logsDir, 'hub.log')}`, logFile);
}

function openStartLog(file: string): number | 'ignore' {
  // Bounded like hub.log: rotated here when it is already past the size, and by the hub as it writes (serve.ts).
  rotateIfLarge(file);
  try {
    return fs.openSync(file, 'a', 0o600);
  } catch {
    return 'ignore'; // a read-only or full log folder: the hub starts without its start log (startFailure then says less)
  }
}
