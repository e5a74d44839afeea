import type { JSONRPCMessage } from '@modelcontextprotocol/server';

interface EventStore {
  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string>;
  getStreamIdForEventId?(eventId: string): Promise<string | undefined>;
  replayEventsAfter(lastEventId: string, opts: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string>;
}

/**
 * Remembers the last events of one session's SSE streams so a client that
 * reconnects with Last-Event-ID gets what it missed. Bounded: the oldest
 * events fall off, and the store dies with its session.
 */
export class SessionEventStore implements EventStore {
  private events: { id: string; stream: string; message: JSONRPCMessage; bytes: number }[] = [];
  private seq = 0;
  private bytes = 0;

  /** Bounded by count and by size: a session that lists big results must not hold them all. */
  constructor(private max = 1000, private maxBytes = 2 * 1024 * 1024) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}::${++this.seq}`;
    const bytes = approxSize(message);
    this.events.push({ id, stream: streamId, message, bytes });
    this.bytes += bytes;
    while (this.events.length > 1 && (this.events.length > this.max || this.bytes > this.maxBytes)) this.bytes -= this.events.shift()!.bytes;
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const i = eventId.lastIndexOf('::');
    return i > 0 ? eventId.slice(0, i) : undefined;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const stream = (await this.getStreamIdForEventId(lastEventId)) ?? '';
    const after = Number(lastEventId.slice(lastEventId.lastIndexOf('::') + 2));
    for (const e of this.events) {
      if (e.stream === stream && Number(e.id.slice(e.id.lastIndexOf('::') + 2)) > after) await send(e.id, e.message);
    }
    return stream;
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
