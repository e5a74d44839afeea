import http from 'node:http';
import type { Socket } from 'node:net';
import { sleep, WAIT_MS } from './env.js';

export type PipeAttempt = { status: 101; pipe: RawPipe } | { status: number; body: string; headers: http.IncomingHttpHeaders };

/** Asks the hub for its bridge pipe (`GET /mcp/pipe`, `Upgrade: pincer-jsonrpc` unless overridden) with exactly these headers. */
export function openRawPipe(url: string, headers: Record<string, string>, method = 'GET', path = '/mcp/pipe'): Promise<PipeAttempt> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { method, agent: false, headers: { connection: 'Upgrade', upgrade: 'pincer-jsonrpc', ...headers } });
    req.on('upgrade', (_res, socket, head) => resolve({ status: 101, pipe: new RawPipe(socket, head) }));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Newline-delimited JSON-RPC over an upgraded socket, as the bridge speaks it, without the bridge. */
export class RawPipe {
  readonly messages: Record<string, unknown>[] = [];
  private buf = '';
  private waiters: (() => void)[] = [];
  closed = false;

  constructor(
    readonly socket: Socket,
    head: Buffer,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => this.take(d));
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
    if (head.length > 0) this.take(head.toString('utf8'));
  }

  private take(d: string): void {
    this.buf += d;
    let i;
    while ((i = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      if (line.trim()) this.messages.push(JSON.parse(line) as Record<string, unknown>);
    }
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  send(line: string | object): void {
    this.socket.write((typeof line === 'string' ? line : JSON.stringify(line)) + '\n');
  }

  /** The first message matching `match`, waiting up to `timeoutMs` for it. */
  async next(match: (m: Record<string, unknown>) => boolean, what: string, timeoutMs = WAIT_MS): Promise<Record<string, unknown>> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const m = this.messages.find(match);
      if (m) return m;
      if (this.closed) throw new Error(`the pipe closed before ${what}; got ${JSON.stringify(this.messages).slice(0, 2000)}`);
      if (Date.now() > end) throw new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(this.messages).slice(0, 2000)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 100);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  response(id: number | string, timeoutMs?: number): Promise<Record<string, unknown>> {
    return this.next((m) => m.id === id && ('result' in m || 'error' in m), `an answer to ${JSON.stringify(id)}`, timeoutMs);
  }

  async initialize(name = 'raw-pipe', version = '2025-11-25'): Promise<Record<string, unknown>> {
    this.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name, version: '1' } } });
    const r = await this.response('init');
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }

  /** Waits until the hub has closed the connection. */
  async whenClosed(what: string, timeoutMs = WAIT_MS): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > end) throw new Error(`the pipe stayed open: ${what}`);
      await sleep(50);
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
