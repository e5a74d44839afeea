import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * Remembers the last events of one session's SSE streams so a client that
 * reconnects with Last-Event-ID gets what it missed. Bounded: the oldest
 * events fall off, and the store dies with its session. Synchronous: the
 * session transport (streamable-session.ts) stores and writes an event in
 * one step, and a session that never streams never allocates a slot.
 */
export class SessionEventStore {
  private events: { seq: number; stream: string; message: JSONRPCMessage; bytes: number }[] = [];
  private seq = 0;
  private bytes = 0;

  /** Bounded by count and by size: a session that lists big results must not hold them all. */
  constructor(private max = 1000, private maxBytes = 2 * 1024 * 1024) {}

  /** Stores one event of a stream and returns its id (`<stream>::<n>`). */
  store(streamId: string, message: JSONRPCMessage): string {
    const seq = ++this.seq;
    const bytes = approxSize(message);
    this.events.push({ seq, stream: streamId, message, bytes });
    this.bytes += bytes;
    while (this.events.length > 1 && (this.events.length > this.max || this.bytes > this.maxBytes)) this.bytes -= this.events.shift()!.bytes;
    return `${streamId}::${seq}`;
  }

  /** An id with no event behind it: the priming event that opens a resumable stream. */
  mark(streamId: string): string {
    return `${streamId}::${++this.seq}`;
  }

  /** The stream an event id belongs to, or undefined when the id is not one this store hands out. */
  streamOf(eventId: string): string | undefined {
    const i = eventId.lastIndexOf('::');
    return i > 0 && /^\d+$/.test(eventId.slice(i + 2)) ? eventId.slice(0, i) : undefined;
  }

  /** The events of the id's stream after it, oldest first. */
  after(eventId: string): { stream: string; events: { id: string; message: JSONRPCMessage }[] } | undefined {
    const stream = this.streamOf(eventId);
    if (stream === undefined) return undefined;
    const after = Number(eventId.slice(eventId.lastIndexOf('::') + 2));
    const events = this.events.filter((e) => e.stream === stream && e.seq > after).map((e) => ({ id: `${e.stream}::${e.seq}`, message: e.message }));
    return { stream, events };
  }
}

/** Roughly the serialized size, without building the string (a 1 MB result must not cost another 1 MB). */
export function approxSize(v: unknown, depth = 0): number {
  if (typeof v === 'string') return v.length + 2;
  if (v === null || typeof v !== 'object') return 8;
  if (depth > 32) return 64;
  let n = 2;
  if (Array.isArray(v)) for (const x of v) n += approxSize(x, depth + 1) + 1;
  else for (const [k, x] of Object.entries(v)) n += k.length + 4 + approxSize(x, depth + 1);
  return n;
}
