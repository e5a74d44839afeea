import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { createRuntime, type Runtime } from '../main/calls/runtime.js';
import { Caller } from '../main/calls/caller.js';
import { ToolCalls } from '../main/calls/calls.js';
import { ToolRegistry } from '../main/calls/registry.js';
import { configureLogging, logger } from '../main/core/log.js';
import { defineTool } from '../main/tools/types.js';
import { tempHome } from './helpers/env.js';

/**
 * A crash in the log can be matched to its call: every line logged on a tool call's path — by the call
 * core or by any module the tool uses — carries the call's id (its activity row's), the tool and the
 * client. In-process, through the real call core, activity and log file.
 */

const h = tempHome();
const logsDir = path.join(h.home, 'logs');
let rt: Runtime;
const probe = logger('probe');

/** A tool with a bug: it logs on its way (as any module a tool uses may), then throws what is no UserError. */
const broken = defineTool({
  name: 'Broken',
  title: 'Broken',
  group: 'interaction',
  description: 'Fails.',
  inputSchema: z.object({}),
  annotations: { readOnlyHint: true },
  async handler() {
    await Promise.resolve();
    probe.info('about to fail');
    throw new TypeError('cannot read properties of undefined');
  },
});

before(() => {
  configureLogging({ logsDir, stderr: false });
  rt = createRuntime({ home: h.home, watch: false, env: { ...process.env, PINCER_HOME: h.home } });
});
after(() => {
  rt.close();
  h.cleanup();
});

function lines(): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(logsDir, 'pincer.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test("a failing call's log lines carry the call id of its activity row, the tool and the client", async () => {
  const calls = new ToolCalls(rt.services, new ToolRegistry([broken], rt.services), rt.settings);
  const caller = new Caller('test', 'client:log-probe', () => 'log-probe-client');
  const out = await calls.call({ name: 'Broken', arguments: {}, caller, channel: { signal: new AbortController().signal } });
  assert.equal(out.error?.code, 'TOOL_FAILED');
  rt.activity.flush();
  const row = rt.activity.recent(10, { tool: 'Broken' })[0];
  assert.ok(row, 'the call has its activity row');
  assert.equal(row.isError, true);
  const failed = lines().find((l) => l.msg === 'Broken failed');
  assert.ok(failed, 'the crash is logged');
  assert.deepEqual([failed.level, failed.callId, failed.tool, failed.client], ['error', row.id, 'Broken', 'log-probe-client']);
  assert.match(JSON.stringify(failed.err), /cannot read properties of undefined/);
  const onPath = lines().find((l) => l.msg === 'about to fail');
  assert.ok(onPath, "the tool's own line is logged");
  assert.deepEqual([onPath.scope, onPath.callId, onPath.tool, onPath.client], ['probe', row.id, 'Broken', 'log-probe-client']);
  probe.info('after the call');
  assert.equal(lines().find((l) => l.msg === 'after the call')?.callId, undefined, 'a line outside any call names none');
});
