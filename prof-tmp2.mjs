import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-prof-'));
const env = { ...process.env, PINCER_HOME: home, HOME: home, BASH_CWD: home, PINCER_LOG_LEVEL: 'error' };
const subs = { floor: [['dist/bench/peers/minimal-server.js'], { name: 'echo', arguments: { text: 'x' } }], mine: [['dist/main/cli/pincer.js', 'stdio', '--standalone'], { name: 'ListBgTasks', arguments: {} }], base: [['/tmp/perf-base/dist/main/cli/pincer.js', 'stdio', '--standalone'], { name: 'ListBgTasks', arguments: {} }] };
const cs = {};
for (const [k, [args]] of Object.entries(subs)) { const t = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'inherit' }); cs[k] = new Client({ name: 'p', version: '1' }); await cs[k].connect(t); }
const times = { floor: [], mine: [], base: [] };
for (let r = 0; r < 10; r++) for (const k of Object.keys(subs)) { const t0 = performance.now(); for (let i = 0; i < 300; i++) await cs[k].callTool(subs[k][1]); times[k].push((performance.now() - t0) / 300); }
for (const k in times) { const s = times[k].sort((a, b) => a - b); console.log(k, s[5].toFixed(3), (s[5] / times.floor.sort((a,b)=>a-b)[5]).toFixed(2)); }
const r = await cs.mine.callTool(subs.mine[1]); console.log(JSON.stringify(r).length, JSON.stringify(r).slice(0, 300));
for (const c of Object.values(cs)) await c.close(); fs.rmSync(home, { recursive: true, force: true });
