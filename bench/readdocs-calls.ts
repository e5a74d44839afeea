import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { browserCandidates } from '../main/tools/web/browser.js';
import { decodeHtml } from '../main/tools/web/decode.js';
import { aggregate, shingleCounts, type Counts } from './article-score.js';
import { httpClient, PINCER, startHub } from './harness.js';
import { percentile } from './lib.js';
import { articleBenchmarkPages, missing, serpPage, SERP_PAGES, SOURCES, type ArticlePage } from '../test/helpers/web-corpora.js';

/*
 * ReadDocs as a client sees it: the whole tools/call, timed by a real MCP client (SDK v2) calling a real Pincer
 * (`pincer stdio --standalone`, or a hub over Streamable HTTP), with and without a browser, on pages served from
 * 127.0.0.1 while every other host is unreachable (HTTP(S)_PROXY points at a proxy that refuses everything; NO_PROXY
 * lets loopback through). Three kinds of page:
 * - article: complete articles of the article-extraction benchmark, bytes as served;
 * - shell: the real-web corpus's pages that need scripts (a JavaScript-only result page, challenge and refusal pages);
 * - built: article benchmark pages rebuilt the way client-rendered sites ship them — the body in a JSON island that an
 *   inline script writes into an empty mount point, or fetched from the page's own site after load — so that a page
 *   which needs the browser has a known article to score.
 * The compared builds (no browser, Chromium, and another build's Chromium with BENCH_READDOCS_BEFORE=<its pincer.js>)
 * take turns on every page of every round, so the machine's load falls on all of them alike.
 */

type Via = 'standalone' | 'hub';

interface CallPage {
  set: 'article' | 'shell' | 'built';
  id: string;
  path: string;
  truth?: string;
}

interface Subject {
  name: string;
  pincer: string;
  browser: string;
}

interface Connected {
  subject: Subject;
  client: Client;
  close(): Promise<void>;
  pid: number;
}

interface Call {
  subject: string;
  page: CallPage;
  ms: number;
  ran?: boolean;
  reason?: string;
  shown: boolean;
  counts?: Counts;
  error?: string;
}

interface Structured {
  extracted_from?: string;
  render?: { ran: boolean; reason: string; outcome: string | null } | null;
}

const NOWHERE = path.join(os.tmpdir(), 'pincer-bench-no-browser');

/** Every n-th page of the benchmark (sorted by id), `count` in all: the same sample in every run. */
function sample(pages: ArticlePage[], count: number): ArticlePage[] {
  const sorted = [...pages].sort((a, b) => a.id.localeCompare(b.id));
  const step = sorted.length / Math.min(count, sorted.length);
  return Array.from({ length: Math.min(count, sorted.length) }, (_, i) => sorted[Math.floor(i * step)]!);
}

/** The page's body, moved into a data island an inline script writes into #app on DOMContentLoaded (or fetched after load from `from`). */
function builtPage(decoded: string, from?: string): { html: string; body: string } {
  const head = /<head[\s>][\s\S]*?<\/head>/i.exec(decoded)?.[0] ?? '<head><title></title></head>';
  const body = (/<body[^>]*>([\s\S]*)<\/body>/i.exec(decoded)?.[1] ?? decoded).replace(/<script\b[\s\S]*?<\/script>/gi, '');
  const island = JSON.stringify(body).replace(/</g, '\\u003c');
  const script = from
    ? `fetch(${JSON.stringify(from)}).then((r) => r.json()).then((h) => { document.getElementById('app').innerHTML = h; });`
    : `document.addEventListener('DOMContentLoaded', () => { document.getElementById('app').innerHTML = JSON.parse(document.getElementById('page-data').textContent); });`;
  const data = from ? '' : `<script id="page-data" type="application/json">${island}</script>`;
  return { html: `<!doctype html><html>${head}<body><div id="app"></div>${data}<script>${script}</script></body></html>`, body: JSON.stringify(body) };
}

/** The pages and a loopback server for them. */
async function servePages(articles: ArticlePage[], built: number): Promise<{ pages: CallPage[]; base: string; close(): void }> {
  const routes = new Map<string, { type: string; body: Buffer | string }>();
  const pages: CallPage[] = [];
  for (const p of articles) {
    routes.set(`/article/${p.id}.html`, { type: 'text/html', body: p.html });
    pages.push({ set: 'article', id: p.id, path: `/article/${p.id}.html`, truth: p.truth });
  }
  for (const [i, p] of articles.slice(0, built).entries()) {
    const decoded = (await decodeHtml(p.html, p.contentType)).text;
    const viaFetch = i % 2 === 1;
    const page = builtPage(decoded, viaFetch ? `/built/${p.id}.json` : undefined);
    routes.set(`/built/${p.id}.html`, { type: 'text/html; charset=utf-8', body: page.html });
    if (viaFetch) routes.set(`/built/${p.id}.json`, { type: 'application/json', body: page.body });
    pages.push({ set: 'built', id: `${p.id.slice(0, 12)}${viaFetch ? ' (fetch)' : ''}`, path: `/built/${p.id}.html`, truth: p.truth });
  }
  if (!missing(SOURCES.webSearchMcp) && !missing(SOURCES.celina) && !missing(SOURCES.unlimProxy)) {
    for (const s of SERP_PAGES.filter((x) => x.kind !== 'results')) {
      const html = serpPage(s);
      if (!/<script\b/i.test(html)) continue;
      const id = `${s.engine}-${s.kind}`;
      routes.set(`/shell/${id}.html`, { type: 'text/html; charset=utf-8', body: html });
      pages.push({ set: 'shell', id, path: `/shell/${id}.html` });
    }
  }
  const server = http.createServer((req, res) => {
    const r = routes.get((req.url ?? '').split('?')[0]!);
    if (!r) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'Content-Type': r.type }).end(r.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { pages, base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() };
}

/** A proxy that refuses every request: with it as HTTP(S)_PROXY, every host but loopback is unreachable, at once. */
async function refusingProxy(): Promise<{ url: string; close(): void }> {
  const proxy = http.createServer((_req, res) => res.writeHead(502).end());
  proxy.on('connect', (_req, socket: import('node:net').Socket) => {
    // The browser may reset a tunnel it was refused before the answer is out: nothing to do about it.
    socket.on('error', () => socket.destroy());
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  proxy.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`, close: () => proxy.close() };
}

async function connect(subject: Subject, via: Via, env: Record<string, string>): Promise<Connected> {
  const own = { ...env, BROWSER_PATH: subject.browser, PINCER_LOG_LEVEL: 'error' };
  if (via === 'hub') {
    const hub = await startHub(own, subject.pincer);
    const c = await httpClient(hub.url, hub.token);
    const close = async () => {
      await c.close();
      await hub.stop();
    };
    return { subject, client: c.client, pid: hub.pid, close };
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pincer-bench-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [subject.pincer, 'stdio', '--standalone'],
    env: { ...(process.env as Record<string, string>), PINCER_HOME: home, HOME: home, BASH_CWD: home, ...own },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return {
    subject,
    client,
    pid: transport.pid!,
    close: async () => {
      await client.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The article text of a `format: "text"` answer: without its URL line and notes. */
function articleText(text: string): string {
  return text
    .replace(/^URL: \S*\n\n?/, '')
    .replace(/(\n\[Note: [^\n]*\])+$/, '')
    .replace(/\n\[Characters [^\n]*\]$/, '');
}

async function call(c: Connected, base: string, page: CallPage): Promise<Call> {
  const t0 = performance.now();
  const r = await c.client.callTool({ name: 'ReadDocs', arguments: { url: `${base}${page.path}`, format: 'text' } }, { timeout: 120_000 }).catch((err: Error) => err);
  const ms = performance.now() - t0;
  if (r instanceof Error) return { subject: c.subject.name, page, ms, shown: false, error: r.message };
  const text = ((r.content ?? []) as { type: string; text?: string }[]).filter((x) => x.type === 'text').map((x) => x.text ?? '').join('\n');
  if (r.isError) return { subject: c.subject.name, page, ms, shown: false, error: text };
  const sc = (r.structuredContent ?? {}) as Structured;
  return { subject: c.subject.name, page, ms, ran: sc.render?.ran, reason: sc.render?.reason, shown: sc.extracted_from === 'rendered', counts: page.truth === undefined ? undefined : shingleCounts(page.truth, articleText(text)) };
}

/** The browser's processes under `pid` (Linux /proc): how many, and their proportional memory (PSS) in MB. */
function browserProcesses(pid: number): { count: number; pssMb: number } {
  if (process.platform !== 'linux') return { count: -1, pssMb: -1 };
  const parent = new Map<number, number>();
  const comm = new Map<number, string>();
  for (const d of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      comm.set(Number(d), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const under = (p: number): boolean => {
    for (let q = parent.get(p); q !== undefined && q > 1; q = parent.get(q)) if (q === pid) return true;
    return false;
  };
  const mine = [...comm].filter(([p, name]) => /chrom/i.test(name) && under(p)).map(([p]) => p);
  let pss = 0;
  for (const p of mine) {
    try {
      pss += Number(/Pss:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return { count: mine.length, pssMb: Math.round(pss / 1024) };
}

function load(): string {
  return os.loadavg()[0]!.toFixed(1);
}

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function report(title: string, calls: Call[], subjects: Subject[]): string {
  const lines = [`\n### ${title}\n`, '| pages | subject | calls | median | p90 | max | median ÷ no browser | browser ran | rendered shown | F1 |', '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'];
  for (const set of ['article', 'built', 'shell'] as const) {
    const ofSet = calls.filter((c) => c.page.set === set);
    if (!ofSet.length) continue;
    const plain = ofSet.filter((c) => c.subject === subjects[0]!.name).map((c) => c.ms);
    for (const s of subjects) {
      const mine = ofSet.filter((c) => c.subject === s.name);
      const ms = mine.map((c) => c.ms);
      const known = mine.filter((c) => c.ran !== undefined);
      const ran = known.length ? `${known.filter((c) => c.ran).length} of ${mine.length}` : '—';
      const counts = mine.flatMap((c) => (c.counts ? [c.counts] : []));
      const errors = mine.filter((c) => c.error).length;
      lines.push(`| ${set} | ${s.name} | ${mine.length}${errors ? ` (${errors} failed)` : ''} | ${secs(percentile(ms, 50))} | ${secs(percentile(ms, 90))} | ${secs(Math.max(...ms))} | ${(percentile(ms, 50) / percentile(plain, 50)).toFixed(2)}× | ${ran} | ${mine.filter((c) => c.shown).length} | ${counts.length ? aggregate(counts).f1.toFixed(3) : '—'} |`);
    }
  }
  const text = lines.join('\n');
  process.stdout.write(text + '\n');
  return text;
}

/**
 * `BENCH_ONLY=readdocs-calls npm run bench`. BENCH_READDOCS_CALL_PAGES: article pages (24); BENCH_READDOCS_BUILT: of
 * those, how many are also served script-built (8); BENCH_READDOCS_CALL_ROUNDS (3); BENCH_READDOCS_VIA=standalone,hub;
 * BENCH_READDOCS_BEFORE=<another build's dist/main/cli/pincer.js> adds that build with Chromium;
 * BENCH_READDOCS_CALLS_JSON=file keeps every call.
 */
export async function benchReadDocsCalls(): Promise<string> {
  const why = missing(SOURCES.articleBenchmark);
  if (why) {
    process.stdout.write(`\nSkipped: ${why}\n`);
    return `\nSkipped: ${why}`;
  }
  const chromium = process.env.CHROMIUM_PATH ?? browserCandidates().find((c) => fs.existsSync(c));
  const subjects: Subject[] = [{ name: 'no browser', pincer: PINCER, browser: NOWHERE }];
  if (chromium) subjects.push({ name: 'Chromium', pincer: PINCER, browser: chromium });
  if (chromium && process.env.BENCH_READDOCS_BEFORE) subjects.push({ name: 'Chromium, before', pincer: path.resolve(process.env.BENCH_READDOCS_BEFORE), browser: chromium });
  const articles = sample(articleBenchmarkPages(), Number(process.env.BENCH_READDOCS_CALL_PAGES ?? 24));
  const served = await servePages(articles, Number(process.env.BENCH_READDOCS_BUILT ?? 8));
  const proxy = await refusingProxy();
  const env = { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1,localhost', http_proxy: proxy.url, https_proxy: proxy.url, no_proxy: '127.0.0.1,localhost', READDOCS_MAX_CHARS: '10000000' };
  const rounds = Number(process.env.BENCH_READDOCS_CALL_ROUNDS ?? 3);
  const out: string[] = [];
  const all: Record<string, Call[]> = {};
  try {
    for (const via of (process.env.BENCH_READDOCS_VIA ?? 'standalone').split(',') as Via[]) {
      const label = via === 'hub' ? 'a hub over Streamable HTTP' : '`pincer stdio --standalone`';
      // A fresh process for each: complete articles only, then how many browser processes it has.
      const launched: string[] = [];
      for (const s of subjects) {
        const c = await connect(s, via, env);
        for (const p of served.pages.filter((x) => x.set === 'article').slice(0, 5)) await call(c, served.base, p);
        launched.push(`${s.name}: ${browserProcesses(c.pid).count}`);
        await c.close();
      }
      // Then the first call of a fresh process being a page that needs the browser: what launching costs that call.
      const first: string[] = [];
      const shell = served.pages.find((p) => p.set === 'built') ?? served.pages.find((p) => p.set === 'shell');
      const connected: Connected[] = [];
      for (const s of subjects) {
        const c = await connect(s, via, env);
        connected.push(c);
        if (shell) first.push(`${s.name} ${secs((await call(c, served.base, shell)).ms)}`);
      }
      const calls: Call[] = [];
      const loads = [load()];
      for (let round = 0; round < rounds; round++) {
        for (const [i, page] of served.pages.entries()) {
          // Each subject first as often as the others.
          for (let j = 0; j < connected.length; j++) calls.push(await call(connected[(i + round + j) % connected.length]!, served.base, page));
        }
        loads.push(load());
      }
      const idle = connected.map((c) => ({ name: c.subject.name, ...browserProcesses(c.pid) })).filter((b) => b.count > 0);
      for (const c of connected) await c.close();
      all[via] = calls;
      const title = `ReadDocs calls through ${label} (SDK v2 client), ${rounds} rounds, load average ${Math.min(...loads.map(Number))}–${Math.max(...loads.map(Number))}`;
      out.push(report(title, calls, subjects));
      const notes = [`Browser processes after 5 complete articles in a fresh process: ${launched.join(', ')}.`];
      if (shell) notes.push(`First call of a fresh process, a ${shell.set} page (${shell.id}): ${first.join(', ')}.`);
      if (idle.length) notes.push(`The browser after the rounds (idle, its spare page open): ${idle.map((b) => `${b.name} ${b.count} processes, ${b.pssMb} MB PSS`).join('; ')}.`);
      const failed = calls.filter((c) => c.error);
      if (failed.length) notes.push(`Failed calls: ${failed.map((c) => `${c.subject} ${c.page.id}: ${c.error!.slice(0, 120)}`).join('; ')}.`);
      process.stdout.write(notes.join('\n') + '\n');
      out.push(notes.join('\n'));
    }
  } finally {
    proxy.close();
    served.close();
  }
  if (process.env.BENCH_READDOCS_CALLS_JSON) fs.writeFileSync(process.env.BENCH_READDOCS_CALLS_JSON, JSON.stringify(all, (k, v) => (k === 'truth' ? undefined : v)));
  return out.join('\n');
}
