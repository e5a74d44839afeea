import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { createRuntime, type Runtime } from '../../main/calls/runtime.js';
import { createPincerServer } from '../../main/mcp/server.js';
import { startPlugins } from '../../main/plugins/index.js';
import type { PluginHost } from '../../main/plugins/host.js';
import { configureLogging } from '../../main/core/log.js';
import { TaskListens } from '../../main/transports/task-listen.js';
import { TaskListenWire } from '../../main/transports/task-listen-wire.js';
import { taskListenSource } from '../../main/mcp/task-methods.js';
import { shellsReady } from '../../main/tools/shell/shells.js';
import type { QuestionRow } from '../../main/store/questions.js';
import { waitFor } from './env.js';

/**
 * The fast loop's harness (`npm run test:fast`, test/fast/): the real runtime (createRuntime, a real
 * pincer.db in a temporary PINCER_HOME) and the real server factory (createPincerServer), served by
 * the SDK's own stdio entry (serveStdio, which picks the protocol generation from the opening
 * exchange as on a pipe, wrapped like `pincer stdio --standalone` for task listens) over the SDK's
 * in-memory transport, to the SDK's own clients — v2 on either generation, v1 — or raw JSON-RPC, all
 * in the test's process. Nothing starts a process but what a tool runs itself (Bash, a job's
 * supervisor). What only processes can show (lifecycle, handover, trust, transports, third-party
 * clients) stays in the process-level tests.
 */

export type Era = '2025-11-25' | '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export interface InProcessOptions {
  /** The user's pincer-env.txt, as KEY → VALUE. */
  settings?: Record<string, string>;
  /** The environment layer of the settings (as a hub would inherit it). */
  env?: Record<string, string>;
  /** Files to write into PINCER_HOME before the runtime starts (path relative to it → content). */
  files?: Record<string, string>;
  /** Load the user's plugins from PINCER_HOME/tools and /plugins. */
  plugins?: boolean;
  /** Watch the settings file and skill folders, as a hub does (off by default: nothing to wait for). */
  watch?: boolean;
  /** 'hub': this runtime carries on the tasks other processes left (calls/task-owner.ts). */
  role?: 'hub' | 'standalone';
}

export interface ConnectOptions {
  /** The generation a v2 client pins; default: it negotiates 2025-11-25 with initialize. */
  era?: Era;
  capabilities?: Record<string, unknown>;
  name?: string;
  /** The client's working folder (what a bridge sends as X-Pincer-Cwd); default PINCER_HOME. */
  cwd?: string;
  /** The client's id (a bridge's X-Pincer-Client): one identity across its connections. */
  clientId?: string;
}

export interface Connected<C> {
  client: C;
  /** Closes the client and its server instance. */
  close(): Promise<void>;
}

/** JSON-RPC messages written by hand, for what no SDK client sends (tasks, raw round trips). */
export interface RawConnection {
  readonly messages: JSONRPCMessage[];
  send(message: object): Promise<void>;
  /** The response to request `id` (waits for it). */
  response(id: string | number): Promise<RawAnswer>;
  /** A 2026-07-28 request, numbered for this connection: its envelope carries version, client info and `capabilities`. */
  request(method: string, params: Record<string, unknown>, capabilities?: Record<string, unknown>): Promise<RawAnswer>;
  close(): Promise<void>;
}

export type RawAnswer = { id?: string | number; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

export interface InProcess {
  home: string;
  runtime: Runtime;
  /** The plugin host, when started with `plugins: true`. */
  plugins?: PluginHost;
  /** The official v2 client over the in-memory transport. */
  connect(opts?: ConnectOptions): Promise<Connected<Client>>;
  /** The v1 SDK client most clients in the field run (2025-era). */
  connectV1(opts?: Omit<ConnectOptions, 'era'>): Promise<Connected<V1Client>>;
  raw(opts?: Pick<ConnectOptions, 'cwd' | 'clientId'>): Promise<RawConnection>;
  /** What this runtime logged (warnings and up) since it started. */
  logText(): string;
  /** A pending question whose first question is `text`, waited for. */
  pendingQuestion(text: string): Promise<QuestionRow>;
  /** Answers a pending question as the dashboard's API does (Asker.answer). */
  answer(id: number, body: unknown): QuestionRow;
  close(): Promise<void>;
}

let profile: string | undefined;

/**
 * One folder per test process stands in for the user's profile: HOME points there (no
 * ~/.claude/skills of the machine is read; each PINCER_HOME lies inside the profile, as the
 * runtime expects). Each test file runs in its own process, so this changes no other file's HOME.
 */
function testProfile(): string {
  if (profile) return profile;
  const made = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-fast-'));
  profile = made;
  process.env.HOME = made;
  process.once('exit', () => fs.rmSync(made, { recursive: true, force: true }));
  return made;
}

/** Builds a runtime in a fresh PINCER_HOME and serves it to in-memory clients; closed after test `t` when given. */
export async function inProcess(opts: InProcessOptions = {}, t?: TestContext): Promise<InProcess> {
  const { home, logFile } = prepareHome(opts);
  const runtime = createRuntime({ home, env: { PINCER_HOME: home, BASH_CWD: home, ...opts.env }, watch: opts.watch ?? false, leanHeap: false, role: opts.role ?? 'standalone' });
  // A runtime probes the shells in the background and announces the tool list again if a description named one
  // before the probes answered: settled here, so that no client sees a list_changed it did not cause.
  await shellsReady(runtime.services.settings.get('BASH_SHELL'));
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
  const plugins = opts.plugins ? await startPlugins(runtime) : undefined;
  const serving = new InMemoryServing(runtime, home);
  const served: InProcess = {
    home,
    runtime,
    ...(plugins ? { plugins } : {}),
    connect: (c) => serving.connect(c),
    connectV1: (c) => serving.connectV1(c),
    raw: (c) => serving.raw(c),
    logText: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
    pendingQuestion: (text) =>
      waitFor(() => runtime.services.questions.pending().find((q) => (JSON.parse(q.questions) as { question: string }[])[0]?.question === text), `the question "${text}" to be pending`),
    answer: (id, body) => runtime.services.asker.answer(id, body),
    async close() {
      await serving.close();
      runtime.close();
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
  t?.after(() => served.close());
  return served;
}

/** A fresh PINCER_HOME with the test's settings and files, and this runtime's log in it. */
function prepareHome(opts: InProcessOptions): { home: string; logFile: string } {
  const home = fs.mkdtempSync(path.join(testProfile(), 'home-'));
  const settings = Object.entries(opts.settings ?? {}).map(([k, v]) => `${k}=${v}\n`);
  if (settings.length > 0) fs.writeFileSync(path.join(home, 'pincer-env.txt'), settings.join(''), { mode: 0o600 });
  for (const [rel, content] of Object.entries(opts.files ?? {})) {
    const file = path.join(home, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, content, { mode: 0o600 });
  }
  // Warnings and up, to a file the test can read (stderr stays for the runner's report).
  const logFile = path.join(home, 'logs', 'fast.log');
  configureLogging({ logsDir: path.dirname(logFile), fileName: path.basename(logFile), stderr: false, level: 'warn' });
  return { home, logFile };
}

/** The runtime's connections: each client gets a server instance from the factory, behind the SDK's stdio entry. */
class InMemoryServing {
  /** Task listens with taskIds, which the SDK's stdio entry would drop: served as on `pincer stdio --standalone`. */
  private readonly taskListens: TaskListens;
  private readonly unregister: () => void;
  private readonly open = new Set<() => Promise<void>>();

  constructor(
    private readonly runtime: Runtime,
    private readonly home: string,
  ) {
    this.taskListens = new TaskListens(taskListenSource(runtime));
    this.unregister = runtime.notifier.register(this.taskListens.peer);
  }

  async connect(c: ConnectOptions = {}): Promise<Connected<Client>> {
    const { clientSide, handle } = this.serve(c);
    const pin = c.era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {};
    const client = new Client({ name: c.name ?? 'fast-v2', version: '1.0.0' }, { capabilities: c.capabilities ?? {}, ...pin });
    await client.connect(clientSide);
    return { client, close: this.tracked(() => client.close(), handle) };
  }

  async connectV1(c: Omit<ConnectOptions, 'era'> = {}): Promise<Connected<V1Client>> {
    const { clientSide, handle } = this.serve(c);
    const client = new V1Client({ name: c.name ?? 'fast-v1', version: '1.0.0' }, { capabilities: c.capabilities ?? {} });
    await client.connect(clientSide);
    return { client, close: this.tracked(() => client.close(), handle) };
  }

  async raw(c: Pick<ConnectOptions, 'cwd' | 'clientId'> = {}): Promise<RawConnection> {
    const { clientSide, handle } = this.serve(c);
    const messages: JSONRPCMessage[] = [];
    clientSide.onmessage = (m) => void messages.push(m);
    await clientSide.start();
    const response = (id: string | number) =>
      waitFor(() => messages.find((m): m is JSONRPCMessage & RawAnswer => 'id' in m && m.id === id && ('result' in m || 'error' in m)), `the response to request ${JSON.stringify(id)}`);
    const send = (m: object) => clientSide.send(m as JSONRPCMessage);
    let ids = 0;
    return {
      messages,
      send,
      response,
      async request(method, params, capabilities = {}) {
        const id = `raw-${++ids}`;
        const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'fast-raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': capabilities };
        await send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ..._meta, ...(params._meta as object | undefined) } } });
        return response(id);
      },
      close: this.tracked(() => clientSide.close(), handle),
    };
  }

  async close(): Promise<void> {
    for (const close of [...this.open]) await close();
    this.unregister();
    this.taskListens.closeAll();
  }

  private serve(c: Pick<ConnectOptions, 'cwd' | 'clientId'>): { clientSide: InMemoryTransport; handle: StdioServerHandle } {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = { cwd: c.cwd ?? this.home, ...(c.clientId ? { id: c.clientId } : {}) };
    // One identity for the connection, as a stdio process has (its tasks, what its listens follow): the named client's, else its own.
    const callerId = c.clientId ? `client:${c.clientId}` : `in-memory:${randomUUID()}`;
    const handle = serveStdio(() => createPincerServer(this.runtime, { transport: 'in-memory', client, callerId }), { transport: new TaskListenWire(serverSide, this.taskListens, callerId) });
    return { clientSide, handle };
  }

  /** The connection's close, also run by close() for those a test left open. */
  private tracked(closeClient: () => Promise<void>, handle: StdioServerHandle): () => Promise<void> {
    const close = async () => {
      if (!this.open.delete(close)) return;
      await closeClient();
      await handle.close();
    };
    this.open.add(close);
    return close;
  }
}

/**
 * Node's fake timers for what waits on the clock in-process — the callback scheduler, the asker's
 * reply and timeout, the notifier's fire delivery: setTimeout, setInterval and Date move only when
 * `advance` moves them. Enable before the runtime is built, so its timers are fake from the start.
 * setImmediate stays real: it is how `advance` lets promise chains the timers started run.
 */
export function fakeClock(t: TestContext, start = Date.parse('2026-08-01T09:00:00Z')): { advance(ms: number, step?: number): Promise<void>; settle(): Promise<void> } {
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: start });
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
  };
  return {
    settle,
    async advance(ms, step = 100) {
      for (let done = 0; done < ms; done += step) {
        t.mock.timers.tick(Math.min(step, ms - done));
        await settle();
      }
    },
  };
}
