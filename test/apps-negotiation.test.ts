import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHubProcess, stopHubOf, type HubProcess } from './helpers/hub.js';
import { tempHome, waitFor } from './helpers/env.js';
import { checkCatalogue } from './helpers/catalogue.js';
import { textOf } from './helpers/clients.js';

/**
 * MCP Apps is negotiated, never imposed. A client that does not declare `io.modelcontextprotocol/ui` gets
 * what it got before the views existed: the same tools/list, resources, results and behaviour. "Before" is
 * taken from the running hub itself: what a client of the extension sees, less exactly what the extension
 * adds (the views' own tools, `_meta.ui` on the tools they show, the `ui://` resources) — and the test
 * checks that nothing else differs.
 */

const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
// A 2 s command runs past this: a Bash call run as a job (as for a client of the tasks extension) would leave it listed.
const ENV = { BASH_TASK_AFTER_MS: '1000' };
const VIEW_TOOLS = ['JobViewRead', 'JobViewKill', 'QuestionViewRead', 'QuestionViewAnswer', 'TaskViewRead', 'TaskViewComplete'];

type Tool = { name: string; _meta?: Record<string, unknown> } & Record<string, unknown>;
type Lister = { listTools(): Promise<{ tools: unknown[] }>; listResources(): Promise<{ resources: { uri: string }[] }>; callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>; readResource(p: { uri: string }): Promise<unknown> };

/** A listing as a client without the extension would have it: the views' tools and `_meta.ui` taken out. */
function withoutApps(tools: Tool[]): Tool[] {
  return tools
    .filter((t) => !VIEW_TOOLS.includes(t.name))
    .map((t) => {
      if (!t._meta) return t;
      const { ui: _ui, 'ui/resourceUri': _flat, ...rest } = t._meta;
      const { _meta: _drop, ...tool } = t;
      return Object.keys(rest).length ? { ...tool, _meta: rest } : tool;
    });
}

async function errorOf(p: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  try {
    await p;
  } catch (err) {
    return { code: (err as { code?: unknown }).code, message: (err as Error).message };
  }
  assert.fail('expected an error');
}

describe('MCP Apps is negotiated: a client without the extension sees Pincer as before', { timeout: 240_000 }, () => {
  const h = tempHome();
  let hub: HubProcess;
  const v2 = async (modern: boolean, capabilities: Record<string, unknown>) => {
    const c = new Client({ name: 'negotiation', version: '1.0.0' }, { capabilities, ...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
    return c;
  };
  before(async () => {
    hub = await startHubProcess(h.home, ENV);
  });
  after(async () => {
    await hub?.stop();
    await stopHubOf(h.home);
    h.cleanup();
  });

  for (const modern of [false, true]) {
    const gen = modern ? '2026-07-28' : '2025-11-25';
    test(`SDK v2, ${gen}: tools/list, resources, refusals and results`, async () => {
      const plain = await v2(modern, {});
      const apps = await v2(modern, APPS);
      try {
        const plainTools = (await plain.listTools()).tools as Tool[];
        const appsTools = (await apps.listTools()).tools as Tool[];
        checkCatalogue(plainTools);
        assert.deepEqual(plainTools, withoutApps(appsTools), 'the plain listing is the apps listing less the extension');
        assert.ok(plainTools.every((t) => t._meta === undefined));
        assert.deepEqual(appsTools.filter((t) => VIEW_TOOLS.includes(t.name)).map((t) => t.name), VIEW_TOOLS);
        // The server says it offers the extension to everyone; only its own clients get it.
        assert.deepEqual(plain.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/ui'], { mimeTypes: ['text/html;profile=mcp-app'] });

        const plainRes = (await plain.listResources()).resources;
        const appsRes = (await apps.listResources()).resources;
        assert.deepEqual(plainRes, appsRes.filter((r) => !r.uri.startsWith('ui://')));
        assert.deepEqual(appsRes.filter((r) => r.uri.startsWith('ui://')).map((r) => r.uri), ['ui://pincer/job.html', 'ui://pincer/question.html', 'ui://pincer/task.html']);

        // A view's page and tool do not exist for it: the same answers as for names that never existed.
        const page = await errorOf(plain.readResource({ uri: 'ui://pincer/job.html' }));
        const nothing = await errorOf(plain.readResource({ uri: 'ui://pincer/nothing.html' }));
        assert.equal(page.code, nothing.code);
        assert.equal(page.message.replace('job.html', 'X'), nothing.message.replace('nothing.html', 'X'));
        const viewTool = await errorOf(plain.callTool({ name: 'JobViewRead', arguments: {} }));
        const noTool = await errorOf(plain.callTool({ name: 'NoSuchTool', arguments: {} }));
        assert.equal(viewTool.code, noTool.code);
        assert.equal(viewTool.message.replace('JobViewRead', 'X'), noTool.message.replace('NoSuchTool', 'X'));

        // Bash: the same answer, and neither runs a job; the apps client's call is followed by its view while it runs.
        const command = `echo start-${gen}; sleep 2; echo end-${gen}`;
        const p = plain.callTool({ name: 'Bash', arguments: { command } });
        const a = apps.callTool({ name: 'Bash', arguments: { command } });
        const seen = await waitFor(async () => {
          const r = ((await apps.callTool({ name: 'JobViewRead', arguments: { command } })) as { structuredContent: { job: { run_id: number | null; task_id: number | null; running: boolean } | null; window: { text: string } | null } }).structuredContent;
          return r.window?.text.includes(`start-${gen}`) ? r : undefined;
        }, 'the apps call to be followed while it runs');
        assert.deepEqual([typeof seen.job!.run_id, seen.job!.task_id], ['number', null]);
        const [pr, ar] = await Promise.all([p, a]);
        assert.equal(textOf(pr), textOf(ar));
        assert.equal(textOf(pr), `start-${gen}\nend-${gen}`);
        const strip = (r: unknown) => {
          const { duration_ms: _d, ...rest } = (r as { structuredContent: Record<string, unknown> }).structuredContent;
          return rest;
        };
        assert.deepEqual(strip(pr), strip(ar));
        assert.deepEqual((pr as { _meta?: unknown })._meta, (ar as { _meta?: unknown })._meta);
        const jobs = ((await plain.callTool({ name: 'ListBgTasks', arguments: {} })) as { structuredContent: { tasks: { command: string }[] } }).structuredContent.tasks;
        assert.deepEqual(jobs.filter((j) => j.command === command), [], 'neither call left a job');
      } finally {
        await plain.close();
        await apps.close();
      }
    });
  }

  test('SDK v1 (2025-11-25): the same tools and resources as a v2 client without the extension', async () => {
    const v1 = new V1Client({ name: 'negotiation-v1', version: '1.0.0' }, { capabilities: {} });
    await v1.connect(new V1HttpTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }));
    const plain = await v2(false, {});
    try {
      const lister: Lister = v1;
      assert.deepEqual((await lister.listTools()).tools, (await plain.listTools()).tools);
      assert.deepEqual((await lister.listResources()).resources, (await plain.listResources()).resources);
    } finally {
      await v1.close();
      await plain.close();
    }
  });
});
