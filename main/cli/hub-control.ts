import { pidAlive } from '../core/pid.js';
import type { PincerPaths } from '../core/paths.js';
import { hubLockHeld, readHubFile, type HubInfo } from '../hub/lock.js';
import crypto from 'node:crypto';
import { verifyHub, homeSecret, signHandover, type Verification } from '../hub/identity.js';
import { HANDOVER_PATH } from '../hub/handover.js';
import { detailsAsker, newChallenge } from '../core/hub-proof.js';

const REASONS: Record<Exclude<Verification, { ok: true }>['reason'], string> = {
  'no-secret': 'this data folder has no hub-secret yet, so nothing can prove to be its hub',
  'no-answer': 'nothing answers at its address',
  restarting: 'it is handing over to a new hub',
  'not-this-home': 'what answers there is not the hub of this data folder',
  'other-pid': 'the hub answering there has a different pid',
};

type NotRunning = { recorded?: HubInfo; why?: string; reason?: Exclude<Verification, { ok: true }>['reason'] };
type Found = { state: 'running'; info: HubInfo; role: HubInfo['role'] } | ({ state: 'none' } & NotRunning) | ({ state: 'unverified' } & NotRunning);

/** What runs for this home, verified: hub.json alone proves nothing after a crash and a reused pid. */
export async function findHub(paths: PincerPaths): Promise<Found> {
  const recorded = readHubFile(paths);
  if (recorded) {
    const v = await verifyHub(paths, recorded);
    if (v.ok) return { state: 'running', info: recorded, role: v.role };
    return { state: hubLockHeld(paths) ? 'unverified' : 'none', recorded, why: REASONS[v.reason], reason: v.reason };
  }
  return { state: hubLockHeld(paths) ? 'unverified' : 'none' };
}

/** "port 7717 is held by pid N (name), which is not Pincer" when what answers at hub.json's address failed the proof. */
export async function squatterNote(found: Found): Promise<string | undefined> {
  if (found.state === 'running' || !found.recorded || found.reason !== 'not-this-home') return undefined;
  const { portHolder } = await import('../hub/ports.js');
  const holder = await portHolder(found.recorded.port);
  return `port ${found.recorded.port} is held by ${holder ?? 'a process this system does not name'}, which is not Pincer (it cannot prove to be the hub of this data folder; nothing was sent to it)`;
}

const roleName = (role: HubInfo['role']) => (role === 'desktop' ? 'the tray app' : 'headless');

/** `pincer status`: 0 when this home's hub runs and proves it. */
export async function runStatus(paths: PincerPaths): Promise<number> {
  const found = await findHub(paths);
  if (found.state === 'running') {
    const { info } = found;
    // Its proof covered this very address (findHub), so it may be asked with what proves hub-secret.
    const h = await healthDetails(paths, info);
    process.stdout.write(
      `Pincer hub ${info.version} at ${info.url} (pid ${info.pid}, ${roleName(found.role)}, since ${info.started}), ${h.sessions ?? '?'} session(s), ${h.toolsCount ?? '?'} tool(s)${h.paused ? ', serving PAUSED' : ''}\n`,
    );
    return 0;
  }
  const squatter = await squatterNote(found);
  if (squatter) process.stdout.write(`Warning: ${squatter}.\n`);
  if (found.state === 'unverified') {
    process.stdout.write(`A Pincer process holds the lock of ${paths.home} but does not answer as its hub${found.recorded ? ` at ${found.recorded.url}` : ''}${found.why ? ` (${found.why})` : ''}. It may be starting or handing over; try again in a moment.\n`);
    return 1;
  }
  const leftover = found.recorded ? ` (hub.json is left over from pid ${found.recorded.pid}${pidAlive(found.recorded.pid) ? ', now a different process' : ''})` : '';
  const taken = squatter ? undefined : await portTakenNote(paths);
  process.stdout.write(`No Pincer hub runs for ${paths.home}${leftover}. ${taken ?? 'Start one with "pincer serve".'}\n`);
  return 1;
}

/** What health tells a probe that proves it reads hub-secret (health-route.ts): sessions, tools, paused. Nothing on any failure. */
async function healthDetails(paths: PincerPaths, info: HubInfo): Promise<{ sessions?: number; toolsCount?: number; paused?: boolean }> {
  const secret = homeSecret(paths);
  if (!secret) return {};
  const challenge = newChallenge();
  try {
    const res = await fetch(`${info.url}/api/mcp/health?challenge=${challenge}&asker=${detailsAsker(secret, challenge)}`, { signal: AbortSignal.timeout(5000) });
    return (await res.json()) as { sessions?: number; toolsCount?: number; paused?: boolean };
  } catch {
    // The counts are a courtesy: the hub proved itself above; "?" stands for what it did not say now.
    return {};
  }
}

/**
 * With no hub of this folder running, what holds the port a new hub would take (HTTP_PORT), named: a
 * "pincer serve" would fail there. Undefined when the port is free, or `auto` (a hub then takes the next one).
 */
async function portTakenNote(paths: PincerPaths): Promise<string | undefined> {
  const { Settings } = await import('../core/settings/settings.js');
  const port = new Settings({ userFile: paths.settingsFile }).get('HTTP_PORT');
  if (port === 'auto') return undefined;
  const { portHolder } = await import('../hub/ports.js');
  const holder = await portHolder(port);
  if (!holder) return undefined;
  return `Port ${port} (HTTP_PORT), where its hub would listen, is held by ${holder}, which is not this data folder's hub: "pincer serve" would fail. Stop that program, or set HTTP_PORT to a free port (or HTTP_PORT=auto) in ${paths.settingsFile}.`;
}

/**
 * `pincer stop`: signals only a process that proved to be this home's hub,
 * then waits until the lock is free. A pid in a left-over hub.json is never
 * signalled: after a crash it may be anyone's process.
 */
export async function runStop(paths: PincerPaths): Promise<number> {
  const found = await findHub(paths);
  if (found.state === 'none') {
    process.stdout.write(`No Pincer hub is running for ${paths.home}${found.recorded ? `; hub.json named pid ${found.recorded.pid}, which is not its hub (${found.why}), and was left alone` : ''}.\n`);
    return 0;
  }
  if (found.state === 'unverified') {
    process.stderr.write(`pincer stop: a Pincer process holds the lock of ${paths.home} but does not prove to be its hub${found.why ? ` (${found.why})` : ''}; nothing was signalled. Try again in a moment; if it is stuck, end the Pincer process yourself.\n`);
    return 1;
  }
  const { info } = found;
  const asked = await askToStop(paths, info);
  if (asked !== true) {
    // A hub that did not accept the stop request (no answer within 5 s, a refusal): on POSIX SIGTERM drains it alike; it proved who it is above.
    if (process.platform === 'win32') {
      process.stderr.write(`pincer stop: the hub (pid ${info.pid}) did not accept the stop request (${asked}); nothing was signalled. Quit it from the tray, or end it in Task Manager.\n`);
      return 1;
    }
    process.kill(info.pid, 'SIGTERM');
  }
  // In-flight calls get the hub's grace period (10 s), then closing takes a moment.
  for (let i = 0; i < 250 && hubLockHeld(paths); i++) await new Promise((r) => setTimeout(r, 100));
  if (hubLockHeld(paths)) {
    process.stderr.write(`pincer stop: asked the hub (pid ${info.pid}) to stop, but it still holds the lock after 25 s.\n`);
    return 1;
  }
  process.stdout.write(`Stopped the Pincer hub (pid ${info.pid}, ${roleName(found.role)}). Background jobs keep running.\n`);
  return 0;
}

/** The signed stop request (ARCHITECTURE §1): true when the hub accepted it, else why not. */
async function askToStop(paths: PincerPaths, info: HubInfo): Promise<true | string> {
  const secret = homeSecret(paths);
  if (!secret) return 'no hub-secret';
  const body = signHandover(secret, { pid: process.pid, role: 'headless', force: false, stop: true, nonce: crypto.randomBytes(24).toString('base64url'), at: Date.now() });
  try {
    const res = await fetch(`${info.url}${HANDOVER_PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
    if (res.status === 202) return true;
    const answer = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
    return answer.error?.message ?? `HTTP ${res.status}`;
  } catch (err) {
    return (err as Error).message;
  }
}
