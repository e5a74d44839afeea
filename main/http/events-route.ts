import type { Request, Response } from 'express';
import type { HubEvent } from '../tools/events.js';
import type { EventBus } from '../calls/event-bus.js';
import type { SessionTable } from '../access/mcp-sessions.js';
import { sendRpcError } from '../access/respond.js';

/** `GET /api/mcp/connect`: the hub's live events as SSE, for dashboards and scripts. */
export function eventsRoute(bus: EventBus, sessions: SessionTable, heartbeatMs = 15_000) {
  /** Each open stream, with what ends it: unsubscribed at once, so no event is written after its end. */
  const open = new Map<Response, () => void>();
  const handler = (req: Request, res: Response) => {
    if (!sessions.hasStreamRoom()) {
      sendRpcError(res, 'UNAVAILABLE', 'Too many open streams: the hub is at MAX_STREAMS. Close unused dashboards or raise MAX_STREAMS.');
      return;
    }
    const done = sessions.openStream();
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    // Events of one turn of the event loop go out in one write: a busy client's calls are two events each,
    // and a write (a syscall, a packet, a read in the page) per event cost the other clients of the hub's thread.
    let queued: string[] = [];
    const flush = () => {
      if (queued.length === 0) return;
      const chunk = queued.join('');
      queued = [];
      // A stream its client closed meanwhile takes nothing more.
      if (!res.writableEnded && !res.destroyed) res.write(chunk);
    };
    const write = (e: HubEvent | Record<string, unknown>) => {
      if (queued.push(`data: ${JSON.stringify(e)}\n\n`) === 1) setImmediate(flush);
    };
    res.write(`data: ${JSON.stringify({ type: 'connected', message: 'Pincer hub event stream', timestamp: Date.now() })}\n\n`);
    const unsubscribe = bus.subscribe(write);
    const beat = setInterval(() => write({ type: 'ping', timestamp: Date.now() }), heartbeatMs);
    beat.unref();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(beat);
      unsubscribe();
      open.delete(res);
      done();
    };
    open.set(res, () => {
      end();
      flush();
      res.end();
    });
    req.on('close', end);
  };
  /** Ends every open stream (the token they were opened with was rotated, or the hub stops). */
  const closeAll = () => {
    for (const close of [...open.values()]) close();
  };
  return { handler, closeAll };
}
