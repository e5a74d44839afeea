import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { PINCER, MINIMAL, ROOT } from './harness.js';

const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const DESKTOP_COMMANDER = path.join(ROOT, 'node_modules', '@wonderwhy-er', 'desktop-commander', 'dist', 'index.js');

/** One stdio MCP server a client could pick, and how to make it do the cheap call and `true` in a shell. */
export interface StdioSubject {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cheap?: { name: string; arguments: Record<string, unknown> };
  shellTrue?: { name: string; arguments: Record<string, unknown> };
}

/**
 * The stdio subjects of one run, all in fresh temporary homes, all offline: a
 * running hub for the bridge, DesktopCommander with its telemetry switched off
 * (environment kill switch and its config file).
 */
export async function stdioSubjects(): Promise<{ subjects: StdioSubject[]; close(): Promise<void> }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-bench-'));
  const base = { ...process.env, PINCER_HOME: home, HOME: home, BASH_CWD: home, HTTP_PORT: 'auto', PINCER_LOG_LEVEL: 'error' };
  const hub: ChildProcess = spawn(process.execPath, [PINCER, 'serve', '--quiet'], { env: base, stdio: 'ignore' });
  for (let i = 0; i < 200 && !fs.existsSync(path.join(home, 'hub.json')); i++) await new Promise((r) => setTimeout(r, 50));
  if (!fs.existsSync(path.join(home, 'hub.json'))) throw new Error('bench: the hub did not start');
  const dcHome = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-bench-dc-'));
  fs.mkdirSync(path.join(dcHome, '.claude-server-commander'));
  fs.writeFileSync(path.join(dcHome, '.claude-server-commander', 'config.json'), JSON.stringify({ telemetryEnabled: false, defaultShell: 'bash' }));
  const dcEnv = { ...process.env, HOME: dcHome, DESKTOP_COMMANDER_DISABLE_TELEMETRY: '1' };
  const pincerCheap = { name: 'ListBgTasks', arguments: {} };
  const pincerTrue = { name: 'Bash', arguments: { command: 'true' } };
  const subjects: StdioSubject[] = [
    { name: 'pincer stdio (bridge, hub running)', args: [PINCER, 'stdio'], env: base, cheap: pincerCheap, shellTrue: pincerTrue },
    { name: 'pincer stdio --standalone', args: [PINCER, 'stdio', '--standalone'], env: base, cheap: pincerCheap, shellTrue: pincerTrue },
    { name: 'DesktopCommander', args: [DESKTOP_COMMANDER], env: dcEnv, cheap: { name: 'get_config', arguments: {} }, shellTrue: { name: 'start_process', arguments: { command: 'true', timeout_ms: 5000 } } },
    { name: '@modelcontextprotocol/server-everything', args: [EVERYTHING, 'stdio'], env: base, cheap: { name: 'echo', arguments: { message: 'x' } } },
    { name: 'minimal SDK v2 server', args: [MINIMAL], env: base, cheap: { name: 'echo', arguments: { text: 'x' } }, shellTrue: { name: 'shell', arguments: { command: 'true' } } },
  ];
  // BENCH_BASELINE_PINCER=<another build>/dist/main/cli/pincer.js adds that build's bridge, against the
  // same hub, and that build's standalone server (its own hub code in-process), for before/after
  // figures measured in the same run.
  const baseline = process.env.BENCH_BASELINE_PINCER;
  if (baseline) {
    subjects.unshift(
      { name: 'pincer stdio (bridge, baseline build)', args: [baseline, 'stdio'], env: base, cheap: pincerCheap, shellTrue: pincerTrue },
      { name: 'baseline build: pincer stdio --standalone', args: [baseline, 'stdio', '--standalone'], env: base, cheap: pincerCheap, shellTrue: pincerTrue },
    );
  }
  return {
    subjects,
    close: async () => {
      if (hub.exitCode === null) {
        hub.kill('SIGTERM');
        await new Promise((r) => hub.once('exit', r));
      }
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(dcHome, { recursive: true, force: true });
    },
  };
}
