import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/server';
import { servePipe } from './pipe-connection.js';
import { TaskListens, type TaskListenSource } from './task-listen.js';
import { clientHandleFrom, type ClientHandle } from '../mcp/client-identity.js';
import type { SessionTable } from '../access/mcp-sessions.js';
import { DisposableStore } from '../core/disposables.js';
import { refuseUpgrade, type Refusal } from '../access/security.js';
import { GOODBYE_HEADER, MAX_MESSAGE_HEADER, PIPE_PATH, PIPE_PROTOCOL } from '../core/pipe-protocol.js';
import { ignoreFailure, logger } from '../core/log.js';

const log = logger('pipe');


export interface PipeDeps {
  sessions: SessionTable;
  newServer: (client: ClientHandle) => McpServer;
  /** The same checks as /mcp (handover gate, Host/Origin, token) and room for one more session and stream; a refusal, or undefined. */
  authorize: (req: http.IncomingMessage) => Refusal | undefined;
  /** While the hub hands over: the message new requests on open pipes are refused with. */
  refusal: () => string | undefined;
  maxMessageBytes: () => number;
  /** MCP tasks, for `subscriptions/listen` with taskIds on a pipe (task-listen-wire.ts). */
  tasks: TaskListenSource;
}

/**
 * `GET /mcp/pipe` with `Upgrade: pincer-jsonrpc`: the bridge's channel. After
 * `101 Switching Protocols` the socket carries what stdio carries, served by
 * the same SDK entry as `pincer stdio --standalone`, so a call through the
 * bridge costs one write and one read of each line instead of an HTTP
 * request, an SSE answer and their parsing on both sides. Authorised like
 * /mcp, counted as a session (transport `bridge`) and a stream, closed by
 * token rotation and shutdown with the other sessions.
 */
export class PipeEndpoint {
  /** Task-status listens on every pipe: register its peer with the Notifier, close it when the hub stops. */
  readonly taskListens: TaskListens;

  constructor(private readonly deps: PipeDeps) {
    this.taskListens = new TaskListens(deps.tasks);
  }

  /** Handles the upgrade when it is addressed here; false leaves it to other handlers. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if ((req.url ?? '/').split('?')[0] !== PIPE_PATH) return false;
    const wanted = String(req.headers.upgrade ?? '').toLowerCase();
    if (req.method !== 'GET' || wanted !== PIPE_PROTOCOL) {
      refuseUpgrade(socket, 'UPGRADE_REQUIRED', `${PIPE_PATH} is the bridge's channel: GET with "Connection: Upgrade" and "Upgrade: ${PIPE_PROTOCOL}".`);
      return true;
    }
    const refused = this.deps.authorize(req);
    if (refused) {
      refuseUpgrade(socket, refused.refusal, refused.message);
      return true;
    }
    // The size limit travels with the answer, so the bridge can refuse an oversize request with its id.
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${PIPE_PROTOCOL}\r\nConnection: Upgrade\r\n${MAX_MESSAGE_HEADER}: ${this.deps.maxMessageBytes()}\r\n\r\n`);
    if (head.length > 0) socket.unshift(head);
    this.serve(socket, clientHandleFrom(req.headers), req.headers[GOODBYE_HEADER.toLowerCase()] === '1');
    return true;
  }

  private serve(socket: Duplex, client: ClientHandle, goodbye: boolean): void {
    const id = randomUUID();
    const { sessions } = this.deps;
    // One small line each way per call: no Nagle delay on either.
    if ('setNoDelay' in socket && typeof socket.setNoDelay === 'function') socket.setNoDelay(true);
    // The session row needs its server from the start (MAX_SESSIONS counts it now); the
    // first instance the SDK entry asks for is this one, a later one (after a probe) replaces it.
    const initial = this.deps.newServer(client);
    let first: McpServer | undefined = initial;
    const lifetime = new DisposableStore('a pipe connection', log);
    // Released with the pipe; the server's close only drops handlers once its transport is gone.
    lifetime.add(() => void initial.close().catch(ignoreFailure(log, "closing a pipe's first server")));
    const pipe = servePipe({
      socket,
      factory: () => {
        const server = first ?? this.deps.newServer(client);
        first = undefined;
        const record = sessions.get(id);
        if (record) record.server = server;
        if (server !== initial) lifetime.add(() => void server.close().catch(ignoreFailure(log, "closing a pipe's server"))); // as for the initial server above
        return server;
      },
      maxMessageBytes: this.deps.maxMessageBytes(),
      refusal: this.deps.refusal,
      taskListens: this.taskListens,
      // The bridge names its client (X-Pincer-Client); a pipe that does not has no identity its listens could follow.
      requestor: client.id ? `client:${client.id}` : `pipe:${id}`,
      goodbye,
      onerror: (err) => log.debug(`pipe ${id}: ${err.message.slice(0, 300)}`),
    });
    lifetime.add(sessions.openStream());
    sessions.open({ id, transport: 'bridge', server: initial, streams: 1, close: () => pipe.close() });
    lifetime.add(() => sessions.remove(id));
    void pipe.closed.then(() => lifetime.dispose());
  }
}
