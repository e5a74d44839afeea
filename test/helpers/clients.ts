import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { PINCER_BIN, pincerEnv, waitFor, pidAlive } from './env.js';
import { TOOL_COUNT } from './catalogue.js';

export interface StdioOptions {
  home: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** The official v2 client spawning `pincer stdio --standalone` (or other args). */
export async function connectV2(opts: StdioOptions & { modern?: boolean; capabilities?: Record<string, unknown> }): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PINCER_BIN, ...(opts.args ?? ['stdio', '--standalone'])],
    env: pincerEnv(opts.home, opts.env),
    cwd: opts.cwd ?? opts.home,
    stderr: 'pipe',
  });
  const client = new Client(
    { name: 'pincer-test-v2', version: '1.0.0' },
    { capabilities: opts.capabilities ?? {}, ...(opts.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
  );
  await client.connect(transport);
  return { client, transport };
}

/**
 * Closes a client and waits (WAIT_MS at most) until the process it spawned has exited. A bridge still
 * alive when its hub goes starts another hub for the folder: close it first, then stop the hub.
 */
export async function closeStdioClient(c: { client: { close(): Promise<void> }; transport: { pid: number | null } } | undefined): Promise<void> {
  if (!c) return;
  const pid = c.transport.pid;
  await c.client.close().catch(() => undefined);
  if (pid) await waitFor(() => !pidAlive(pid), 'the stdio server process to exit').catch(() => undefined);
}

/** The official v2 client spawning any stdio command (a third-party bridge such as mcp-remote). */
export async function connectV2Command(opts: { command: string; args: string[]; env: Record<string, string>; cwd: string; modern?: boolean }): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: opts.command, args: opts.args, env: opts.env, cwd: opts.cwd, stderr: 'pipe' });
  const client = new Client({ name: 'pincer-test-v2', version: '1.0.0' }, opts.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(transport);
  return { client, transport };
}

/** The v1 `@modelcontextprotocol/sdk` client most clients in the field still run. */
export async function connectV1(opts: StdioOptions & { capabilities?: Record<string, unknown> }): Promise<{ client: V1Client; transport: V1StdioTransport }> {
  const transport = new V1StdioTransport({
    command: process.execPath,
    args: [PINCER_BIN, ...(opts.args ?? ['stdio', '--standalone'])],
    env: pincerEnv(opts.home, opts.env),
    cwd: opts.cwd ?? opts.home,
    stderr: 'pipe',
  });
  const client = new V1Client({ name: 'pincer-test-v1', version: '1.0.0' }, { capabilities: opts.capabilities ?? {} });
  await client.connect(transport);
  return { client, transport };
}

export function textOf(result: unknown): string {
  const content = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
  return content.filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n');
}

/** What ReadBgOutput answered: the job's status and counts (its `_meta`), and the output its text carries once. */
export interface BgRead {
  task_id: number;
  status: string;
  exit_code: number | null;
  bytes: number;
  remaining_bytes: number;
  cwd: string;
  output: string;
}

/**
 * A ReadBgOutput result read back: its `_meta` says the status and how many bytes of output it carries;
 * the output is those bytes of the text after the status line (the text drops the output's last newline
 * when nothing follows it).
 */
export function bgRead(result: unknown): BgRead {
  const meta = ((result as { _meta?: Record<string, unknown> })._meta ?? {})['dev.pincer/job'] as Omit<BgRead, 'output'> | undefined;
  if (!meta) throw new Error(`not a ReadBgOutput answer: ${JSON.stringify(result).slice(0, 300)}`);
  // A pending callback's reminder rides on any result as its own first text item (named in _meta): not output.
  const notices = ((result as { _meta?: Record<string, unknown> })._meta ?? {})['dev.pincer/notices'] as string[] | undefined;
  const content = ((result as { content?: { type: string; text?: string }[] }).content ?? []).filter((c) => !(notices && c.type === 'text' && c.text === notices.join('\n')));
  const text = textOf({ content });
  const body = Buffer.from(text.slice(text.indexOf('\n') + 1 || text.length));
  const output = meta.bytes === 0 ? '' : body.length >= meta.bytes ? body.subarray(0, meta.bytes).toString() : `${body.toString()}\n`;
  return { ...meta, output };
}

/**
 * One third-party (or official) client, reduced to what the client matrix
 * needs. Each adapter calls the client's own API; errors a client throws for
 * `isError` results (LangChain) come back as `isError: true` with the text.
 */
export interface DrivenClient {
  label: string;
  listTools(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  resources?: { list(): Promise<string[]>; read(uri: string): Promise<string> };
  prompts?: { list(): Promise<string[]>; get(name: string, args: Record<string, string>): Promise<string> };
  close(): Promise<void>;
}

export interface MatrixHub {
  url: string;
  token: string;
}

const QUESTION_WAIT_MS = 20_000;

/** The hub's dashboard API view of a pending question, found by its text. */
async function pendingQuestion(hub: MatrixHub, text: string): Promise<{ id: number }> {
  return waitFor(async () => {
    const r = await fetch(`${hub.url}/api/questions`, { headers: { Authorization: `Bearer ${hub.token}` } });
    const body = (await r.json()) as { pending: { id: number; questions: { question: string }[] }[] };
    return body.pending.find((q) => q.questions.some((x) => x.question === text));
  }, `the question "${text}" to be pending`, QUESTION_WAIT_MS);
}

async function answerQuestion(hub: MatrixHub, id: number, question: string, selected: string): Promise<void> {
  const r = await fetch(`${hub.url}/api/questions/${id}/answer`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ answers: [{ question, selected }] }),
  });
  if (r.status !== 200) throw new Error(`answering question ${id}: ${r.status} ${await r.text()}`);
}

function askArgs(question: string): Record<string, unknown> {
  return { questions_json: JSON.stringify({ questions: [{ text: question, options: ['yes', 'no'] }] }) };
}

/** What every client must manage. */
export interface ScenarioOptions {
  hub: MatrixHub;
  /** Skill prompt the home provides (see `writeSkill`). */
  prompt?: { name: string; contains: string };
  /**
   * A client that is a new connection for every call (a CLI): "the same
   * client's next call" does not exist, so the callback check and the
   * answer-while-waiting check (one call held open) are left out for it.
   */
  oneShot?: boolean;
  /**
   * A client of the tasks extension (2026-07-28) that follows a task to its end: AskUserQuestion is a task
   * for it, so its call waits until the person answers (no "still open" reply to collect later).
   */
  followsTasks?: boolean;
}

/**
 * Runs the matrix scenario on one connected client as subtests: tools/list,
 * Bash, a tool error, a background job, a callback, AskUserQuestion answered
 * through the dashboard API (waiting first, then collected by question_id),
 * resources and prompts where the client has them.
 */
export async function runScenario(t: TestContext, c: DrivenClient, opts: ScenarioOptions): Promise<void> {
  const tag = c.label.replace(/[^a-z0-9]+/gi, '-');
  await t.test(`${c.label}: tools/list`, async () => {
    const names = await c.listTools();
    assert.equal(names.length, TOOL_COUNT, names.join(','));
    for (const n of ['Bash', 'BackgroundBash', 'SetCallback', 'AskUserQuestion', 'ReadImage']) assert.ok(names.includes(n), n);
  });
  await t.test(`${c.label}: Bash`, async () => {
    const r = await c.call('Bash', { command: `echo hello-${tag}` });
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, new RegExp(`hello-${tag}`));
  });
  await t.test(`${c.label}: a tool error is a result with a message`, async () => {
    const r = await c.call('ReadImage', { file_path: 'relative.png' });
    assert.equal(r.isError, true, r.text);
    assert.match(r.text, /relative\.png is a relative path; pass an absolute path/);
  });
  await t.test(`${c.label}: background job round trip`, async () => {
    const started = await c.call('BackgroundBash', { command: `echo bg-${tag}; sleep 0.3; echo bg-done` });
    const id = Number(/background task (\d+)/.exec(started.text)?.[1]);
    assert.ok(id > 0, started.text);
    let output = '';
    await waitFor(async () => {
      const r = await c.call('ReadBgOutput', { task_id: id, wait_ms: 3000 });
      assert.equal(r.isError, false, r.text);
      output += r.text + '\n';
      return /\[exited 0\]/.test(r.text);
    }, `job ${id} to finish`);
    assert.deepEqual(output.split('\n').filter((l) => l && !/^Task \d+ \[/.test(l)), [`bg-${tag}`, 'bg-done']);
    const all = await c.call('ListBgTasks', {});
    assert.match(all.text, new RegExp(`bg-${tag}`));
  });
  if (!opts.oneShot) await t.test(`${c.label}: a callback reaches this client`, async () => {
    const message = `reminder-${tag}-${Date.now()}`;
    const set = await c.call('SetCallback', { action: 'set', message, delay_seconds: 1, repeat_count: 1 });
    assert.equal(set.isError, false, set.text);
    const slot = Number(/Callback (\d+) set/.exec(set.text)?.[1]);
    // The hub's record of fires (what the dashboard shows) says when it fired; the next call carries it.
    await waitFor(async () => {
      const r = await fetch(`${opts.hub.url}/api/callbacks`, { headers: { Authorization: `Bearer ${opts.hub.token}` } });
      return ((await r.json()) as { recent: { message: string }[] }).recent.some((f) => f.message === message);
    }, `the callback "${message}" to fire`);
    const seen = await waitFor(async () => {
      const r = await c.call('Bash', { command: 'echo next-call' });
      return r.text.includes(message) ? r : undefined;
    }, `the callback "${message}" on a tool result`);
    assert.match(seen.text, /next-call/);
    // Fired once and finished: the slot is free again.
    assert.doesNotMatch((await c.call('SetCallback', { action: 'list' })).text, new RegExp(`${slot}\\. "${message}`));
  });
  if (opts.followsTasks) await t.test(`${c.label}: AskUserQuestion as a task, answered in the dashboard while the client follows it`, async () => {
    const question = `Proceed for ${tag}?`;
    const call = c.call('AskUserQuestion', askArgs(question));
    const { id } = await pendingQuestion(opts.hub, question);
    await answerQuestion(opts.hub, id, question, 'yes');
    const r = await call;
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, new RegExp(`The person answered:\\n- ${question.replace('?', '\\?')}\\n  → yes`));
  });
  if (!opts.followsTasks) await t.test(`${c.label}: AskUserQuestion, answered in the dashboard after the call said it waits`, async () => {
    const question = `Proceed for ${tag}?`;
    const first = await c.call('AskUserQuestion', askArgs(question));
    assert.equal(first.isError, false, first.text);
    const id = Number(/question (\d+) yet/.exec(first.text)?.[1]);
    assert.match(first.text, /Nobody has answered question \d+ yet; .*\{"question_id": \d+\}/);
    assert.equal((await pendingQuestion(opts.hub, question)).id, id);
    await answerQuestion(opts.hub, id, question, 'yes');
    const collected = await c.call('AskUserQuestion', { question_id: id });
    assert.match(collected.text, new RegExp(`The person answered:\\n- ${question.replace('?', '\\?')}\\n  → yes`));
  });
  if (!opts.oneShot) await t.test(`${c.label}: AskUserQuestion answered while the call waits`, async () => {
    const question = `Deploy ${tag}?`;
    const call = c.call('AskUserQuestion', askArgs(question));
    const { id } = await pendingQuestion(opts.hub, question);
    await answerQuestion(opts.hub, id, question, 'no');
    let r = await call;
    // On a slow machine the call may have said "waiting" just before the answer: collect it then.
    if (/Nobody has answered/.test(r.text)) r = await c.call('AskUserQuestion', { question_id: id });
    assert.match(r.text, /The person answered:[\s\S]*→ no/);
  });
  if (c.resources) {
    const res = c.resources;
    await t.test(`${c.label}: resources`, async () => {
      const uris = await res.list();
      assert.deepEqual([...uris].sort(), ['pincer://plan', 'pincer://tasks']);
      assert.match(await res.read('pincer://tasks'), /^# Tasks/m);
    });
  }
  if (c.prompts && opts.prompt) {
    const pr = c.prompts;
    const want = opts.prompt;
    await t.test(`${c.label}: prompts`, async () => {
      assert.ok((await pr.list()).includes(want.name));
      assert.match(await pr.get(want.name, { arguments: 'from-the-client' }), new RegExp(want.contains));
    });
  }
}

/** A skill (so a prompt) in a data directory, for the prompts checks. */
export function writeSkill(home: string, name = 'matrix-skill'): { name: string; contains: string } {
  const dir = path.join(home, 'skills', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: A skill the client matrix reads as a prompt.\n---\nSay the magic word, then: $ARGUMENTS\n`);
  return { name, contains: 'magic word, then: from-the-client' };
}

/** Text of MCP tool-result content, whatever client produced it. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  // LangChain hands back a single text block (with structuredContent beside it) unwrapped.
  if (content && typeof content === 'object' && !Array.isArray(content)) return contentText([content]);
  if (!Array.isArray(content)) return '';
  return content
    .filter((c): c is { type: string; text: string } => !!c && typeof c === 'object' && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string')
    .map((c) => c.text)
    .join('\n');
}

/** The part of the official SDK clients (v1 and v2 alike) the matrix drives. */
export interface SdkLikeClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: { content: unknown }[] }>;
  close(): Promise<void>;
}

export function drivenSdk(label: string, client: SdkLikeClient): DrivenClient {
  return {
    label,
    listTools: async () => (await client.listTools()).tools.map((t) => t.name),
    async call(name, args) {
      const r = (await client.callTool({ name, arguments: args })) as { content?: unknown; isError?: boolean };
      return { text: contentText(r.content), isError: r.isError === true };
    },
    resources: {
      list: async () => (await client.listResources()).resources.map((r) => r.uri),
      read: async (uri) => (await client.readResource({ uri })).contents.map((c) => (c as { text?: string }).text ?? '').join('\n'),
    },
    prompts: {
      list: async () => (await client.listPrompts()).prompts.map((p) => p.name),
      get: async (name, args) => (await client.getPrompt({ name, arguments: args })).messages.map((m) => contentText([m.content])).join('\n'),
    },
    close: () => client.close(),
  };
}
