import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHubProcess, type HubProcess } from '../helpers/hub.js';
import { tempHome, waitFor } from '../helpers/env.js';
import { connectV2, closeStdioClient, textOf, bgRead } from '../helpers/clients.js';

/**
 * Where Bash runs and who "this client" is: the client's first root, else the
 * folder it started Pincer in (X-Pincer-Cwd from the bridge; the process's own
 * folder standalone), else BASH_CWD; `cd` carries over between calls of one
 * client; X-Pincer-Client names a client across sessions and stateless requests.
 */
type Structured = { cwd: string; cwd_after?: string; cwd_from?: string };

describe('working folder and client identity', () => {
  const h = tempHome();
  const project = path.join(h.home, 'project');
  const other = path.join(h.home, 'other root');
  let hub: HubProcess;
  before(async () => {
    fs.mkdirSync(path.join(project, 'sub'), { recursive: true });
    fs.mkdirSync(other, { recursive: true });
    hub = await startHubProcess(h.home);
  });
  after(async () => {
    await hub.stop();
    h.cleanup();
  });

  /** Until the hub has fired the callback whose message this is (the dashboard's record of fires). */
  const fired = (message: string) =>
    waitFor(async () => ((await (await fetch(`${hub.url}/api/callbacks`, { headers: hub.headers() })).json()) as { recent: { message: string }[] }).recent.some((f) => f.message === message), `the callback "${message}" to fire`);

  async function httpClient(opts: { headers?: Record<string, string>; modern?: boolean; roots?: string[] } = {}): Promise<Client> {
    const client = new Client(
      { name: 'workdir-test', version: '1' },
      { capabilities: opts.roots ? { roots: { listChanged: true } } : {}, ...(opts.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
    );
    if (opts.roots) client.setRequestHandler('roots/list', () => ({ roots: opts.roots!.map((r) => ({ uri: pathToFileURL(r).href, name: path.basename(r) })) }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}`, ...opts.headers } } }));
    return client;
  }
  const bash = async (client: Client, command: string) => {
    const r = await client.callTool({ name: 'Bash', arguments: { command } });
    assert.notEqual(r.isError, true, textOf(r));
    return { text: textOf(r), sc: r.structuredContent as Structured };
  };

  test('standalone stdio runs in the folder it was started in; cd carries over; jobs run there too', async () => {
    const { client } = await connectV2({ home: h.home, cwd: project });
    try {
      const first = await bash(client, 'pwd');
      assert.equal(first.text, project);
      assert.equal(first.sc.cwd, project);
      const moved = await bash(client, 'cd sub && echo moved');
      assert.equal(moved.text, `moved\n[Now in ${path.join(project, 'sub')}]`);
      assert.equal(moved.sc.cwd_after, path.join(project, 'sub'));
      assert.equal((await bash(client, 'pwd')).text, path.join(project, 'sub'));
      const job = await client.callTool({ name: 'BackgroundBash', arguments: { command: 'pwd' } });
      assert.match(textOf(job), new RegExp(`in ${path.join(project, 'sub')}[.,]`));
      const id = (job.structuredContent as { task_id: number }).task_id;
      const out = await waitFor(async () => {
        const r = await client.callTool({ name: 'ReadBgOutput', arguments: { task_id: id, wait_ms: 2000 } });
        return /\[exited 0\]/.test(textOf(r)) ? r : undefined;
      }, 'the job to end');
      assert.equal(bgRead(out).cwd, path.join(project, 'sub'));
      // A command that fails still reports where it ended; an exit skips the report and moves nothing.
      assert.equal((await bash(client, 'cd .. ; false ; true')).sc.cwd_after, project);
      assert.equal((await bash(client, 'cd / ; exit 0')).sc.cwd_after, undefined);
      assert.equal((await bash(client, 'pwd')).text, project);
    } finally {
      await client.close();
    }
  });

  test('a client that declares roots runs in its first root', async () => {
    const client = await httpClient({ roots: [other, project] });
    assert.equal((await bash(client, 'pwd')).text, other);
    await client.close();
  });

  test('2026-07-28: a client that declares roots runs in its first root over HTTP, through the bridge and standalone', async () => {
    const rootsOf = (dirs: string[]) => () => ({ roots: dirs.map((r) => ({ uri: pathToFileURL(r).href, name: path.basename(r) })) });
    const http = await httpClient({ modern: true, roots: [other, project] });
    try {
      assert.equal(http.getNegotiatedProtocolVersion(), '2026-07-28');
      const r = await bash(http, 'pwd');
      assert.equal(r.text, other);
      assert.equal(r.sc.cwd_from, 'client');
    } finally {
      await http.close();
    }
    // The bridge started elsewhere (its cwd is the test home): the root wins over where it started.
    for (const args of [['stdio'], ['stdio', '--standalone']]) {
      const c = await connectV2({ home: h.home, args, modern: true, capabilities: { roots: { listChanged: true } } });
      try {
        let asked = 0;
        c.client.setRequestHandler('roots/list', () => {
          asked++;
          return rootsOf([project])();
        });
        assert.equal(c.client.getNegotiatedProtocolVersion(), '2026-07-28');
        assert.equal((await bash(c.client, 'pwd')).text, project, args.join(' '));
        assert.equal((await bash(c.client, 'echo again')).text, 'again');
        assert.equal(asked, 1, `${args.join(' ')}: one connection asks once`);
      } finally {
        await closeStdioClient(c);
      }
    }
  });

  test("the bridge's X-Pincer-Cwd is the folder; bad values are ignored with the hub unharmed", async () => {
    const good = await httpClient({ headers: { 'X-Pincer-Client': 'bridge-cwd-1', 'X-Pincer-Cwd': encodeURIComponent(project) } });
    assert.equal((await bash(good, 'pwd')).text, project);
    await good.close();
    for (const bad of ['relative/dir', '%E0%A4%A', encodeURIComponent('/tmp/x\u0007y')]) {
      const c = await httpClient({ headers: { 'X-Pincer-Cwd': bad } });
      // BASH_CWD (the test home) when the client's folder is unusable.
      assert.equal((await bash(c, 'pwd')).text, h.home, bad);
      await c.close();
    }
    const badId = await httpClient({ headers: { 'X-Pincer-Client': 'has spaces; and = signs' } });
    assert.equal((await bash(badId, 'echo ok')).text, 'ok');
    await badId.close();
    assert.ok((await fetch(`${hub.url}/api/mcp/health`)).ok);
  });

  test('X-Pincer-Client is one client across sessions: its cd and its callbacks follow it', async () => {
    const headers = { 'X-Pincer-Client': 'bridge-identity-2', 'X-Pincer-Cwd': encodeURIComponent(project) };
    const first = await httpClient({ headers });
    await bash(first, 'cd sub');
    const set = await first.callTool({ name: 'SetCallback', arguments: { message: 'for the same client', delay_seconds: 1, repeat_count: 1 } });
    assert.notEqual(set.isError, true, textOf(set));
    await first.close();
    await fired('for the same client');
    // A new session of the same client (the bridge reconnected): same folder, and the fire arrives.
    const second = await httpClient({ headers });
    const r = await bash(second, 'pwd');
    assert.match(r.text, /for the same client/);
    assert.match(r.text, new RegExp(`${path.join(project, 'sub')}$`));
    await second.close();
  });

  test('stateless 2026-07-28 requests: a callback reaches the next request of the same client', async () => {
    for (const headers of [{ 'X-Pincer-Client': 'modern-3' }, {}] as Record<string, string>[]) {
      const client = await httpClient({ modern: true, headers });
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const message = `modern ${JSON.stringify(headers)}`;
      await client.callTool({ name: 'SetCallback', arguments: { message, delay_seconds: 1, repeat_count: 1 } });
      await fired(message);
      const seen = await waitFor(async () => {
        const t = (await bash(client, 'echo next')).text;
        return t.includes(message) ? t : undefined;
      }, `"${message}" on a later result`);
      assert.match(seen, /next$/);
      await client.close();
    }
  });
});

test("without roots, a folder of the client's or BASH_CWD, Bash runs in the account's home, not the HOME of whoever started the hub, and says so", async () => {
  const h = tempHome();
  const startersHome = path.join(h.home, 'starter-home');
  fs.mkdirSync(startersHome);
  const hub = await startHubProcess(h.home, { BASH_CWD: '', HOME: startersHome });
  try {
    for (const modern of [false, true]) {
      const client = new Client({ name: 'no-roots', version: '1' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
      try {
        const r = await client.callTool({ name: 'Bash', arguments: { command: 'pwd' } });
        const home = os.userInfo().homedir;
        assert.equal(textOf(r), `${home}\n[Ran in ${home}, your home folder: the client gave no root or folder of its own, and BASH_CWD is not set]`);
        assert.deepEqual([(r.structuredContent as Structured).cwd, (r.structuredContent as Structured).cwd_from], [home, 'home']);
      } finally {
        await client.close();
      }
    }
  } finally {
    await hub.stop();
    h.cleanup();
  }
});

test('2026-07-28 roots in one call: asked once, then read from the retry, from the sealed state of later rounds, or from the connection', async () => {
  const { modernRoot } = await import('../../main/mcp/client-roots.js');
  const { ROOTS_KEY } = await import('../../main/mcp/request-context.js');
  type Ctx = Parameters<typeof modernRoot>[0];
  type Server = Parameters<typeof modernRoot>[1];
  const server = { getNegotiatedProtocolVersion: () => undefined, getClientCapabilities: () => undefined } as unknown as Server;
  const envelope = (caps: Record<string, unknown>) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps });
  const ctx = (o: { caps?: Record<string, unknown>; responses?: Record<string, unknown>; state?: unknown; version?: string }): Ctx =>
    ({ mcpReq: { envelope: o.version ? { 'io.modelcontextprotocol/protocolVersion': o.version } : envelope(o.caps ?? { roots: {} }), inputResponses: o.responses, requestState: () => o.state } }) as unknown as Ctx;
  const project = path.join(os.tmpdir(), 'the project');
  const me = 'client:the-test';
  assert.equal(modernRoot(ctx({ caps: {} }), server, me), undefined, 'a client without roots is not asked');
  assert.equal(modernRoot(ctx({ version: '2025-11-25' }), server, me), undefined, 'a 2025-era request: the session asks');
  assert.equal(modernRoot(ctx({}), server, me), 'ask');
  const memory = { root: undefined as string | null | undefined };
  assert.deepEqual(modernRoot(ctx({ responses: { [ROOTS_KEY]: { roots: [{ uri: 'https://example.invalid/x' }, { uri: pathToFileURL(project).href }] } } }), server, me, memory), { root: project }, 'the first file root of the retry');
  assert.equal(memory.root, project, 'a connection remembers it');
  assert.deepEqual(modernRoot(ctx({}), server, me, memory), { root: project }, 'the next call on the connection is not asked again');
  assert.deepEqual(modernRoot(ctx({ state: { questionId: 3, root: project, client: me } }), server, me), { root: project }, "a later round's sealed state keeps it");
  assert.equal(modernRoot(ctx({ state: { root: project, client: 'client:another' } }), server, me), 'ask', "another client's sealed state counts as none");
  assert.deepEqual(modernRoot(ctx({ state: { root: null, client: me } }), server, me), { root: null }, 'a client with no file root is asked once');
  assert.deepEqual(modernRoot(ctx({ responses: { [ROOTS_KEY]: { roots: [] } } }), server, me), { root: null });
});
