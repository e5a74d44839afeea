import type { Readable } from 'node:stream';

/** The largest message the bridge accepts from its client; longer lines are discarded without being held in memory. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

/** One framed message: its text as the client sent it, and the value it parses to. */
export interface Framed {
  text: string;
  value: unknown;
}

export interface FramerEvents {
  message(m: Framed): void;
  /** A line that cannot be forwarded; `reason` says why, in words for the client. */
  invalid(reason: string, code: -32700 | -32600): void;
  end(): void;
}

/**
 * Newline-delimited JSON framing for `pincer stdio`: splits the input into
 * lines, parses each once (to route it, never to re-validate it: the hub does
 * that) and hands over the original text so it crosses unchanged.
 */
export function frameLines(input: Readable, on: FramerEvents, maxBytes = MAX_LINE_BYTES): void {
  let chunks: Buffer[] = [];
  let size = 0;
  let discarding = false;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    on.end();
  };
  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
      if (!discarding) {
        if (size + piece.length > maxBytes) {
          discarding = true;
          chunks = [];
          size = 0;
        } else if (piece.length > 0) {
          chunks.push(piece);
          size += piece.length;
        }
      }
      if (nl < 0) return;
      start = nl + 1;
      if (discarding) {
        discarding = false;
        on.invalid(`message larger than ${maxBytes} bytes was discarded`, -32600);
        continue;
      }
      const text = (chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')).trim();
      chunks = [];
      size = 0;
      if (text === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        on.invalid(`Parse error: ${(err as Error).message}`, -32700);
        continue;
      }
      if (typeof value !== 'object' || value === null) {
        on.invalid('Invalid Request: a JSON-RPC message is an object (or an array of them)', -32600);
        continue;
      }
      on.message({ text, value });
    }
  });
  input.on('end', end);
  input.on('close', end);
  input.on('error', end);
}
