import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { ROOT, tempHome } from './helpers/env.js';
import { startHubProcess } from './helpers/hub.js';
import { tokenProxy } from './helpers/token-proxy.js';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
 * against a real hub: every server scenario of the pinned version, with the fixture pack
 * (test/fixtures/conformance-plugin.mjs) in the hub's plugins/ folder. A scenario that cannot pass
 * is listed here with why; any other failing check fails the test, and so does a listed one that
 * starts passing (the list must stay true).
 */
const EXPECTED_FAILURES: Record<string, string> = {};

/** Scenarios that need no fixture: they run against Pincer's own tools, prompts (skills) and resources too. */
const WITHOUT_PLUGIN = ['server-initialize', 'server-session-lifecycle', 'logging-set-level', 'ping', 'tools-list', 'resources-list', 'prompts-list', 'sep-2164-resource-not-found', 'dns-rebinding-protection', 'caching', 'http-header-validation'];

const CONFORMANCE_BIN = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

function run(args: string[], timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CONFORMANCE_BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** checks.json of every scenario the run wrote, by scenario name. */
function results(dir: string): Map<string, Check[]> {
  const out = new Map<string, Check[]>();
  for (const entry of fs.readdirSync(dir)) {
    const file = path.join(dir, entry, 'checks.json');
    if (!fs.existsSync(file)) continue;
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    out.set(scenario, [...(out.get(scenario) ?? []), ...(JSON.parse(fs.readFileSync(file, 'utf8')) as Check[])]);
  }
  return out;
}

/** Which scenarios failed (with their failing checks), which passed although listed, which did not run. */
function problemsOf(scenarios: string[], byScenario: Map<string, Check[]>, expected: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const scenario of scenarios) {
    const checks = byScenario.get(scenario);
    const failed = (checks ?? []).filter((c) => c.status === 'FAILURE');
    if (!checks) problems.push(`${scenario}: did not run`);
    else if (failed.length > 0 && !expected[scenario]) problems.push(`${scenario}: ${failed.map((c) => `${c.id}: ${c.errorMessage ?? ''}`.slice(0, 400)).join(' | ')}`);
    else if (failed.length === 0 && expected[scenario]) problems.push(`${scenario}: passes now; remove it from EXPECTED_FAILURES`);
  }
  return problems;
}

test('the official conformance suite: every server scenario passes against a hub with the fixture plugin', { timeout: 600_000 }, async () => {
  const h = tempHome();
  fs.mkdirSync(path.join(h.home, 'plugins'), { recursive: true, mode: 0o700 });
  fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'conformance-plugin.mjs'), path.join(h.home, 'plugins', 'conformance-plugin.mjs'));
  const hub = await startHubProcess(h.home);
  const proxy = await tokenProxy(hub.port, hub.token);
  const outDir = fs.mkdtempSync(path.join(h.home, 'results-'));
  try {
    const listed = await run(['list', '--server'], 60_000);
    const scenarios = [...listed.out.matchAll(/^\s+- ([a-z0-9-]+) \[/gm)].map((m) => m[1]!);
    assert.ok(scenarios.length >= 60, `the suite lists its server scenarios:\n${listed.out}`);
    const ran = await run(['server', '--url', `${proxy.url}/mcp`, '--suite', 'all', '-o', outDir, '--timeout', '30000'], 540_000);
    const problems = problemsOf(scenarios, results(outDir), EXPECTED_FAILURES);
    assert.deepEqual(problems, [], `conformance run (exit ${ran.code}):\n${ran.out.slice(-4000)}`);
  } finally {
    await proxy.close();
    await hub.stop();
    h.cleanup();
  }
});

test('the conformance scenarios that need no fixture pass against Pincer as it ships (no plugin)', { timeout: 300_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  const proxy = await tokenProxy(hub.port, hub.token);
  const outDir = fs.mkdtempSync(path.join(h.home, 'results-'));
  try {
    let log = '';
    for (const scenario of WITHOUT_PLUGIN) log += (await run(['server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '-o', outDir], 120_000)).out.slice(-600);
    assert.deepEqual(problemsOf(WITHOUT_PLUGIN, results(outDir), {}), [], log);
  } finally {
    await proxy.close();
    await hub.stop();
    h.cleanup();
  }
});
