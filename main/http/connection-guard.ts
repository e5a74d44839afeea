import type http from 'node:http';
import type { Socket } from 'node:net';

/**
 * Keeps sockets that never send a complete request from crowding out real
 * clients: at most `maxWaiting` connections may wait for their first request
 * at once; past that the longest-waiting one is dropped. A local process that
 * opens a thousand half-open sockets thus costs the hub a bounded number of
 * slots, and a real client always gets one.
 */
export function guardConnections(server: http.Server, maxWaiting: number): () => number {
  // Insertion order is arrival order, so the first entry is the longest waiting.
  const waiting = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    waiting.add(socket);
    socket.once('close', () => waiting.delete(socket));
    while (waiting.size > maxWaiting) {
      const oldest = waiting.values().next().value as Socket;
      waiting.delete(oldest);
      oldest.destroy();
    }
  });
  server.on('request', (req: http.IncomingMessage) => {
    waiting.delete(req.socket);
  });
  server.on('upgrade', (req: http.IncomingMessage) => {
    waiting.delete(req.socket);
  });
  return () => waiting.size;
}
