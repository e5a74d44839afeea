/**
 * The one line framer of newline-delimited JSON-RPC (ARCHITECTURE §2): standalone stdio's
 * transport and the bridge both split their input with it, so both follow one set of rules —
 * a message ends at `\n`; surrounding whitespace (a `\r` of CRLF input) is dropped; blank lines
 * are skipped; a line past `maxBytes` is discarded as it streams in, never held in memory, and
 * reported once when its end arrives. No imports: the bridge loads it and stays light.
 */

/** The largest message accepted on stdio; longer lines are discarded without being held. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

export interface LineEvents {
  /** One complete line, decoded as UTF-8 and trimmed; never empty. */
  line(text: string): void;
  /** A line longer than the limit ended; its bytes were dropped. */
  oversize(maxBytes: number): void;
}

export class LineFramer {
  private chunks: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly on: LineEvents,
    readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  /** Feeds one chunk of input; calls `line`/`oversize` for every line it completes. */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
      if (!this.discarding) {
        if (this.size + piece.length > this.maxBytes) {
          this.discarding = true;
          this.chunks = [];
          this.size = 0;
        } else if (piece.length > 0) {
          this.chunks.push(piece);
          this.size += piece.length;
        }
      }
      if (nl < 0) return;
      start = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        this.on.oversize(this.maxBytes);
        continue;
      }
      const text = (this.chunks.length === 1 ? this.chunks[0]!.toString('utf8') : Buffer.concat(this.chunks).toString('utf8')).trim();
      this.chunks = [];
      this.size = 0;
      if (text !== '') this.on.line(text);
    }
  }
}
