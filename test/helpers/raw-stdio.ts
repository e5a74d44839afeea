import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { PINCER_BIN, pincerEnv, WAIT_MS } from './env.js';

/** Speaks newline-delimited JSON to a spawned pincer with no SDK in between, to send what no SDK would. */
export class RawStdio {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Record<string, unknown>[] = [];
  readonly nonJsonLines: string[] = [];
  private buf = '';
  private waiters: (() => void)[] = [];
  stderr = '';

  constructor(home: string, args = ['stdio', '--standalone'], env: Record<string, string> = {}, node = process.execPath) {
    this.child = spawn(node, [PINCER_BIN, ...args], { env: pincerEnv(home, env), cwd: home });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.buf += d;
      let i;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        if (!line.trim()) continue;
        try {
          this.messages.push(JSON.parse(line));
        } catch {
          this.nonJsonLines.push(line);
        }
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr.on('data', (d: Buffer) => {
      if (this.stderr.length < 100_000) this.stderr += d.toString();
    });
  }

  send(line: string | object): void {
    this.child.stdin.write((typeof line === 'string' ? line : JSON.stringify(line)) + '\n');
  }

  async response(id: number | string, timeoutMs = WAIT_MS): Promise<Record<string, unknown>> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const m = this.messages.find((x) => x.id === id && ('result' in x || 'error' in x));
      if (m) return m;
      if (Date.now() > end) throw new Error(`no response to id ${id}; stderr: ${this.stderr.slice(-2000)}`);
      if (this.child.exitCode !== null) throw new Error(`pincer exited (${this.child.exitCode}) before answering ${id}; stderr: ${this.stderr.slice(-2000)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 100);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  async initialize(version = '2025-06-18'): Promise<Record<string, unknown>> {
    this.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const r = await this.response('init');
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }

  close(): void {
    this.child.stdin.end();
  }
}
