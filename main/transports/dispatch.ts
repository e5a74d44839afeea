import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type McpServer } from '@modelcontextprotocol/server';
import { RPC } from '../core/wire-errors.js';
import { VERSION } from '../core/version.js';
import { SERVER_INSTRUCTIONS, SERVER_CAPABILITIES } from '../mcp/server.js';
import { directSession, type DirectTransport } from './direct.js';
import { classifyValue, rpcError } from './stdio-transport.js';
import type { ToolGroup } from '../tools/types.js';
import type { ClientHandle } from '../mcp/client-identity.js';
import { ignoreFailure, logger } from '../core/log.js';

const log = logger('direct');

/** Servers kept for callers that named themselves or their folder; the oldest is closed past this. */
const MAX_CLIENT_SESSIONS = 64;

/**
 * Session-less JSON-RPC for scripts and the compatibility routes: one
 * long-lived server instance per tool group, shared by all callers.
 */
export class Dispatcher {
  private sessions = new Map<string, Promise<DirectTransport>>();

  constructor(private newServer: (group?: ToolGroup, client?: ClientHandle) => McpServer) {}

  /**
   * One server per group, and per client identity and folder when the caller sent X-Pincer-Client
   * or X-Pincer-Cwd: the folder decides the working directory and the project's narrowed settings,
   * as on /mcp, so callers in different projects must not share a server.
   */
  private session(group?: ToolGroup, client: ClientHandle = {}): Promise<DirectTransport> {
    const named = client.id !== undefined || client.cwd !== undefined;
    const key = named ? `${group ?? '*'}\n${client.id ?? ''}\n${client.cwd ?? ''}` : (group ?? '*');
    let s = this.sessions.get(key);
    if (s) {
      // Most recently used last, so the oldest named one is the first to go.
      this.sessions.delete(key);
      this.sessions.set(key, s);
      return s;
    }
    s = directSession(this.newServer(group, named ? client : undefined));
    s.catch(() => this.sessions.delete(key));
    this.sessions.set(key, s);
    const namedKeys = [...this.sessions.keys()].filter((k) => k.includes('\n'));
    if (namedKeys.length > MAX_CLIENT_SESSIONS) {
      const oldest = namedKeys[0]!;
      const gone = this.sessions.get(oldest);
      this.sessions.delete(oldest);
      void gone?.then((t) => t.close()).catch(ignoreFailure(log, `closing the oldest direct session ${oldest} to make room`));
    }
    return s;
  }

  /** Answers one parsed JSON-RPC value; undefined for notifications. */
  async handle(value: unknown, group?: ToolGroup, signal?: AbortSignal, client?: ClientHandle): Promise<JSONRPCMessage | undefined> {
    const r = classifyValue(value);
    if ('reply' in r) return r.reply;
    if ('ignore' in r) return undefined;
    const m = r.message as { id?: string | number; method?: string; params?: unknown };
    if (m.method === undefined) return undefined; // a stray response: nothing to answer
    if (m.id === undefined) {
      (await this.session(group, client)).notify({ method: m.method, params: m.params });
      return undefined;
    }
    if (m.method === 'initialize') {
      // The shared session is initialized once; each caller gets the answer a fresh session would give.
      await this.session(group, client);
      return { jsonrpc: '2.0', id: m.id, result: this.initializeResult(m.params) } as JSONRPCMessage;
    }
    return (await this.session(group, client)).request({ id: m.id, method: m.method, params: m.params }, signal);
  }

  /** A JSON-RPC batch: answers in order, leaving out notifications. */
  async handleBatch(values: unknown[], group?: ToolGroup, signal?: AbortSignal, client?: ClientHandle): Promise<JSONRPCMessage[]> {
    if (values.length === 0) return [rpcError(null, RPC.InvalidRequest, 'Invalid Request: empty batch')];
    const answers = await Promise.all(values.map((v) => this.handle(v, group, signal, client)));
    return answers.filter((a): a is JSONRPCMessage => a !== undefined);
  }

  private initializeResult(params: unknown): Record<string, unknown> {
    const requested = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    return {
      protocolVersion: typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
      capabilities: SERVER_CAPABILITIES,
      serverInfo: { name: 'pincer', title: 'Pincer', version: VERSION },
      instructions: SERVER_INSTRUCTIONS,
    };
  }

  async close(): Promise<void> {
    // A session that failed to open was answered and logged then; only the opened ones are left to close.
    for (const s of this.sessions.values()) await (await s.catch(() => /* it never opened: nothing to close */ undefined))?.close();
    this.sessions.clear();
  }
}
