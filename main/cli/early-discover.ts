import { PassThrough, type Readable } from 'node:stream';
import { discoverResult } from '../mcp/server-info.js';

/** Lines longer than this are not looked at before start-up ends; they wait for the real transport. */
const MAX_EARLY_LINE = 64 * 1024;

/**
 * Reads a standalone `pincer stdio`'s input while the server is still loading
 * (the SDK, zod, SQLite and the tools take a second or more on a busy machine)
 * and answers a 2026-07-28 `server/discover` at once from the static server
 * description: the AI SDK gives that probe 1 s before it falls back to
 * initialize. Every other line is kept, in order, for the transport that
 * `handOver` returns; from then on input passes through untouched.
 */
export class EarlyDiscover {
  private readonly out = new PassThrough();
  private pending = '';
  private handedOver = false;
  private sawInput!: () => void;
  /** Settles once the first input was read (or the input ended). */
  readonly firstInput = new Promise<void>((resolve) => (this.sawInput = resolve));

  constructor(private readonly input: Readable, private readonly reply: (line: string) => void) {
    input.on('data', this.onData);
    input.once('end', () => this.finish());
    input.once('close', () => this.finish());
  }

  private onData = (chunk: Buffer | string): void => {
    this.sawInput();
    if (this.handedOver) {
      this.out.write(chunk);
      return;
    }
    this.pending += chunk.toString();
    for (let nl = this.pending.indexOf('\n'); nl >= 0; nl = this.pending.indexOf('\n')) {
      const line = this.pending.slice(0, nl + 1);
      this.pending = this.pending.slice(nl + 1);
      if (!this.answered(line)) this.out.write(line);
    }
    if (this.pending.length > MAX_EARLY_LINE) {
      this.out.write(this.pending);
      this.pending = '';
      this.handedOver = true;
    }
  };

  /** A discover request answered here, or false for anything else. */
  private answered(line: string): boolean {
    if (!line.includes('"server/discover"')) return false;
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      // Not JSON: not a discover request; the server, once loaded, answers it with a parse error.
      return false;
    }
    if (!m || typeof m !== 'object' || Array.isArray(m)) return false;
    const { jsonrpc, method, id } = m as { jsonrpc?: unknown; method?: unknown; id?: unknown };
    if (jsonrpc !== '2.0' || method !== 'server/discover' || !(typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))) return false;
    this.reply(JSON.stringify({ jsonrpc: '2.0', id, result: discoverResult() }));
    return true;
  }

  private finish(): void {
    this.sawInput();
    if (this.out.writableEnded) return;
    if (this.pending) this.out.write(this.pending);
    this.pending = '';
    this.out.end();
  }

  /** The input from here on: what waited, then everything the client sends. */
  handOver(): Readable {
    if (!this.handedOver) {
      this.handedOver = true;
      if (this.pending) this.out.write(this.pending);
      this.pending = '';
    }
    return this.out;
  }
}
