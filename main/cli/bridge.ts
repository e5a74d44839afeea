import { pidAlive } from '../core/pid.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { GuardedStdioTransport, rpcError } from '../mcp/stdio-transport.js';
import { ensureHub, readToken } from './hub-client.js';
import type { HubInfo } from '../http/lock.js';
import { configureLogging, logger } from '../core/log.js';
import { pincerPaths } from '../core/paths.js';
import { errorMessage } from '../core/errors.js';

const log = logger('bridge');
type Id = string | number;
type Msg = { id?: Id; method?: string; params?: unknown; result?: unknown; error?: unknown };

/**
 * `pincer stdio`: relays the client's stdio to the hub's /mcp, so jobs, tasks
 * and questions are shared with the dashboard and outlive the client. Every
 * message crosses unchanged, both ways. When the hub goes away, requests in
 * flight get a clear error and the bridge opens a new session on a new hub,
 * replaying the client's initialize so the client never notices.
 */
export async function runBridge(home: string): Promise<void> {
  configureLogging({ logsDir: pincerPaths(home).logsDir, fileName: 'bridge.log', stderr: true });
  const stdio = new GuardedStdioTransport();
  let hub: HubInfo | undefined;
  let http: StreamableHTTPClientTransport | undefined;
  let connecting: Promise<void> | undefined;
  let initRequest: Msg | undefined;
  let clientInitialized = false;
  const pending = new Set<Id>();
  let closed = false;
  let replayId = 0;
  let replayNeeded = false;

  const failPending = (why: string) => {
    for (const id of pending) void stdio.send(rpcError(id, -32000, why));
    pending.clear();
  };

  const connect = async (): Promise<void> => {
    hub = await ensureHub(home);
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', hub.url), {
      requestInit: { headers: { Authorization: `Bearer ${readToken(home)}` } },
      reconnectionOptions: { initialReconnectionDelay: 500, maxReconnectionDelay: 2000, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 },
    });
    transport.onmessage = (m) => {
      const msg = m as Msg;
      if (msg.method === undefined && msg.id !== undefined) {
        if (typeof msg.id === 'string' && msg.id.startsWith('__pincer_replay_')) {
          const version = (msg.result as { protocolVersion?: string } | undefined)?.protocolVersion;
          if (version) transport.setProtocolVersion(version);
          return;
        }
        pending.delete(msg.id);
        if (initRequest && msg.id === initRequest.id) {
          const version = (msg.result as { protocolVersion?: string } | undefined)?.protocolVersion;
          if (version) transport.setProtocolVersion(version);
        }
      }
      void stdio.send(m);
    };
    transport.onerror = (err) => log.debug(`hub transport: ${err.message}`);
    await transport.start();
    http = transport;
    log.info(`connected to the hub at ${hub.url}`);
    // A reconnect: open a fresh session on behalf of the client with its own initialize.
    if (replayNeeded && initRequest) {
      replayNeeded = false;
      const id = `__pincer_replay_${++replayId}`;
      await transport.send({ jsonrpc: '2.0', id, method: 'initialize', params: initRequest.params } as JSONRPCMessage);
      if (clientInitialized) await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
    }
  };

  const ensureConnected = (): Promise<void> => (http ? Promise.resolve() : (connecting ??= connect().finally(() => (connecting = undefined))));

  const hubLost = (why: string) => {
    if (!http) return;
    log.warn(`lost the hub: ${why}`);
    const old = http;
    http = undefined;
    hub = undefined;
    replayNeeded = true;
    old.onmessage = undefined;
    void old.close().catch(() => undefined);
    failPending(`Pincer: the hub went away (${why}). It is being restarted; send the request again.`);
    if (!closed) void ensureConnected().catch((err) => log.error(`reconnect failed: ${errorMessage(err)}`));
  };

  const monitor = setInterval(() => {
    if (hub && !pidAlive(hub.pid)) hubLost('the hub process exited');
  }, 1000);
  monitor.unref();

  stdio.onmessage = (message) => {
    const msg = message as Msg;
    if (msg.method === 'initialize') initRequest = msg;
    if (msg.method === 'notifications/initialized') clientInitialized = true;
    const isRequest = msg.method !== undefined && msg.id !== undefined;
    if (isRequest) pending.add(msg.id!);
    void (async () => {
      try {
        await ensureConnected();
        await http!.send(message);
      } catch (err) {
        const text = errorMessage(err);
        if (isRequest && pending.delete(msg.id!)) {
          void stdio.send(rpcError(msg.id!, -32000, `Pincer: could not reach the hub (${text}). Retrying with a new hub; send the request again.`));
        }
        hubLost(text);
      }
    })();
  };

  const shutdown = async (why: string) => {
    if (closed) return;
    closed = true;
    log.info(`bridge closing (${why})`);
    clearInterval(monitor);
    // Ends this client's session on the hub; the hub and its jobs keep running.
    await http?.terminateSession().catch(() => undefined);
    await http?.close().catch(() => undefined);
    process.exit(0);
  };
  stdio.onclose = () => void shutdown('stdin closed');
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await stdio.start();
  process.stdin.resume();
  // Start the hub right away so the first request does not pay for it.
  void ensureConnected().catch((err) => log.error(`could not start or reach the hub: ${errorMessage(err)}`));
}

