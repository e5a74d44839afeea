import type http from 'node:http';
import type { Socket } from 'node:net';

/**
 * Keeps sockets that never send a complete request from crowding out real
 * clients. When more than `maxWaiting` connections wait for their first
 * request, those that have waited longer than `staleMs` (a real client sends
 * its request within milliseconds) are dropped, longest-waiting first. A
 * local process that holds a thousand half-open sockets thus costs the hub a
 * bounded number of slots, while a burst of real clients is never cut. A
 * keep-alive socket waits again between its requests.
 *
 * At `server.maxConnections` Node closes each new socket unseen (no 'connection', only 'drop'), so the
 * trim above never runs: a burst of idle sockets opened within `staleMs` would lock every real client
 * out until the sockets time out. So the guard keeps `dropBatch` slots below the cap: a newcomer past
 * them takes the place of the longest-waiting socket (half-open first, then idle between requests)
 * whatever its age, and on 'drop' `dropBatch` of them go, so the next client gets a slot.
 */
export function guardConnections(server: http.Server, maxWaiting: number, staleMs = 1000, dropBatch = 8): () => number {
  // Insertion order is arrival order, so iteration starts with the longest waiting.
  // `read`: for a keep-alive socket between requests, its bytesRead when its answer went out. Until it
  // sends more it is idle, and keepAliveTimeout (not this guard) closes it: a real client's pooled
  // connection is never cut by the trim (only on 'drop', last); one holding part of its next request is.
  const waiting = new Map<Socket, { since: number; read?: number }>();
  // `cap`: the guard's own limit, kept below server.maxConnections so that a newcomer at the limit
  // takes a waiting socket's place instead of being refused by Node unseen.
  const cap = Math.max(1, (server.maxConnections || Infinity) - dropBatch);
  let open = 0;
  server.on('connection', (socket: Socket) => {
    const now = Date.now();
    open++;
    waiting.set(socket, { since: now });
    socket.once('close', () => {
      open--;
      waiting.delete(socket);
    });
    if (open > cap) evict(1, socket);
    trim(now);
  });
  server.on('drop', () => evict(dropBatch));
  // Sockets holding part of a request go first; a real client's pooled idle connection only when
  // nothing else is left (cutting it can race the client's next request on it).
  function evict(count: number, newcomer?: Socket): void {
    const isIdle = (s: Socket, read?: number) => read !== undefined && s.bytesRead === read;
    let freed = 0;
    for (const idlePass of [false, true]) {
      for (const [old, { read }] of waiting) {
        if (freed >= count) return;
        if (old === newcomer || old.destroyed || isIdle(old, read) !== idlePass) continue;
        waiting.delete(old);
        old.destroy();
        freed++;
      }
    }
  }
  function trim(now: number): void {
    if (waiting.size <= maxWaiting) return;
    for (const [old, { since, read }] of waiting) {
      if (waiting.size <= maxWaiting || now - since < staleMs) break;
      if (read !== undefined && old.bytesRead === read) continue;
      waiting.delete(old);
      old.destroy();
    }
  }
  const started = (req: http.IncomingMessage) => void waiting.delete(req.socket);
  // A keep-alive socket between two requests waits again, from the moment its answer went out: one
  // that sends half of its next request holds a slot as much as one that never sent a first.
  const answered = (req: http.IncomingMessage, res: http.ServerResponse) => {
    started(req);
    res.once('finish', () => {
      const socket = req.socket;
      if (socket.destroyed || !res.shouldKeepAlive) return;
      waiting.set(socket, { since: Date.now(), read: socket.bytesRead });
    });
  };
  server.on('request', answered);
  server.on('upgrade', started);
  server.on('checkContinue', answered);
  return () => waiting.size;
}
