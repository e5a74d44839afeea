import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { sharedMatrixHub } from '../helpers/matrix-hub.js';
import { PINCER_BIN, ROOT } from '../helpers/env.js';
import { TOOL_COUNT } from '../helpers/catalogue.js';
import { contentText, runScenario, type DrivenClient } from '../helpers/clients.js';

/**
 * The MCP Inspector's CLI (`inspector --cli`), as a person or a CI script runs
 * it: one process per call, against `pincer stdio` (bridge and standalone),
 * /mcp on both protocol eras and /sse. `--strict` must find nothing to warn
 * about in the tool schemas.
 */
const INSPECTOR = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const ENV = { ASK_REPLY_S: '2' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function inspector(home: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [INSPECTOR, '--cli', ...args],
      // HOME and the catalog path keep the Inspector's own files inside the test's directory.
      { env: { ...process.env, HOME: home, MCP_CATALOG_PATH: path.join(home, 'inspector-catalog.json') }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The Inspector CLI as a matrix client: `target` picks the transport, each call one invocation. */
function drivenInspector(label: string, home: string, target: string[]): DrivenClient {
  const run = async (method: string, extra: string[] = []) => {
    const r = await inspector(home, [...target, '--format', 'json', '--method', method, ...extra]);
    // Exit 5 is the Inspector's "the tool returned isError: true"; the result is on stdout all the same.
    assert.ok(r.code === 0 || r.code === 5, `inspector ${method} exited ${r.code}: ${r.stderr.slice(-2000)}`);
    return (JSON.parse(r.stdout) as { result: Record<string, unknown> }).result;
  };
  return {
    label,
    listTools: async () => ((await run('tools/list')).tools as { name: string }[]).map((t) => t.name),
    async call(name, args) {
      const r = await run('tools/call', ['--tool-name', name, '--tool-args-json', JSON.stringify(args)]);
      return { text: contentText(r.content), isError: r.isError === true };
    },
    resources: {
      list: async () => ((await run('resources/list')).resources as { uri: string }[]).map((r) => r.uri),
      read: async (uri) => ((await run('resources/read', ['--uri', uri])).contents as { text?: string }[]).map((c) => c.text ?? '').join('\n'),
    },
    prompts: {
      list: async () => ((await run('prompts/list')).prompts as { name: string }[]).map((p) => p.name),
      get: async (name, args) =>
        ((await run('prompts/get', ['--prompt-name', name, '--prompt-args', ...Object.entries(args).map(([k, v]) => `${k}=${v}`)])).messages as { content: unknown }[])
          .map((m) => contentText([m.content]))
          .join('\n'),
    },
    close: async () => undefined,
  };
}

describe('MCP Inspector CLI', { concurrency: 3 }, () => {
  const m = sharedMatrixHub(ENV, { oneShot: true });

  const stdioTarget = (standalone: boolean) => [
    ...Object.entries({ PINCER_HOME: m.home, BASH_CWD: m.home, PINCER_LOG_LEVEL: 'warn', ...ENV }).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    process.execPath,
    PINCER_BIN,
    'stdio',
    ...(standalone ? ['--standalone'] : []),
  ];
  const targets: [string, () => string[]][] = [
    ['pincer stdio (bridge)', () => stdioTarget(false)],
    ['pincer stdio --standalone', () => stdioTarget(true)],
    ['/mcp 2025-11-25', () => [`${m.hub.url}/mcp`, '--header', `Authorization: Bearer ${m.hub.token}`, '--protocol-era', 'legacy']],
    ['/mcp 2026-07-28', () => [`${m.hub.url}/mcp`, '--header', `Authorization: Bearer ${m.hub.token}`, '--protocol-era', 'modern']],
    ['/sse', () => [`${m.hub.url}/sse`, '--header', `Authorization: Bearer ${m.hub.token}`]],
  ];

  for (const [label, target] of targets) {
    test(`--strict tools/list over ${label}: every tool, no schema warning`, async () => {
      const r = await inspector(m.home, [...target(), '--method', 'tools/list', '--strict']);
      assert.equal(r.code, 0, r.stderr.slice(-3000));
      assert.equal(JSON.parse(r.stdout).tools.length, TOOL_COUNT);
      assert.doesNotMatch(r.stderr, /Warning: tool|[1-9]\d* (errors?|warnings?)/);
    });
  }

  // The whole scenario on the two transports people point the Inspector at most.
  for (const [label, target] of targets.filter(([l]) => l !== '/sse' && l !== 'pincer stdio --standalone')) {
    test(`scenario over ${label}`, async (t) => {
      // The Inspector declares the tasks extension: on 2026-07-28 AskUserQuestion is a task it follows to the answer.
      await runScenario(t, drivenInspector(`inspector ${label}`, m.home, target()), { ...m.opts, followsTasks: label === '/mcp 2026-07-28' });
    });
  }
});
