import type { Readable } from 'node:stream';
import { LineFramer, MAX_LINE_BYTES } from '../../transports/line-framer.js';
import { RPC } from '../../core/wire-errors.js';

/** One framed message: its text as the client sent it, and the value it parses to. */
export interface Framed {
  text: string;
  value: unknown;
}

export interface FramerEvents {
  message(m: Framed): void;
  /** A line that cannot be forwarded; `reason` says why, in words for the client. */
  invalid(reason: string, code: typeof RPC.ParseError | typeof RPC.InvalidRequest): void;
  end(): void;
}

/**
 * Newline-delimited JSON framing for `pincer stdio`: splits the input into
 * lines with the one line framer (transports/line-framer.ts), parses each once (to route it, never to re-validate it: the hub does
 * that) and hands over the original text so it crosses unchanged.
 */
export function frameLines(input: Readable, on: FramerEvents, maxBytes = MAX_LINE_BYTES): void {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    on.end();
  };
  const framer = new LineFramer(
    {
      oversize: (max) => on.invalid(`message larger than ${max} bytes was discarded`, RPC.InvalidRequest),
      line: (text) => {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (err) {
          on.invalid(`Parse error: ${(err as Error).message}`, RPC.ParseError);
          return;
        }
        if (typeof value !== 'object' || value === null) {
          on.invalid('Invalid Request: a JSON-RPC message is an object (or an array of them)', RPC.InvalidRequest);
          return;
        }
        on.message({ text, value });
      },
    },
    maxBytes,
  );
  input.on('data', (chunk: Buffer) => framer.push(chunk));
  input.on('end', end);
  input.on('close', end);
  input.on('error', end);
}
