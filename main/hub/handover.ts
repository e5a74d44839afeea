import type http from 'node:http';
import type { HubEvent } from '../tools/events.js';
import type { EventBus } from '../calls/event-bus.js';
import { HandoverRequest, handoverSigned } from './identity.js';
import type { HubRole } from './lock.js';
import { pidAlive } from '../core/pid.js';
import { logger } from '../core/log.js';
import { HTTP_STATUS, RPC_REFUSALS, errorBody, rpcErrorBody, type HandoverErrorCode } from '../core/wire-errors.js';
import type { Refusal } from '../access/security.js';
import { HEALTH_PATH } from '../http/health-route.js';
import { HELLO_PATH } from '../http/dashboard/sign-ins.js';

const log = logger('handover');

export const HANDOVER_PATH = '/api/hub/handover';
export const RESTARTING_MESSAGE = 'Pincer is restarting, send the request again.';
/** How far a signed request's clock may be off; older ones are refused as replays. */
const MAX_SKEW_MS = 60_000;
/** A call waiting for a person's answer does not end on its own; the handover does not wait for it. */
const WAITS_FOR_A_PERSON = new Set(['AskUserQuestion']);


export interface HandoverTo {
  pid: number;
  role: HubRole;
  /** The newcomer already listens on the port beside this hub (HandoverRequest.shared). */
  shared: boolean;
}

export interface HandoverGateOptions {
  secret: Buffer;
  role: HubRole;
  events: EventBus;
  graceMs: number;
  port: () => number;
  /** The hub's Host/Origin guard: a web page must not be able to ask either. */
  refuse: (req: http.IncomingMessage) => Refusal | undefined;
  onHandover: (to: HandoverTo) => void;
  /** A signed stop request (`pincer stop`): drain like a handover, then stop. */
  onStop: (by: number) => void;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...(close ? { Connection: 'close' } : {}) });
  res.end(text);
}

function fail(res: http.ServerResponse, code: HandoverErrorCode | 'TOO_LARGE', message: string, close = false): void {
  sendJson(res, HTTP_STATUS[code], errorBody(code, message), close);
}

/**
 * The hub's side of a handover. Wraps the request handler: answers the signed
 * handover request, and while handing over refuses new work with "Pincer is
 * restarting" (503) so that a bridge retries against the next hub, counts
 * the tool calls still in flight, and lets them finish within the grace period.
 */
export class HandoverGate {
  private draining = false;
  private servesToTheEnd = false;
  private inFlight = new Map<string, string>();
  /** Requests other than GET still open: a finished call's answer is on its way until its response ends. */
  private openRequests = 0;
  private nonces = new Map<string, number>();
  /** When the grace period ends: set by the first drain, so that a second look (once open connections closed) waits only for what is left of it. */
  private graceEnds?: number;
  private idle?: () => void;
  private unsubscribe: () => void;

  constructor(private opts: HandoverGateOptions) {
    this.unsubscribe = opts.events.subscribe(this.track);
  }

  private track = (e: HubEvent) => {
    if (e.type === 'tool_call_started') this.inFlight.set(e.id, e.tool);
    else if (e.type === 'tool_call_finished') {
      this.inFlight.delete(e.id);
      this.checkIdle();
    }
  };

  private callsThatMustFinish(): number {
    let n = 0;
    for (const tool of this.inFlight.values()) if (!WAITS_FOR_A_PERSON.has(tool)) n++;
    return n;
  }

  /** Idle: no call that can end on its own is running, and every other open request is one waiting for a person. */
  private isIdle(): boolean {
    return this.callsThatMustFinish() === 0 && this.openRequests <= this.inFlight.size;
  }

  private checkIdle(): void {
    if (this.isIdle()) this.idle?.();
  }

  get handingOver(): boolean {
    return this.draining;
  }

  handler(next: http.RequestListener): http.RequestListener {
    return (req, res) => {
      const pathname = (req.url ?? '/').split('?')[0];
      if (pathname === HANDOVER_PATH && req.method === 'POST') {
        this.handle(req, res).catch((err: unknown) => {
          log.warn(`handover request failed: ${err instanceof Error ? err.message : String(err)}`, { err });
          if (!res.headersSent) fail(res, 'HANDOVER_REFUSED', 'The handover request could not be handled; see hub.log.');
        });
        return;
      }
      // Health says "restarting" so that bridges and verifiers look for the next hub, and a dashboard
      // proves no hub that is going away (its next request would go to whoever takes the port).
      const work = pathname !== HEALTH_PATH && pathname !== HELLO_PATH;
      if (this.draining && (!work || (req.method !== 'GET' && req.method !== 'HEAD')) && !(work && this.servesToTheEnd)) {
        const { code, status } = RPC_REFUSALS.UNAVAILABLE;
        sendJson(res, status, { ...rpcErrorBody(code, RESTARTING_MESSAGE), status: 'restarting' }, true);
        req.resume();
        return;
      }
      // The newcomer takes every new connection: this one carries its request and closes.
      if (this.draining) res.setHeader('Connection', 'close');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        this.openRequests++;
        res.once('close', () => {
          this.openRequests--;
          this.checkIdle();
        });
      }
      next(req, res);
    };
  }

  /** For the WebSocket upgrade: no new connections while handing over. */
  upgradeRefusal(): Refusal | undefined {
    return this.draining ? { refusal: 'UNAVAILABLE', message: RESTARTING_MESSAGE } : undefined;
  }

  /** From now on new calls, upgrades and dashboard proofs are answered "restarting" (a hub that closes). */
  refuseNew(): void {
    this.draining = true;
    this.servesToTheEnd = false;
  }

  /**
   * A handover to a newcomer that listens beside this hub (HandoverTo.shared): it takes every new
   * connection, so calls reaching this hub on connections already open are served rather than sent
   * away, each connection closing after its answer, until the drain ends.
   */
  serveToTheEnd(): void {
    this.servesToTheEnd = true;
  }

  /** Stops taking new calls and waits for those in flight, at most the grace period (counted from the first drain). */
  async drain(): Promise<{ unfinished: number }> {
    this.draining = true;
    this.graceEnds ??= Date.now() + this.opts.graceMs;
    const left = this.graceEnds - Date.now();
    if (!this.isIdle() && left > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.idle = undefined;
    return { unfinished: this.callsThatMustFinish() };
  }

  close(): void {
    this.unsubscribe();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const refused = this.opts.refuse(req);
    if (refused) {
      req.resume();
      // A web page or a foreign Host: refused as every route refuses it (access/security.ts).
      const { code, status } = RPC_REFUSALS[refused.refusal];
      sendJson(res, status, rpcErrorBody(code, refused.message));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > 4096) {
        fail(res, 'TOO_LARGE', 'A handover request is a small JSON object (at most 4 KB).', true);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    }
    let json: unknown;
    try {
      json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      fail(res, 'HANDOVER_BAD_REQUEST', 'The handover request body is not JSON.');
      return;
    }
    const parsed = HandoverRequest.safeParse(json);
    if (!parsed.success) {
      fail(res, 'HANDOVER_BAD_REQUEST', `The handover request is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}.`);
      return;
    }
    const r = parsed.data;
    if (!handoverSigned(this.opts.secret, r)) {
      fail(res, 'HANDOVER_NOT_SIGNED', "The handover request is not signed with this data folder's hub-secret; only Pincer of the same user and PINCER_HOME can take over.");
      return;
    }
    const now = Date.now();
    for (const [n, at] of this.nonces) if (now - at > 2 * MAX_SKEW_MS) this.nonces.delete(n);
    if (Math.abs(now - r.at) > MAX_SKEW_MS || this.nonces.has(r.nonce)) {
      fail(res, 'HANDOVER_REPLAYED', 'The handover request is stale or was already used; send a fresh one.');
      return;
    }
    this.nonces.set(r.nonce, now);
    if (this.draining) {
      fail(res, 'HANDOVER_IN_PROGRESS', 'This hub is already handing over; wait for it to exit.');
      return;
    }
    if (r.stop) {
      log.info(`asked to stop by pid ${r.pid}`);
      sendJson(res, 202, { success: true, stopping: true, graceMs: this.opts.graceMs });
      setImmediate(() => this.opts.onStop(r.pid));
      return;
    }
    if (this.opts.role === 'desktop' && !r.force) {
      fail(res, 'TRAY_OWNS_HUB', 'The Pincer tray app runs this hub; a headless hub does not take over from it. Use it, quit the tray app, or take over with "pincer serve --takeover".');
      return;
    }
    if (!pidAlive(r.pid)) {
      fail(res, 'HANDOVER_BAD_REQUEST', `Process ${r.pid} asking to take over is not running.`);
      return;
    }
    log.info(`handing over to pid ${r.pid} (${r.role})`);
    sendJson(res, 202, { success: true, accepted: true, port: this.opts.port(), graceMs: this.opts.graceMs });
    setImmediate(() => this.opts.onHandover({ pid: r.pid, role: r.role, shared: r.shared === true }));
  }
}
